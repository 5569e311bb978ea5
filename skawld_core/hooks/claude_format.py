"""Claude Code's nested hook format, as skawld's ``hooks`` config entries.

Claude Code's settings files say::

    {"hooks": {"PreToolUse": [{"matcher": "Edit|Write",
                               "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}

`flatten_claude_hooks` turns that into ``{"PreToolUse": [{"command": ..., "matcher":
"Edit|Write", "timeoutMs": 30000, "format": "claude-code"}]}`` (one entry per command)
for the events skawld has (PreToolUse, PostToolUse, UserPromptSubmit, Stop,
PreCompact, SessionStart, SessionEnd, Notification, SubagentStop); other events and
hook types are reported as notes. A SessionStart matcher is matched against the start's
source (``startup``, ``resume``, ``clear``, ``compact``), as in Claude Code. `claude_matcher` is
Claude Code's matcher: empty or ``*`` matches every tool, letters, digits, ``_`` and
``|`` are an exact list of names, anything else is a regular expression searched in the
tool name (or the SessionStart source).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ..claude_modes import claude_mode_name
from ..claude_tools import map_tool_name
from ..errors import ConfigError
from .types import HOOK_EVENT_NAMES, HookAllow, HookAsk, HookBlock, HookContinue, HookDeny, PostToolUseOutcome

__all__ = ["MATCHED_EVENTS", "claude_hook_input", "claude_hook_outcome", "claude_matcher", "flatten_claude_hooks"]

SUPPORTED_EVENTS = HOOK_EVENT_NAMES
_TOOL_EVENTS = ("PreToolUse", "PostToolUse")
MATCHED_EVENTS = (*_TOOL_EVENTS, "SessionStart")
"""The events whose hooks a matcher filters: by tool name, or by SessionStart's source."""
_NAME_LIST = re.compile(r"^[A-Za-z0-9_|]+$")


def claude_matcher(pattern: str | None) -> Callable[[str], bool]:
    """A predicate on tool names for Claude Code's `pattern`; raises `re.error` for a bad regex.

    Claude Code's tool names in an exact list are mapped to skawld's (``MultiEdit`` → ``Edit``).
    """
    if pattern is None or pattern.strip() in ("", "*"):
        return lambda _name: True
    if _NAME_LIST.match(pattern):
        names = {map_tool_name(p) for p in pattern.split("|") if p} | set(pattern.split("|"))
        return lambda name: name in names
    regex = re.compile(pattern)
    return lambda name: regex.search(name) is not None


def _bad(where: str, ptr: str, what: str) -> ConfigError:
    return ConfigError(f"Invalid Claude Code settings in {where} (/hooks{ptr}): {what}")


def flatten_claude_hooks(hooks: object, *, where: str) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """Claude Code's ``hooks`` object → skawld's ``hooks`` section, plus notes on what is not
    applied. Raises `ConfigError` (naming `where` and the JSON pointer) for a malformed shape."""
    if not isinstance(hooks, dict):
        raise _bad(where, "", "expected an object of hook events")
    out: dict[str, list[dict[str, Any]]] = {}
    notes: list[str] = []
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise _bad(where, f"/{event}", "expected a list of matcher groups")
        if event not in SUPPORTED_EVENTS:
            notes.append(f"hooks.{event}: skawld has no {event} event; ignored")
            continue
        for i, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                raise _bad(where, f"/{event}/{i}", 'expected {"matcher": ..., "hooks": [...]}')
            matcher = group.get("matcher")
            if matcher is not None and not isinstance(matcher, str):
                raise _bad(where, f"/{event}/{i}/matcher", "expected a string")
            if matcher and event in MATCHED_EVENTS:
                try:
                    claude_matcher(matcher)
                except re.error as exc:
                    notes.append(f"hooks.{event}[{i}]: matcher {matcher!r} is not a valid regular expression ({exc})")
                    continue
            for j, hook in enumerate(group["hooks"]):
                ptr = f"/{event}/{i}/hooks/{j}"
                if not isinstance(hook, dict):
                    raise _bad(where, ptr, "expected an object")
                kind = hook.get("type", "command")
                if kind != "command":
                    notes.append(f"hooks.{event}[{i}].hooks[{j}]: {kind!r} hooks are not supported by skawld; ignored")
                    continue
                command = hook.get("command")
                if not isinstance(command, str) or not command.strip():
                    raise _bad(where, f"{ptr}/command", "must be a non-empty string")
                entry: dict[str, Any] = {"command": command, "format": "claude-code"}
                if matcher and matcher.strip() not in ("", "*") and event in MATCHED_EVENTS:
                    entry["matcher"] = matcher
                timeout = hook.get("timeout")
                if timeout is not None:
                    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
                        raise _bad(where, f"{ptr}/timeout", f"must be a positive number of seconds (got {timeout!r})")
                    entry["timeoutMs"] = max(1, int(timeout * 1000))
                out.setdefault(event, []).append(entry)
    return out, notes


