"""The event union: NDJSON shapes equal the Events spec page; guards; errors."""

from __future__ import annotations

import json

import pytest

import skawld_core
from skawld_core import (
    EVENT_ADAPTER,
    AssistantEvent,
    CompactionEvent,
    ErrorEvent,
    ErrorInfo,
    Event,
    HookErrorEvent,
    Message,
    PartialAssistantEvent,
    PartialText,
    PartialToolInput,
    PermissionRequestEvent,
    PermissionRequestItem,
    ResultEvent,
    SkillCompletedEvent,
    SkillInvokedEvent,
    SkillsLoadedEvent,
    SkillSummary,
    SubagentEvent,
    SystemEvent,
    TextBlock,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UsageEvent,
    UserEvent,
    from_json,
    to_json,
)
from skawld_core.errors import (
    AuthError,
    ConfigError,
    ContextLengthError,
    HookError,
    PermissionDeniedError,
    ProviderError,
    RateLimitError,
    SkillError,
    ToolExecutionError,
    TurnLimitError,
)

USAGE = Usage(input_tokens=10, output_tokens=5)
MSG = Message(role="assistant", content=[TextBlock(text="hi"), ToolUseBlock(id="t1", name="Read", input={"a": None})])

ALL_EVENTS: list[Event] = [
    SystemEvent(session_id="s", run_id="r", model="m", tools=["A", "B"], permission_mode="default", cwd="/w"),
    SkillsLoadedEvent(skills=[SkillSummary(name="commit", description="d")]),
    UserEvent(message=Message(role="user", content=[TextBlock(text="x")]), subtype="prompt"),
    PartialAssistantEvent(delta=PartialText(text="he")),
    AssistantEvent(message=MSG, stop_reason="tool_use"),
    UsageEvent(usage=USAGE, cumulative=USAGE),
    PermissionRequestEvent(
        requests=[PermissionRequestItem(tool_use_id="t1", tool_name="Bash", input={"command": "ls"}, summary="ls")]
    ),
    ToolCallStartEvent(tool_use_id="t1", tool_name="Read", input={"file_path": "a"}),
    ToolCallEndEvent(tool_use_id="t1", tool_name="Read", is_error=False, duration_ms=1.5),
    SkillInvokedEvent(name="commit", args="fix"),
    SkillCompletedEvent(name="commit", is_error=False),
    CompactionEvent(messages_before=30, messages_after=20, tokens_before=155000, strategy="default-keep-recent-10"),
    ErrorEvent(error=ErrorInfo(name="ProviderError", message="boom", retryable=False)),
    HookErrorEvent(hook_event="Stop", message="stop boom"),
    ResultEvent(subtype="success", stop_reason="end_turn", total_usage=USAGE, duration_ms=3, final_text="done"),
    SubagentEvent(
        parent_session_id="p",
        subagent_run_id="sr",
        subagent_type="_default",
        display_name="Agent #1",
        event=SubagentEvent(
            parent_session_id="c",
            subagent_run_id="sr2",
            subagent_type="_default",
            display_name="Agent #2",
            event=ToolCallStartEvent(tool_use_id="t9", tool_name="Read", input={}),
        ),
    ),
]


@pytest.mark.parametrize("event", ALL_EVENTS, ids=lambda e: e.type)
def test_every_event_round_trips_through_ndjson(event: Event) -> None:
    line = to_json(event)
    assert "\n" not in line
    assert from_json(line) == event
    assert EVENT_ADAPTER.validate_python(json.loads(line)) == event


def test_union_covers_every_kind_once() -> None:
    assert len({e.type for e in ALL_EVENTS}) == len(ALL_EVENTS) == 16


def test_system_event_shape() -> None:
    assert json.loads(to_json(ALL_EVENTS[0])) == {
        "type": "system",
        "subtype": "init",
        "session_id": "s",
        "run_id": "r",
        "model": "m",
        "tools": ["A", "B"],
        "permission_mode": "default",
        "cwd": "/w",
    }


