"""Claude Code's headless dialect: skawld events → Claude Code's stream-json messages.

`ClaudeEmitter` turns the spec's events of one run into the lines Claude Code's
``--output-format stream-json`` prints (and ``claude-agent-sdk`` parses):

- ``system``/``init`` (written by the runner with `init_message`, carrying ``schema_version``);
- one ``assistant`` line per content block, with ``message.id``/``model``/``usage``,
  ``session_id``, ``uuid`` and ``parent_tool_use_id`` (the parent's tool-use id for a
  subagent's traffic, else null), plus ``cost_usd``, the turn's cost (a skawld addition;
  like ``usage`` it repeats on every line of one model message: count it once per
  ``message.id``);
- one ``user`` line per tool result;
- ``stream_event`` lines (Anthropic-style raw stream events synthesized from the partial
  deltas) when partial messages are on;
- the ``result`` envelope (`RunTally.envelope`), the same object for ``json`` and
  ``stream-json``; ``total_cost_usd`` is this prompt's cost (as in Claude Code) and
  ``session_cost_usd`` (a skawld addition) the session's total so far.

Costs come from the agent's `PriceTable` per turn and per model (``modelUsage``).
``duration_api_ms`` is the time from each request-starting event (the prompt or the
previous tool results) to the model's message: an approximation of time spent in the API.
"""

from __future__ import annotations

import time
import uuid as _uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, assert_never

from skawld_core.claude_modes import claude_mode_name
from skawld_core.events import (
    AssistantEvent,
    CompactionEvent,
    ErrorEvent,
    Event,
    HookErrorEvent,
    PartialAssistantEvent,
    PermissionRequestEvent,
    ResultEvent,
    SkillCompletedEvent,
    SkillInvokedEvent,
    SkillsLoadedEvent,
    SubagentEvent,
    SystemEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UsageEvent,
    UserEvent,
)
from skawld_core.messages import TextBlock
from skawld_core.providers.discovery import display_model_name

if TYPE_CHECKING:
    from skawld_core.messages import ContentBlock, DocumentBlock, Usage
    from skawld_core.pricing import PriceTable

SCHEMA_VERSION = 1
"""Version of skawld's Claude-dialect schema (``schema_version`` in ``system/init``)."""
CLAUDE_CODE_DIALECT = "2.1.333"
"""The Claude Code release whose stream-json dialect and control protocol skawld follows
(``claude_code_version``; the SDKs compare it with the release a feature needs). It is the
release observed (docs/cli.md says what skawld does not do of it); ``skawld_version`` beside it
is skawld's own."""

DENIED_PREFIX = "Tool call denied:"


def new_uuid() -> str:
    return str(_uuid.uuid4())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def usage_dict(usage: Usage) -> dict[str, int]:
    """Claude's usage object: ``input_tokens`` excludes the cache fields (skawld's includes them)."""
    read = usage.cache_read_tokens or 0
    write = usage.cache_creation_tokens or 0
    return {
        "input_tokens": max(0, usage.input_tokens - read - write),
        "cache_creation_input_tokens": write,
        "cache_read_input_tokens": read,
        "output_tokens": usage.output_tokens,
    }


def block_dict(block: ContentBlock | DocumentBlock) -> dict[str, Any]:
    """A content block in the Anthropic JSON shape the SDK parses."""
    data: dict[str, Any] = block.model_dump(exclude_none=True)
    if data.get("type") == "thinking":
        data.setdefault("signature", "")
    if data.get("type") == "document":
        data.pop("text", None)  # skawld's extracted text for other providers; not an Anthropic field
    return data


@dataclass
class _ModelTally:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    def as_claude(self) -> dict[str, Any]:
        return {
            "inputTokens": self.input,
            "outputTokens": self.output,
            "cacheReadInputTokens": self.cache_read,
            "cacheCreationInputTokens": self.cache_write,
            "webSearchRequests": 0,
            "costUSD": self.cost,
        }


