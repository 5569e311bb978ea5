"""The closed event union yielded by `Session.run()`.

Every event is a frozen pydantic model tagged by `type`; field names are the
spec's JSON keys, so `to_json(event)` produces the spec's NDJSON shapes (optional
fields that are unset are left out rather than written as `null`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeGuard

from pydantic import ConfigDict, Field, TypeAdapter

from .messages import Message, PermissionMode, StopReason, Usage
from .model_base import DEFERRED, SkawldModel
from .sandbox.settings import SandboxStatus


class _Event(SkawldModel):
    model_config = ConfigDict(frozen=True)


class SystemEvent(_Event):
    """First event of every run. `instructions` (a skawld addition, left out
    when empty) lists the project/user instruction files in the system prompt;
    `sandbox` (a skawld addition, left out when the agent has no Bash tool)
    says whether Bash runs in the OS sandbox, and why not."""

    type: Literal["system"] = "system"
    subtype: Literal["init"] = "init"
    session_id: str
    run_id: str
    model: str
    tools: list[str]
    permission_mode: PermissionMode
    cwd: str
    instructions: list[str] | None = None
    sandbox: SandboxStatus | None = None


class SkillSummary(SkawldModel):
    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    when_to_use: str | None = None
    argument_hint: str | None = None


class SkillsLoadedEvent(_Event):
    type: Literal["skills_loaded"] = "skills_loaded"
    skills: list[SkillSummary]


UserEventSubtype = Literal["prompt", "tool_result", "steering", "stop_hook"]


class UserEvent(_Event):
    """A user-role message was appended (and persisted)."""

    type: Literal["user"] = "user"
    message: Message
    subtype: UserEventSubtype | None = None


class PartialText(SkawldModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["text"] = "text"
    text: str


class PartialThinking(SkawldModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["thinking"] = "thinking"
    text: str


class PartialToolInput(SkawldModel):
    model_config = ConfigDict(frozen=True)
    kind: Literal["tool_use_input"] = "tool_use_input"
    tool_use_id: str
    json_delta: str


PartialDelta = Annotated[PartialText | PartialThinking | PartialToolInput, Field(discriminator="kind")]


class PartialAssistantEvent(_Event):
    """A token-level delta; render-only (opt-in with `include_partial_messages`)."""

    type: Literal["partial_assistant"] = "partial_assistant"
    delta: PartialDelta


class AssistantEvent(_Event):
    type: Literal["assistant"] = "assistant"
    message: Message
    stop_reason: StopReason


class UsageEvent(_Event):
    """Tokens of one turn and of the run so far. `cost_usd` / `cumulative_cost_usd`
    (skawld additions, left out when no price is known) are US dollars from the
    agent's price table."""

    type: Literal["usage"] = "usage"
    usage: Usage
    cumulative: Usage
    cost_usd: float | None = None
    cumulative_cost_usd: float | None = None
    estimated: bool = False
    """The provider estimated this turn's tokens (the server reported none)."""


class PermissionRequestItem(SkawldModel):
    model_config = ConfigDict(frozen=True)

    tool_use_id: str
    tool_name: str
    input: dict[str, Any]
    summary: str


class PermissionRequestEvent(_Event):
    type: Literal["permission_request"] = "permission_request"
    requests: list[PermissionRequestItem]


class ToolCallStartEvent(_Event):
    type: Literal["tool_call_start"] = "tool_call_start"
    tool_use_id: str
    tool_name: str
    input: dict[str, Any]


class ToolCallEndEvent(_Event):
    type: Literal["tool_call_end"] = "tool_call_end"
    tool_use_id: str
    tool_name: str
    is_error: bool
    duration_ms: float


class SkillInvokedEvent(_Event):
    type: Literal["skill_invoked"] = "skill_invoked"
    name: str
    args: str | None = None
    model_override: str | None = None
    allowed_tools: list[str] | None = None


class SkillCompletedEvent(_Event):
    type: Literal["skill_completed"] = "skill_completed"
    name: str
    is_error: bool


class CompactionEvent(_Event):
    type: Literal["compaction"] = "compaction"
    messages_before: int
    messages_after: int
    tokens_before: int
    tokens_after: int = 0
    strategy: str
    summary_usage: Usage | None = None


class ErrorInfo(SkawldModel):
    model_config = ConfigDict(frozen=True)

    name: str
    message: str
    retryable: bool
    cause: Any = None


