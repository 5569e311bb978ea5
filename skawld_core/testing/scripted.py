"""Deterministic providers for loop tests: `ScriptedProvider`, `FunctionProvider`
and the turn-building helpers `reply`, `text`, `thinking`, `tool_call`."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..messages import StopReason, Usage
from ..providers.base import (
    DEFAULT_CONTEXT_WINDOW,
    BaseProvider,
    MessageEnd,
    MessageStart,
    ProviderRequest,
    ProviderStreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolUseEnd,
    ToolUseInputDelta,
    ToolUseStart,
)

_ids = itertools.count(1)


class UnexpectedProviderCall(AssertionError):
    """The provider was asked for a turn the script does not have."""


@dataclass
class ScriptedTurn:
    """One scripted model turn.

    `hold` pauses the stream before `events[hold_at]` until the event is set;
    `raise_before` raises before the first event; `raise_after` raises after
    `events[raise_after]` was yielded; `match` restricts which request the turn
    answers (for parallel subagents).
    """

    events: list[ProviderStreamEvent]
    hold: asyncio.Event | None = None
    hold_at: int = 0
    raise_before: BaseException | None = None
    raise_after: tuple[int, BaseException] | None = None
    match: Callable[[ProviderRequest], bool] | None = None


def text(value: str, *, chunk: int | None = None) -> list[ProviderStreamEvent]:
    """Text deltas for `value`, split every `chunk` characters when given."""
    if not chunk:
        return [TextDelta(text=value)]
    return [TextDelta(text=value[i : i + chunk]) for i in range(0, len(value), chunk)]


def thinking(value: str, *, signature: str | None = None) -> list[ProviderStreamEvent]:
    """One thinking delta (with an optional signature)."""
    return [ThinkingDelta(text=value, signature=signature)]


def tool_call(
    name: str, input: dict[str, Any] | str, *, id: str | None = None, chunks: int = 1
) -> list[ProviderStreamEvent]:
    """A complete tool call. A `str` input is sent verbatim (for bad-JSON tests);
    `chunks` splits the JSON across that many deltas."""
    call_id = id or f"toolu_{next(_ids):04d}"
    raw = input if isinstance(input, str) else json.dumps(input)
    size = max(1, -(-len(raw) // max(1, chunks)))
    deltas: list[ProviderStreamEvent] = [
        ToolUseInputDelta(id=call_id, json_delta=raw[i : i + size]) for i in range(0, len(raw), size)
    ]
    return [ToolUseStart(id=call_id, name=name), *deltas, ToolUseEnd(id=call_id)]


Part = str | ProviderStreamEvent | Sequence[ProviderStreamEvent]
_EVENT_TYPES = (MessageStart, TextDelta, ThinkingDelta, ToolUseStart, ToolUseInputDelta, ToolUseEnd, MessageEnd)


def reply(
    *parts: Part,
    stop_reason: StopReason | None = None,
    usage: Usage | None = None,
    provider_metadata: dict[str, Any] | None = None,
    end: bool = True,
) -> ScriptedTurn:
    """A turn: `message_start`, the parts (a `str` is one text delta), `message_end`.

    The stop reason defaults to `tool_use` when the turn calls a tool, else
    `end_turn`; usage defaults to 10 input / 5 output tokens. `end=False`
    leaves out `message_end` (a stream that stops early).
    """
    events: list[ProviderStreamEvent] = [MessageStart()]
    for part in parts:
        if isinstance(part, str):
            events.append(TextDelta(text=part))
        elif isinstance(part, _EVENT_TYPES):
            events.append(part)
        else:
            events.extend(part)
    has_tools = any(isinstance(e, ToolUseStart) for e in events)
    if end:
        events.append(
            MessageEnd(
                stop_reason=stop_reason or ("tool_use" if has_tools else "end_turn"),
                usage=usage or Usage(input_tokens=10, output_tokens=5),
                provider_metadata=provider_metadata,
            )
        )
    return ScriptedTurn(events=events)


class ScriptedProvider(BaseProvider):
    """Replays one scripted turn per `stream()` call and records every request."""

    id = "scripted"

    def __init__(self, turns: Iterable[ScriptedTurn] = (), *, context_window: int = DEFAULT_CONTEXT_WINDOW) -> None:
        self._turns: list[ScriptedTurn] = list(turns)
        self._window = context_window
        self.requests: list[ProviderRequest] = []

    def context_window(self, model: str) -> int:
        return self._window

    def enqueue(
        self,
        turn: ScriptedTurn,
        *,
        hold: asyncio.Event | None = None,
        hold_at: int | None = None,
        raise_before: BaseException | None = None,
        match: Callable[[ProviderRequest], bool] | None = None,
    ) -> ScriptedTurn:
        """Queue a turn, optionally gated, failing, or keyed by a request predicate."""
        if hold is not None:
            turn.hold = hold
        if hold_at is not None:
            turn.hold_at = hold_at
        if raise_before is not None:
            turn.raise_before = raise_before
        if match is not None:
            turn.match = match
        self._turns.append(turn)
        return turn

    def fail(self, error: BaseException) -> None:
        """Queue a turn that raises `error` before any output."""
        self._turns.append(ScriptedTurn(events=[], raise_before=error))

    @property
    def remaining(self) -> int:
        return len(self._turns)

    def assert_complete(self) -> None:
        """Fail when scripted turns were never requested."""
        if self._turns:
            raise AssertionError(f"{len(self._turns)} scripted turn(s) were never requested")

    def _take(self, request: ProviderRequest) -> ScriptedTurn:
        for i, turn in enumerate(self._turns):
            if turn.match is None or turn.match(request):
                return self._turns.pop(i)
        raise UnexpectedProviderCall(f"no script enqueued for turn {len(self.requests)}")

    async def stream(self, request: ProviderRequest) -> AsyncGenerator[ProviderStreamEvent, None]:
        self.requests.append(request)
        turn = self._take(request)
        if turn.raise_before is not None:
            raise turn.raise_before
        for i, event in enumerate(turn.events):
            if turn.hold is not None and i == turn.hold_at:
                await turn.hold.wait()
            yield event
            if turn.raise_after is not None and turn.raise_after[0] == i:
                raise turn.raise_after[1]


TurnFunction = Callable[[ProviderRequest], Any]


class FunctionProvider(BaseProvider):
    """Answers each request with `fn(request)`: a `ScriptedTurn`, a list of
    stream events, a `str`, or an async iterator of events (sync or async fn)."""

    id = "function"

    def __init__(self, fn: TurnFunction, *, context_window: int = DEFAULT_CONTEXT_WINDOW) -> None:
        self._fn = fn
        self._window = context_window
        self.requests: list[ProviderRequest] = []

    def context_window(self, model: str) -> int:
        return self._window

    async def stream(self, request: ProviderRequest) -> AsyncGenerator[ProviderStreamEvent, None]:
        self.requests.append(request)
        out = self._fn(request)
        if asyncio.iscoroutine(out):
            out = await out
        if isinstance(out, str):
            out = reply(out)
        if isinstance(out, ScriptedTurn):
            out = out.events
        if isinstance(out, AsyncIterator):
            async for event in out:
                yield event
            return
        for event in out:
            yield event


__all__ = [
    "FunctionProvider",
    "ScriptedProvider",
    "ScriptedTurn",
    "UnexpectedProviderCall",
    "reply",
    "text",
    "thinking",
    "tool_call",
]
