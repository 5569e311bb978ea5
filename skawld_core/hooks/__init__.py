"""Hooks: PreToolUse, PostToolUse, UserPromptSubmit, Stop, PreCompact (reference §2.9).

A hook is `async def hook(input, ctx) -> outcome | None`. Configure them with
`Hooks(pre_tool_use=[HookEntry(hook=fn, matcher="Bash")], ...)` or a plain
mapping such as `{"PreToolUse": [{"hook": fn, "matcher": "Ba*", "timeout_ms": 500}]}`.
"""

from __future__ import annotations

from .runner import (
    HookRunner,
    PostToolUseResult,
    PreToolUseResult,
    PromptHookResult,
    StopHookResult,
    matcher_matches,
    normalize_hooks,
)
from .types import (
    HOOK_EVENT_NAMES,
    HookAllow,
    HookAsk,
    HookBlock,
    HookContext,
    HookContinue,
    HookDeny,
    HookEntry,
    HookEventName,
    HookFunction,
    HookMatcher,
    Hooks,
    NotificationInput,
    PostToolUseInput,
    PostToolUseOutcome,
    PreCompactInput,
    PreToolUseInput,
    PreToolUseOutcome,
    PromptOutcome,
    SessionEndInput,
    SessionStartInput,
    StopInput,
    StopOutcome,
    SubagentStopInput,
    UserPromptSubmitInput,
)

__all__ = [
    "HOOK_EVENT_NAMES",
    "HookAllow",
    "HookAsk",
    "HookBlock",
    "HookContext",
    "HookContinue",
    "HookDeny",
    "HookEntry",
    "HookEventName",
    "HookFunction",
    "HookMatcher",
    "HookRunner",
    "Hooks",
    "PostToolUseInput",
    "PostToolUseOutcome",
    "PostToolUseResult",
    "PreCompactInput",
    "PreToolUseInput",
    "NotificationInput",
    "SessionEndInput",
    "SessionStartInput",
    "SubagentStopInput",
    "PreToolUseOutcome",
    "PreToolUseResult",
    "PromptHookResult",
    "PromptOutcome",
    "StopHookResult",
    "StopInput",
    "StopOutcome",
    "UserPromptSubmitInput",
    "matcher_matches",
    "normalize_hooks",
]