def test_optional_fields_are_omitted_not_null_but_input_nulls_survive() -> None:
    result = json.loads(
        to_json(ResultEvent(subtype="aborted", stop_reason="error", total_usage=Usage(), duration_ms=1))
    )
    assert "final_text" not in result
    assert result["total_usage"] == {"input_tokens": 0, "output_tokens": 0}
    assistant = json.loads(to_json(ALL_EVENTS[4]))
    assert assistant["message"]["content"][1] == {"type": "tool_use", "id": "t1", "name": "Read", "input": {"a": None}}
    assert "provider_metadata" not in assistant["message"]


def test_partial_and_tool_result_shapes() -> None:
    partial = json.loads(to_json(PartialAssistantEvent(delta=PartialToolInput(tool_use_id="t", json_delta='{"a'))))
    assert partial == {
        "type": "partial_assistant",
        "delta": {"kind": "tool_use_input", "tool_use_id": "t", "json_delta": '{"a'},
    }
    user = UserEvent(
        message=Message(role="user", content=[ToolResultBlock(tool_use_id="t", content="x", is_error=True)]),
        subtype="tool_result",
    )
    assert json.loads(to_json(user))["message"]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": "x",
        "is_error": True,
    }


def test_compaction_tokens_after_is_zero() -> None:
    data = json.loads(to_json(ALL_EVENTS[11]))
    assert data["tokens_after"] == 0 and "summary_usage" not in data


def test_events_are_frozen() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        ALL_EVENTS[7].tool_name = "x"  # type: ignore[misc, union-attr]


GUARDS = [name for name in skawld_core.__all__ if name.startswith("is_") and name.endswith("_event")]


@pytest.mark.parametrize("guard", GUARDS)
def test_each_guard_is_true_only_for_its_own_kind(guard: str) -> None:
    fn = getattr(skawld_core, guard)
    matches = [e.type for e in ALL_EVENTS if fn(e)]
    assert len(matches) == 1
    assert guard == f"is_{matches[0].removesuffix('_event')}_event"


def test_guards_exist_for_every_kind() -> None:
    assert len(GUARDS) == 16


def test_error_hierarchy() -> None:
    cases = [
        (AuthError("x"), "auth", False),
        (RateLimitError("x", retry_after_seconds=3), "rate_limit", True),
        (ContextLengthError("x"), "context_length", False),
        (PermissionDeniedError(tool_name="Bash", reason="no"), "permission_denied", False),
        (ToolExecutionError("x", tool_name="Read"), "tool_execution", False),
        (ProviderError("x", status=503, retryable=True), "provider", True),
        (ConfigError("x"), "config", False),
        (SkillError("x", skill_name="s"), "skill", False),
        (HookError("x"), "hook", False),
        (TurnLimitError("x"), "turn_limit", False),
    ]
    for err, kind, retryable in cases:
        assert isinstance(err, skawld_core.SkawldError)
        assert (err.kind, err.retryable, err.name) == (kind, retryable, type(err).__name__)
    assert RateLimitError("x", retry_after_seconds=3).retry_after_seconds == 3
    denied = PermissionDeniedError(tool_name="Bash", reason="no")
    assert (denied.tool_name, denied.reason) == ("Bash", "no")
    assert ProviderError("x", status=503).status == 503
    cause = ValueError("root")
    assert ConfigError("x", cause=cause).cause is cause


def test_add_usage_counts_missing_as_zero() -> None:
    total = Usage(input_tokens=1, output_tokens=2, cache_read_tokens=3) + Usage(input_tokens=4, cache_creation_tokens=5)
    assert total == Usage(input_tokens=5, output_tokens=2, cache_read_tokens=3, cache_creation_tokens=5)
    assert Usage() + Usage() == Usage(cache_read_tokens=0, cache_creation_tokens=0)
