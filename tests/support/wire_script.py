"""The scripted-turn model of the wire server: vendor-neutral turns, faults, builders.

See `tests.support.wire_server` for the server and the usage example.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class RecordedRequest:
    """One request as received: path, lower-cased headers, parsed JSON body."""

    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


# --------------------------------------------------------------------------- script model


def _split(s: str, chunks: int | None, chunk_size: int | None) -> list[str]:
    if chunk_size:
        return [s[i : i + chunk_size] for i in range(0, len(s), chunk_size)] or [""]
    n = max(1, chunks or 1)
    step = max(1, -(-len(s) // n))
    return [s[i : i + step] for i in range(0, len(s), step)] or [""]


@dataclass
class Text:
    """Assistant text, streamed as ``parts`` (one delta each)."""

    parts: list[str]


@dataclass
class Thinking:
    """Thinking / reasoning-summary text plus an (Anthropic) signature."""

    parts: list[str]
    signature: str | None = "sig"


@dataclass
class Redacted:
    """An Anthropic ``redacted_thinking`` block (other formats skip it)."""

    data: str


@dataclass
class Refusal:
    """A refusal (OpenAI ``refusal`` deltas; Anthropic renders it as text)."""

    parts: list[str]


@dataclass
class ToolCall:
    """A tool call whose input JSON is sent in ``parts`` (split across many deltas)."""

    id: str
    name: str
    parts: list[str]
    late_id: bool = False  # chat only: first argument fragment arrives before id/name


Part = Text | Thinking | Redacted | Refusal | ToolCall


@dataclass
class WireUsage:
    """Token counts. ``input_tokens`` excludes cache tokens (Anthropic wire meaning);
    OpenAI renders ``prompt_tokens = input + cache_read + cache_creation``."""

    input_tokens: int = 10
    output_tokens: int = 42
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0


@dataclass
class Turn:
    """One scripted streamed reply (vendor-neutral)."""

    parts: list[Part]
    stop: str | None = None  # anthropic vocabulary; None = tool_use if tool calls else end_turn
    usage: WireUsage = field(default_factory=WireUsage)
    response_id: str | None = None  # Responses / Anthropic message id; auto when None
    first_byte_delay: float = 0.0
    frame_delay: float = 0.0
    reset_after: int | None = None
    truncate_after: int | None = None
    truncated: bool = False  # drop the terminal frames
    error_after: int | None = None
    error_type: str = "overloaded_error"
    error_message: str = "Overloaded"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    gate_after: int | None = None  # send this many frames, then wait for `gate`
    gate: threading.Event = field(default_factory=threading.Event)
    # Filled in by the server: frames written so far, and `time.monotonic()` when the stream
    # ended (all sent, or the client went away), for "stopped within" assertions.
    frames_sent: int = 0
    ended_at: float | None = None

    @property
    def stop_reason(self) -> str:
        if self.stop is not None:
            return self.stop
        return "tool_use" if any(isinstance(p, ToolCall) for p in self.parts) else "end_turn"


@dataclass
class HttpError:
    """A non-streamed JSON error reply."""

    status: int
    message: str = "error"
    err_type: str | None = None
    code: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # overrides the rendered body when set
    first_byte_delay: float = 0.0


@dataclass
class RawStream:
    """Exact SSE bytes, sent as a 200 ``text/event-stream`` (for hand-made wire cases)."""

    frames: list[bytes]
    headers: dict[str, str] = field(default_factory=dict)
    first_byte_delay: float = 0.0


Reply = Turn | HttpError | RawStream
ReplySource = Reply | Callable[[RecordedRequest], Reply]
"""A reply, or a function of the request that returns one (dynamic replies)."""


def text(value: str | list[str], *, chunks: int | None = None, chunk_size: int | None = None) -> Text:
    """Text streamed as the given list of deltas, or ``value`` split into ``chunks``/``chunk_size``."""
    return Text(list(value) if isinstance(value, list) else _split(value, chunks, chunk_size))


def thinking(value: str | list[str], *, signature: str | None = "sig", chunks: int | None = None) -> Thinking:
    """Thinking text with its signature."""
    return Thinking(list(value) if isinstance(value, list) else _split(value, chunks, None), signature)


def redacted_thinking(data: str) -> Redacted:
    """An Anthropic redacted-thinking block."""
    return Redacted(data)


def refusal(value: str | list[str]) -> Refusal:
    """A refusal message."""
    return Refusal(list(value) if isinstance(value, list) else [value])


def tool_call(
    name: str,
    input: Any = None,
    *,
    id: str = "call_1",
    raw_json: str | None = None,
    chunk_size: int | None = 3,
    parts: list[str] | None = None,
    late_id: bool = False,
) -> ToolCall:
    """A tool call; the JSON input is split into ``chunk_size``-character deltas (or ``parts``)."""
    if parts is None:
        src = raw_json if raw_json is not None else json.dumps({} if input is None else input)
        parts = _split(src, None, chunk_size)
    return ToolCall(id, name, parts, late_id)


def raw_sse(*frames: tuple[str | None, Any] | bytes) -> RawStream:
    """A hand-made stream: ``(event_name_or_None, data)`` pairs (data is JSON-encoded unless
    a str) or ready-made frame bytes."""
    return RawStream([f if isinstance(f, bytes) else _sse(f[0], f[1]) for f in frames])


def turn(*parts: Part, **kwargs: Any) -> Turn:
    """A scripted turn: ``turn(text("hi"), tool_call(...), stop="end_turn", usage=WireUsage(...))``."""
    return Turn(list(parts), **kwargs)


def http_error(
    status: int,
    message: str | None = None,
    *,
    err_type: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
    body: Any = None,
) -> HttpError:
    """A JSON error reply with ``status`` and optional headers (e.g. ``retry-after``)."""
    return HttpError(status, message or f"scripted error {status}", err_type, code, dict(headers or {}), body)


def _sse(event: str | None, data: Any) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()
