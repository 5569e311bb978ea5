"""Shell-command hooks from `config.json` (``hooks``), adapted to skawld_core's hook API.

Each entry ``{"matcher": "Bash", "command": "./check.sh", "timeoutMs": 5000}`` runs
``command`` through the shell in the agent's cwd with a JSON description of the
event on stdin (``hook_event_name``, ``session_id``, ``run_id``, ``cwd`` plus the
event's fields, e.g. ``tool_name`` / ``tool_input``). Claude-Code-style results:

- exit 0: allowed; stdout may be a JSON object ``{"decision": "allow"|"deny"|"ask"|"block",
  "reason": ..., "additionalContext": ...}``; plain stdout text is additional context
  for UserPromptSubmit / PostToolUse;
- exit 2: deny (PreToolUse) or block (UserPromptSubmit, Stop) with stderr as the reason;
- any other exit: the hook failed (PreToolUse fails closed; the others fail open).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from skawld_core.child_env import child_environment
from skawld_core.hooks import (
    HookAllow,
    HookAsk,
    HookBlock,
    HookContext,
    HookContinue,
    HookDeny,
    HookEntry,
    PostToolUseOutcome,
)


class CommandHookError(RuntimeError):
    """The hook command failed (non-zero exit other than 2)."""


def _payload(event: str, data: Any, ctx: HookContext) -> bytes:
    fields = dataclasses.asdict(data) if dataclasses.is_dataclass(data) and not isinstance(data, type) else {}
    if "input" in fields:
        fields["tool_input"] = fields.pop("input")
    body = {"hook_event_name": event, "session_id": ctx.session_id, "run_id": ctx.run_id, "cwd": str(ctx.cwd)}
    return json.dumps({**body, **fields}, default=str).encode()


def _outcome(event: str, code: int, out: str, err: str) -> Any:
    if code == 2:
        reason = err.strip() or out.strip() or "blocked by hook"
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
        if event == "UserPromptSubmit":
            return HookContinue(additional_context=text or None)
        return None
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
    if event in ("UserPromptSubmit", "Stop") and decision == "block":
        return HookBlock(reason)
    if event == "PostToolUse":
        return PostToolUseOutcome(context)
    if event == "UserPromptSubmit":
        return HookContinue(additional_context=context)
    return None


def command_hook(event: str, command: str, env_passthrough: Sequence[str] = ()) -> Any:
    """A hook function that runs `command` for `event` (secrets scrubbed from its
    environment except the `env_passthrough` names)."""

    async def hook(data: Any, ctx: HookContext) -> Any:
        proc = await asyncio.create_subprocess_shell(
            command,
            cwd=str(ctx.cwd),
            env=child_environment(env_passthrough),
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


def command_hooks(
    config: Mapping[str, list[dict[str, Any]]], env_passthrough: Sequence[str] = ()
) -> dict[str, list[HookEntry]]:
    """`config.json` ``hooks`` → the mapping `Agent(hooks=...)` accepts."""
    return {
        event: [
            HookEntry(
                hook=command_hook(event, e["command"], env_passthrough),
                matcher=e.get("matcher"),
                timeout_ms=e.get("timeoutMs", 60000),
            )
            for e in entries
        ]
        for event, entries in config.items()
        if entries
    }