class ErrorEvent(_Event):
    """An unrecoverable error; always followed by `result(subtype="error")`."""

    type: Literal["error"] = "error"
    error: ErrorInfo


class HookErrorEvent(_Event):
    """A hook raised or timed out. Non-terminal."""

    type: Literal["hook_error"] = "hook_error"
    hook_event: str
    message: str
    tool_use_id: str | None = None


ResultSubtype = Literal["success", "aborted", "error", "interrupted"]


class ResultEvent(_Event):
    """The terminal event; exactly one per run. `total_cost_usd` (a skawld addition,
    left out when no price is known) is the run's cost in US dollars."""

    type: Literal["result"] = "result"
    subtype: ResultSubtype
    stop_reason: StopReason
    total_usage: Usage
    duration_ms: float
    final_text: str | None = None
    total_cost_usd: float | None = None
    usage_estimated: bool = False
    """Some of `total_usage` is the provider's estimate (a server that reports no usage)."""


class SubagentEvent(_Event):
    """A child session's event, wrapped; may nest.

    `parent_tool_use_id` (the id of the parent's tool call that started the
    subagent) is for Python consumers and the Claude Code dialect; it is not part
    of the spec's JSON and is left out of `to_json`.
    """

    type: Literal["subagent_event"] = "subagent_event"
    parent_session_id: str
    subagent_run_id: str
    subagent_type: str
    display_name: str
    event: Event
    parent_tool_use_id: str | None = Field(default=None, exclude=True)


Event = Annotated[
    SystemEvent
    | SkillsLoadedEvent
    | UserEvent
    | PartialAssistantEvent
    | AssistantEvent
    | UsageEvent
    | PermissionRequestEvent
    | ToolCallStartEvent
    | ToolCallEndEvent
    | SkillInvokedEvent
    | SkillCompletedEvent
    | CompactionEvent
    | ErrorEvent
    | HookErrorEvent
    | ResultEvent
    | SubagentEvent,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event, config=DEFERRED)


def to_json(event: Event) -> str:
    """One NDJSON line (without the newline) in the spec's shape."""
    return event.model_dump_json(exclude_none=True)


def from_json(line: str | bytes) -> Event:
    """Parse one NDJSON line back into an event."""
    return EVENT_ADAPTER.validate_json(line)


def is_system_event(e: object) -> TypeGuard[SystemEvent]:
    return isinstance(e, SystemEvent)


def is_skills_loaded_event(e: object) -> TypeGuard[SkillsLoadedEvent]:
    return isinstance(e, SkillsLoadedEvent)


def is_user_event(e: object) -> TypeGuard[UserEvent]:
    return isinstance(e, UserEvent)


def is_partial_assistant_event(e: object) -> TypeGuard[PartialAssistantEvent]:
    return isinstance(e, PartialAssistantEvent)


def is_assistant_event(e: object) -> TypeGuard[AssistantEvent]:
    return isinstance(e, AssistantEvent)


def is_usage_event(e: object) -> TypeGuard[UsageEvent]:
    return isinstance(e, UsageEvent)


def is_permission_request_event(e: object) -> TypeGuard[PermissionRequestEvent]:
    return isinstance(e, PermissionRequestEvent)


def is_tool_call_start_event(e: object) -> TypeGuard[ToolCallStartEvent]:
    return isinstance(e, ToolCallStartEvent)


def is_tool_call_end_event(e: object) -> TypeGuard[ToolCallEndEvent]:
    return isinstance(e, ToolCallEndEvent)


def is_skill_invoked_event(e: object) -> TypeGuard[SkillInvokedEvent]:
    return isinstance(e, SkillInvokedEvent)


def is_skill_completed_event(e: object) -> TypeGuard[SkillCompletedEvent]:
    return isinstance(e, SkillCompletedEvent)


def is_compaction_event(e: object) -> TypeGuard[CompactionEvent]:
    return isinstance(e, CompactionEvent)


def is_error_event(e: object) -> TypeGuard[ErrorEvent]:
    return isinstance(e, ErrorEvent)


def is_hook_error_event(e: object) -> TypeGuard[HookErrorEvent]:
    return isinstance(e, HookErrorEvent)


def is_result_event(e: object) -> TypeGuard[ResultEvent]:
    return isinstance(e, ResultEvent)


def is_subagent_event(e: object) -> TypeGuard[SubagentEvent]:
    return isinstance(e, SubagentEvent)