@dataclass
class RunTally:
    """What one run adds up to: turns, usage and cost per model, denials, errors."""

    started: float = field(default_factory=time.monotonic)
    num_turns: int = 0
    api_ms: float = 0.0
    cost_usd: float = 0.0
    models: dict[str, _ModelTally] = field(default_factory=dict)
    denials: list[dict[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    error_name: str | None = None
    usage: dict[str, int] = field(
        default_factory=lambda: {
            "input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 0,
        }
    )

    def add_usage(self, model: str, usage: Usage, cost: float | None) -> None:
        u = usage_dict(usage)
        for key, value in u.items():
            self.usage[key] += value
        t = self.models.setdefault(display_model_name(model), _ModelTally())
        t.input += u["input_tokens"]
        t.output += u["output_tokens"]
        t.cache_read += u["cache_read_input_tokens"]
        t.cache_write += u["cache_creation_input_tokens"]
        t.cost += cost or 0.0
        self.cost_usd += cost or 0.0

    def subtype(self, result: ResultEvent | None) -> str:
        """Claude Code's result subtype for skawld's result."""
        if result is not None and result.subtype == "success":
            return "success"
        if self.error_name == "TurnLimitError":
            return "error_max_turns"
        if self.error_name == "BudgetLimitError":
            return "error_max_budget_usd"
        return "error_during_execution"

    def envelope(
        self,
        result: ResultEvent | None,
        session_id: str,
        *,
        subtype: str | None = None,
        structured_output: Any = None,
        extra_errors: list[str] | None = None,
    ) -> dict[str, Any]:
        """The ``result`` message (identical for ``--output-format json`` and ``stream-json``)."""
        sub = subtype or self.subtype(result)
        errors = [*self.errors, *(extra_errors or [])]
        if result is not None and result.subtype in ("aborted", "interrupted") and not errors:
            errors.append(f"the run was {result.subtype}")
        obj: dict[str, Any] = {
            "type": "result",
            "subtype": sub,
            "is_error": sub != "success",
            "duration_ms": int(result.duration_ms if result is not None else (time.monotonic() - self.started) * 1000),
            "duration_api_ms": int(self.api_ms),
            "num_turns": self.num_turns,
            "result": (result.final_text or "") if result is not None and sub == "success" else None,
            "stop_reason": result.stop_reason if result is not None else None,
            "session_id": session_id,
            "total_cost_usd": self.cost_usd,
            "usage": dict(self.usage),
            "modelUsage": {m: t.as_claude() for m, t in self.models.items()},
            "permission_denials": list(self.denials),
            "uuid": new_uuid(),
        }
        if result is not None and result.usage_estimated:
            obj["usage_estimated"] = True  # skawld addition: the server reported no usage
        if structured_output is not None:
            obj["structured_output"] = structured_output
        if sub != "success":
            obj["errors"] = errors
            obj.pop("result")
        return obj


class _Stream:
    """Per-parent state of the assistant message being streamed or assembled."""

    def __init__(self) -> None:
        self.message_id: str | None = None
        self.block_kind: str | None = None
        self.block_key: str | None = None
        self.index = -1
        self.request_started = time.monotonic()
        self.pending: AssistantEvent | None = None


class ClaudeEmitter:
    """Writes one run's events as Claude Code messages through `write` (one dict per line)."""

    def __init__(
        self,
        write: Callable[[dict[str, Any]], None],
        session_id: str,
        *,
        model: Callable[[], str],
        pricing: PriceTable,
        partial: bool = False,
        stream: bool = True,
    ) -> None:
        self.write = write
        self.session_id = session_id
        self.model = model
        self.pricing = pricing
        self.partial = partial
        self.stream = stream
        self.tally = RunTally()
        self.result: ResultEvent | None = None
        self.final_texts: list[str] = []
        self._streams: dict[str | None, _Stream] = {}
        self._tool_calls: dict[str, tuple[str, dict[str, Any]]] = {}
        self._models: dict[str | None, str] = {}

    # -- public -----------------------------------------------------------

    def event(self, event: Event, parent: str | None = None, model: str | None = None) -> None:
        """Translate one event (a `SubagentEvent` recursively, with its parent's tool-use id)."""
        if isinstance(event, SubagentEvent):
            self.event(event.event, event.parent_tool_use_id or parent, model)
            return
        st = self._streams.setdefault(parent, _Stream())
        if not isinstance(event, UsageEvent) and st.pending is not None:
            self._flush_assistant(st, parent, None)
        match event:
            case SystemEvent():
                self._models[parent] = event.model
            case PartialAssistantEvent():
                if self.partial and self.stream:
                    self._partial(st, parent, event)
            case AssistantEvent():
                self._close_stream(st, parent, event.stop_reason)
                st.pending = event
                if parent is None:
                    self.tally.num_turns += 1
                    self.tally.api_ms += (time.monotonic() - st.request_started) * 1000
            case UsageEvent():
                turn_model = self._models.get(parent) or self.model()
                cost = self.pricing.cost(turn_model, event.usage)
                self.tally.add_usage(turn_model, event.usage, cost)
                if st.pending is not None:
                    self._flush_assistant(st, parent, event.usage, cost)
            case UserEvent():
                st.request_started = time.monotonic()
                if event.subtype == "tool_result":
                    self._tool_results(event, parent)
            case ToolCallStartEvent():
                self._tool_calls[event.tool_use_id] = (event.tool_name, dict(event.input))
            case ErrorEvent():
                if parent is None:
                    self.tally.error_name = event.error.name
                    self.tally.errors.append(event.error.message)
            case ResultEvent():
                if parent is None:
                    self.result = event
            case (
                SkillsLoadedEvent()
                | PermissionRequestEvent()
                | ToolCallEndEvent()
                | SkillInvokedEvent()
                | SkillCompletedEvent()
                | CompactionEvent()
                | HookErrorEvent()
            ):
                pass  # Claude Code's stream has no message for these
            case _:
                assert_never(event)

    # -- assistant / user -------------------------------------------------

    def _base(self, parent: str | None) -> dict[str, Any]:
        return {"parent_tool_use_id": parent, "session_id": self.session_id, "uuid": new_uuid(), "timestamp": _now()}

    def _flush_assistant(self, st: _Stream, parent: str | None, usage: Usage | None, cost: float | None = None) -> None:
        event = st.pending
        st.pending = None
        if event is None:
            return
        message_id = st.message_id or f"msg_{_uuid.uuid4().hex[:24]}"
        st.message_id = None
        model = self._models.get(parent) or self.model()
        if parent is None:
            self.final_texts = [b.text for b in event.message.content if isinstance(b, TextBlock)]
        if not self.stream:
            return
        for block in event.message.content:
            self.write(
                {
                    "type": "assistant",
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [block_dict(block)],
                        "stop_reason": event.stop_reason,
                        "stop_sequence": None,
                        "usage": usage_dict(usage) if usage is not None else None,
                    },
                    **self._base(parent),
                    "cost_usd": cost,
                }
            )

    def _tool_results(self, event: Any, parent: str | None) -> None:
        from skawld_core.messages import ToolResultBlock

        for block in event.message.content:
            if not isinstance(block, ToolResultBlock):
                continue
            content = block.content if isinstance(block.content, str) else ""
            if block.is_error and content.startswith(DENIED_PREFIX) and parent is None:
                name, tool_input = self._tool_calls.get(block.tool_use_id, ("", {}))
                self.tally.denials.append(
                    {"tool_name": name, "tool_use_id": block.tool_use_id, "tool_input": tool_input}
                )
            if not self.stream:
                continue
            self.write(
                {
                    "type": "user",
                    "message": {"role": "user", "content": [block_dict(block)]},
                    **self._base(parent),
                    "tool_use_result": content
                    if isinstance(block.content, str)
                    else [block_dict(b) for b in block.content],
                }
            )

    # -- partial messages -------------------------------------------------

    def _stream_event(self, parent: str | None, event: dict[str, Any]) -> None:
        self.write(
            {
                "type": "stream_event",
                "uuid": new_uuid(),
                "session_id": self.session_id,
                "event": event,
                "parent_tool_use_id": parent,
            }
        )

    def _partial(self, st: _Stream, parent: str | None, event: Any) -> None:
        delta = event.delta
        if st.message_id is None:
            st.message_id = f"msg_{_uuid.uuid4().hex[:24]}"
            st.index = -1
            st.block_kind = None
            message: dict[str, Any] = {
                "id": st.message_id,
                "type": "message",
                "role": "assistant",
                "model": self._models.get(parent) or self.model(),
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 0, "output_tokens": 0},
            }
            self._stream_event(parent, {"type": "message_start", "message": message})
        key = getattr(delta, "tool_use_id", None) or delta.kind
        if st.block_kind != delta.kind or st.block_key != key:
            if st.block_kind is not None:
                self._stream_event(parent, {"type": "content_block_stop", "index": st.index})
            st.index += 1
            st.block_kind, st.block_key = delta.kind, key
            if delta.kind == "text":
                start: dict[str, Any] = {"type": "text", "text": ""}
            elif delta.kind == "thinking":
                start = {"type": "thinking", "thinking": "", "signature": ""}
            else:
                start = {"type": "tool_use", "id": delta.tool_use_id, "name": "", "input": {}}
            self._stream_event(parent, {"type": "content_block_start", "index": st.index, "content_block": start})
        if delta.kind == "text":
            body: dict[str, Any] = {"type": "text_delta", "text": delta.text}
        elif delta.kind == "thinking":
            body = {"type": "thinking_delta", "thinking": delta.text}
        else:
            body = {"type": "input_json_delta", "partial_json": delta.json_delta}
        self._stream_event(parent, {"type": "content_block_delta", "index": st.index, "delta": body})

    def _close_stream(self, st: _Stream, parent: str | None, stop_reason: str) -> None:
        if st.message_id is None or not (self.partial and self.stream):
            return
        if st.block_kind is not None:
            self._stream_event(parent, {"type": "content_block_stop", "index": st.index})
        self._stream_event(
            parent,
            {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None}, "usage": {}},
        )
        self._stream_event(parent, {"type": "message_stop"})
        st.block_kind = None


def init_message(
    *,
    session_id: str,
    cwd: str,
    model: str,
    tools: list[str],
    permission_mode: str,
    mcp_servers: list[dict[str, str]],
    skills: list[str],
    agents: list[str],
    skawld_version: str,
    slash_commands: Sequence[str] = (),
    plugins: Sequence[Mapping[str, str]] = (),
) -> dict[str, Any]:
    """The ``system``/``init`` message (with ``schema_version``)."""
    return {
        "type": "system",
        "subtype": "init",
        "schema_version": SCHEMA_VERSION,
        "cwd": cwd,
        "session_id": session_id,
        "tools": tools,
        "mcp_servers": mcp_servers,
        "model": model,
        "permissionMode": claude_mode_name(permission_mode),
        "slash_commands": list(slash_commands),
        "apiKeySource": "none",
        "claude_code_version": CLAUDE_CODE_DIALECT,
        "skawld_version": skawld_version,
        "output_style": "default",
        "agents": agents,
        "skills": skills,
        "plugins": [dict(p) for p in plugins],
        "uuid": new_uuid(),
    }
