"""Hook inputs, outcomes, entries and the `Hooks` configuration (reference §2.9).

A hook is `async def hook(input, ctx) -> outcome | None`. Returning `None`
means "no opinion" (continue).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

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
    "Hooks",
    "PostToolUseInput",
    "PostToolUseOutcome",
    "PreCompactInput",
    "PreToolUseInput",
    "NotificationInput",
    "PreToolUseOutcome",
    "PromptOutcome",
    "SessionEndInput",
    "SessionStartInput",
    "StopInput",
    "StopOutcome",
    "SubagentStopInput",
    "UserPromptSubmitInput",
]

HookEventName = Literal[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "PreCompact",
    "SessionStart",
    "SessionEnd",
    "Notification",
    "SubagentStop",
]
HOOK_EVENT_NAMES: tuple[HookEventName, ...] = get_args(HookEventName)


@dataclass(frozen=True)
class HookContext:
    """Per-invocation context. Cancellation is asyncio's (no signal).

    `cwd` is normalized to a `Path`; `permission_mode` is the agent's mode when the hook runs.
    """

    session_id: str
    run_id: str
    cwd: Path | str
    permission_mode: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.cwd, Path):
            object.__setattr__(self, "cwd", Path(self.cwd))


# -- inputs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PreToolUseInput:
    """A validated tool call, before permission evaluation."""

    tool_name: str
    tool_use_id: str
    input: dict[str, Any]
    summary: str


@dataclass(frozen=True)
class PostToolUseInput:
    """A tool call that executed (tool-level errors included)."""

    tool_name: str
    tool_use_id: str
    input: dict[str, Any]
    content: Any
    is_error: bool
    duration_ms: float


@dataclass(frozen=True)
class UserPromptSubmitInput:
    """A top-level prompt (`run`) or steering message (`steer`)."""

    prompt: str
    source: Literal["run", "steer"] = "run"


@dataclass(frozen=True)
class StopInput:
    """The run is about to stop normally."""

    stop_reason: str
    final_text: str | None = None
    stop_hook_active: bool = False


@dataclass(frozen=True)
class PreCompactInput:
    """Compaction is about to run (observational)."""

    trigger: Literal["threshold", "forced", "manual"]
    messages_before: int
    tokens_before: int


@dataclass(frozen=True)
class SessionStartInput:
    """A session's first run in this process: `startup` (a new session) or `resume`.
    Context the hooks return goes to the model with the first prompt."""

    source: Literal["startup", "resume", "clear", "compact"] = "startup"


@dataclass(frozen=True)
class SessionEndInput:
    """The session ends (its agent closes). Observational."""

    reason: str = "other"


@dataclass(frozen=True)
class NotificationInput:
    """skawld is waiting for the user (a permission prompt). Observational."""

    message: str
    notification_type: str = "permission_prompt"


@dataclass(frozen=True)
class SubagentStopInput:
    """A subagent's run is about to stop; a block keeps it going with the reason as feedback."""

    stop_reason: str
    final_text: str | None = None
    stop_hook_active: bool = False
    agent_type: str | None = None


# -- outcomes ----------------------------------------------------------------------------


@dataclass(frozen=True)
class HookContinue:
    """No decision. PreToolUse: optionally rewrite the input. UserPromptSubmit: add context."""

    updated_input: dict[str, Any] | None = None
    additional_context: str | None = None


@dataclass(frozen=True)
class HookAllow:
    """PreToolUse: allow, bypassing rules, mode and `can_use_tool`."""

    updated_input: dict[str, Any] | None = None


@dataclass(frozen=True)
class HookDeny:
    """PreToolUse: deny the call with `reason`; later hooks do not run."""

    reason: str


@dataclass(frozen=True)
class HookAsk:
    """PreToolUse: force the `can_use_tool` callback, even in yolo."""


@dataclass(frozen=True)
class HookBlock:
    """UserPromptSubmit: reject the prompt. Stop: keep going with `reason` as feedback."""

    reason: str


@dataclass(frozen=True)
class PostToolUseOutcome:
    """PostToolUse: extra context appended to the tool result as a system reminder."""

    additional_context: str | None = None


PreToolUseOutcome = HookContinue | HookAllow | HookDeny | HookAsk
PromptOutcome = HookContinue | HookBlock
StopOutcome = HookBlock | HookContinue

HookFunction = Callable[[Any, HookContext], Awaitable[Any]]


@dataclass(frozen=True)
class HookEntry:
    """One registered hook: the function, an optional tool-name glob, a timeout in ms
    (and, for PreToolUse, whether a failure lets the call through).

    `matcher` applies only to PreToolUse/PostToolUse: a case-sensitive glob
    where `*` matches any run of characters. `None` matches every tool.
    """

    hook: HookFunction
    matcher: str | None = None
    timeout_ms: float = 60000
    fail_open: bool = False
    """PreToolUse only: a hook that raises or times out lets the call continue (reported as a
    `HookErrorEvent`) instead of denying it; Claude Code's command hooks behave so."""


HookMatcher = HookEntry
"""Alias of `HookEntry`."""


@dataclass
class Hooks:
    """Hooks by event, each a list run in registration order."""

    pre_tool_use: list[HookEntry] = field(default_factory=list)
    post_tool_use: list[HookEntry] = field(default_factory=list)
    user_prompt_submit: list[HookEntry] = field(default_factory=list)
    stop: list[HookEntry] = field(default_factory=list)
    pre_compact: list[HookEntry] = field(default_factory=list)
    session_start: list[HookEntry] = field(default_factory=list)
    session_end: list[HookEntry] = field(default_factory=list)
    notification: list[HookEntry] = field(default_factory=list)
    subagent_stop: list[HookEntry] = field(default_factory=list)
