"""Shell-command hooks from config (``hooks``), adapted to skawld_core's hook API.

Each entry ``{"matcher": "Bash", "command": "./check.sh", "timeoutMs": 5000}`` runs
``command`` through the shell in the agent's cwd (with ``CLAUDE_PROJECT_DIR`` and
``SKAWLD_PROJECT_DIR`` set to it) and a JSON description of the event on stdin:
Claude Code's fields (``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``,
``hook_event_name``, ``tool_name``, ``tool_input``, ``tool_use_id``, ``tool_response``,
``prompt``, ``stop_hook_active``, …) plus skawld's (``run_id``, ``input``'s summary, …).
Claude-Code-style results:

- exit 0: allowed; stdout may be a JSON object, in Claude Code's shape
  (``hookSpecificOutput.permissionDecision``, ``decision: "block"``, ``continue: false``,
  ``additionalContext``; see `skawld_core.hooks.claude_format.claude_hook_outcome`) or
  skawld's older ``{"decision": "allow"|"deny"|"ask"|"block", "reason": ...}``; plain
  stdout text is additional context for UserPromptSubmit / PostToolUse;
- exit 2: deny (PreToolUse) or block (UserPromptSubmit, Stop) with stderr as the reason;
  PostToolUse: stderr goes to the model;
- any other exit: the hook failed. PreToolUse fails closed, except for entries with
  ``"format": "claude-code"`` (Claude Code's settings files), which continue as in
  Claude Code; the other events fail open. Those entries also use Claude Code's matcher
  (``Edit|Write``, ``mcp__.*``; `skawld_core.hooks.claude_format.claude_matcher`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..child_env import child_environment
from ..session_env import session_env
from . import (
    HookAllow,
    HookAsk,
    HookBlock,
    HookContext,
    HookContinue,
    HookDeny,
    HookEntry,
    PostToolUseOutcome,
)
from .claude_format import MATCHED_EVENTS, claude_hook_input, claude_hook_outcome, claude_matcher

if TYPE_CHECKING:
    from ..config_model import HookCommand

_TOOL_EVENTS = ("PreToolUse", "PostToolUse")


class CommandHookError(RuntimeError):
    """The hook command failed (non-zero exit other than 2)."""


def _payload(event: str, data: Any, ctx: HookContext) -> bytes:
    fields = dataclasses.asdict(data) if dataclasses.is_dataclass(data) and not isinstance(data, type) else {}
    if "input" in fields:
        fields["tool_input"] = fields.pop("input")
    claude = claude_hook_input(event, data, ctx.session_id, str(ctx.cwd), ctx.permission_mode) if fields else {}
    body = {"hook_event_name": event, "session_id": ctx.session_id, "run_id": ctx.run_id, "cwd": str(ctx.cwd)}
    return json.dumps({**body, **fields, **claude}, default=str).encode()


def _outcome(event: str, code: int, out: str, err: str) -> Any:
    if code == 2:
        reason = err.strip() or out.strip() or "blocked by hook"
        if event in ("SessionStart", "SessionEnd", "Notification", "PreCompact"):
            return None  # nothing to block: Claude Code shows stderr to the user only
        if event == "PostToolUse":
            return PostToolUseOutcome(reason)
        return HookDeny(reason) if event == "PreToolUse" else HookBlock(reason)
    if code != 0:
        raise CommandHookError(f"hook command exited with {code}: {err.strip()[:500]}")
    parsed: Any = None
    if out.strip().startswith("{"):
        try:
            parsed = json.loads(out)
        except ValueError:
            parsed = None
    if not isinstance(parsed, dict):
        text = out.strip()
        if event == "PostToolUse":
            return PostToolUseOutcome(text or None)
        if event in ("UserPromptSubmit", "SessionStart"):  # Claude Code: their stdout is context
            return HookContinue(additional_context=text or None)
        return None
    if "hookSpecificOutput" in parsed or "continue" in parsed:
        return claude_hook_outcome(event, parsed)
    return _skawld_outcome(event, parsed)


def _skawld_outcome(event: str, parsed: dict[str, Any]) -> Any:
    """skawld's own JSON: ``{"decision": ..., "reason": ..., "additionalContext": ...}``."""
    decision = parsed.get("decision")
    reason = str(parsed.get("reason") or "blocked by hook")
    context = parsed.get("additionalContext")
    context = str(context) if context else None
    if event == "PreToolUse":
        if decision in ("deny", "block"):
            return HookDeny(reason)
        if decision == "ask":
            return HookAsk()
        if decision in ("allow", "approve"):
            return HookAllow()
        return None
    if event in ("UserPromptSubmit", "Stop", "SubagentStop") and decision == "block":
        return HookBlock(reason)
    if event == "PostToolUse":
        if decision == "block":  # Claude Code: the reason goes to the model
            context = "\n".join(x for x in (reason, context) if x)
        return PostToolUseOutcome(context)
    if event == "UserPromptSubmit":
        return HookContinue(additional_context=context)
    return None


def _matched_subject(event: str, data: Any) -> str:
    """What a matcher is matched against: the tool name, or SessionStart's source."""
    return str(getattr(data, "source" if event == "SessionStart" else "tool_name", ""))


def command_hook(
    event: str,
    command: str,
    env_passthrough: Sequence[str] = (),
    matches: Callable[[str], bool] | None = None,
    extra_env: Mapping[str, str] | None = None,
) -> Any:
    """A hook function that runs `command` for `event` (secrets scrubbed from its
    environment except the `env_passthrough` names; `extra_env` added, such as a plugin's
    ``CLAUDE_PLUGIN_ROOT``). `matches` filters tool events by tool name (a call it
    rejects runs nothing), and SessionStart by its source."""

    async def hook(data: Any, ctx: HookContext) -> Any:
        if matches is not None and event in MATCHED_EVENTS and not matches(_matched_subject(event, data)):
            return None
        env = child_environment(env_passthrough, extra=session_env(ctx.session_id))
        env.update({k: str(v) for k, v in (extra_env or {}).items()})
        env["CLAUDE_PROJECT_DIR"] = env["SKAWLD_PROJECT_DIR"] = str(ctx.cwd)
        proc = await asyncio.create_subprocess_shell(
            command,
            cwd=str(ctx.cwd),
            env=env,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            out, err = await proc.communicate(_payload(event, data, ctx))
        except asyncio.CancelledError:
            if proc.returncode is None:
                proc.kill()
            raise
        return _outcome(event, proc.returncode or 0, out.decode(errors="replace"), err.decode(errors="replace"))

    return hook


def _entry(event: str, e: HookCommand, env_passthrough: Sequence[str]) -> HookEntry:
    timeout = e.timeoutMs or 60000
    if e.format == "claude-code":
        hook = command_hook(event, e.command, env_passthrough, claude_matcher(e.matcher), e.env)
        return HookEntry(hook=hook, timeout_ms=timeout, fail_open=True)
    return HookEntry(
        hook=command_hook(event, e.command, env_passthrough, extra_env=e.env), matcher=e.matcher, timeout_ms=timeout
    )


def command_hooks(
    config: Mapping[str, Sequence[HookCommand]], env_passthrough: Sequence[str] = ()
) -> dict[str, list[HookEntry]]:
    """Config ``hooks`` (`ConfigFile.hook_commands`) → the mapping `Agent(hooks=...)` accepts."""
    return {event: [_entry(event, e, env_passthrough) for e in entries] for event, entries in config.items() if entries}