# -- Claude Code's hook input and decision output ------------------------------------------


def _json_content(content: Any) -> Any:
    """A tool result's content as JSON: text as it is, blocks as their JSON objects."""
    if isinstance(content, str) or not isinstance(content, list | tuple):
        return content
    return [b.model_dump(mode="json", exclude_none=True) if hasattr(b, "model_dump") else b for b in content]


def claude_hook_input(event: str, data: Any, session_id: str, cwd: str, mode: str | None) -> dict[str, Any]:
    """The JSON object Claude Code gives a hook on stdin for `event` (`data` is skawld's hook input,
    `mode` skawld's permission mode, given in Claude Code's words).

    ``transcript_path`` is empty: skawld keeps sessions in its store, not in a JSONL file.
    Command hooks and the hook callbacks of a `claude-agent-sdk` host both get this object.
    """
    out: dict[str, Any] = {
        "session_id": session_id,
        "transcript_path": "",
        "cwd": cwd,
        "hook_event_name": event,
        "permission_mode": claude_mode_name(mode),
    }
    if event in _TOOL_EVENTS:
        out.update(tool_name=data.tool_name, tool_input=dict(data.input), tool_use_id=data.tool_use_id)
        if event == "PostToolUse":
            out["tool_response"] = _json_content(data.content)
    elif event == "UserPromptSubmit":
        out["prompt"] = data.prompt
    elif event in ("Stop", "SubagentStop"):
        out["stop_hook_active"] = data.stop_hook_active
    elif event == "SessionStart":
        out["source"] = data.source
    elif event == "SessionEnd":
        out["reason"] = data.reason
    elif event == "Notification":
        out.update(message=data.message, notification_type=data.notification_type)
    elif event == "PreCompact":
        out.update(trigger="manual" if data.trigger == "manual" else "auto", custom_instructions=None)
    return out


def claude_hook_outcome(event: str, out: Mapping[str, Any], *, keep_going_on_stop: bool = False) -> Any:
    """A hook's JSON output in Claude Code's shape → skawld's hook outcome (None: no opinion).

    ``continue: false`` stops what the event guards (a tool call, a prompt) with
    ``stopReason``; ``decision: "block"`` blocks it with ``reason`` (PostToolUse: the reason
    goes to the model); PreToolUse's ``hookSpecificOutput.permissionDecision``
    (``allow``/``deny``/``ask``) with ``permissionDecisionReason`` and ``updatedInput``, or
    the older ``decision: "approve"``; ``hookSpecificOutput.additionalContext`` adds context.

    On Stop, ``continue: false`` lets the run stop (it wins over ``decision: "block"``),
    as a command hook's does in Claude Code. `keep_going_on_stop` is for the hook callbacks
    of a `claude-agent-sdk` host (`skawld_tui.headless.claude_control`): there ``continue: false``
    on Stop blocks the stop like ``decision: "block"`` does, and the run goes on with
    ``stopReason``.
    """
    specific = out.get("hookSpecificOutput")
    specific = specific if isinstance(specific, Mapping) else {}
    stopped = out.get("continue") is False
    stop_reason = str(out.get("stopReason") or "stopped by a hook")
    reason = str(out.get("reason") or "blocked by a hook")
    context = specific.get("additionalContext", out.get("additionalContext"))
    context = str(context) if context else None
    if event == "PreToolUse":
        decision = specific.get("permissionDecision", out.get("decision"))
        updated = specific.get("updatedInput")
        updated = dict(updated) if isinstance(updated, Mapping) else None
        if stopped:
            return HookDeny(stop_reason)
        if decision in ("deny", "block"):
            return HookDeny(str(specific.get("permissionDecisionReason") or out.get("reason") or "denied by a hook"))
        if decision == "ask":
            return HookAsk()
        if decision in ("allow", "approve"):
            return HookAllow(updated_input=updated)
        return HookContinue(updated_input=updated) if updated else None
    if event == "PostToolUse":
        if out.get("decision") == "block":
            context = "\n".join(x for x in (reason, context) if x)
        return PostToolUseOutcome(context)
    if event == "UserPromptSubmit":
        if stopped:
            return HookBlock(stop_reason)
        if out.get("decision") == "block":
            return HookBlock(reason)
        return HookContinue(additional_context=context) if context else None
    if event == "SessionStart":
        return HookContinue(additional_context=context) if context else None
    if event in ("Stop", "SubagentStop"):
        if out.get("decision") == "block" and (keep_going_on_stop or not stopped):
            return HookBlock(reason)
        if stopped and keep_going_on_stop:
            return HookBlock(stop_reason)
    return None
