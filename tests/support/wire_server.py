"""A scripted, fault-injecting model API server for tests (stdlib only).

It speaks three wire formats on 127.0.0.1 (ephemeral port), from a background
thread, so sync tests, async tests and subprocess clients can all use it:

- Anthropic Messages SSE  ``POST /v1/messages``          (``srv.anthropic``)
- OpenAI Chat Completions ``POST /v1/chat/completions``  (``srv.chat``)
- OpenAI Responses        ``POST /v1/responses``         (``srv.responses``)

Usage::

    from tests.support.wire_server import WireServer, turn, text, thinking, tool_call, http_error

    with WireServer() as srv:
        srv.anthropic.enqueue(turn(text("Hi there"), tool_call("Bash", {"cmd": "ls"}, id="tu1")))
        srv.anthropic.enqueue(http_error(429, headers={"retry-after-ms": "10"}), turn(text("ok")))
        AnthropicProvider(api_key="sk-test", base_url=srv.url)          # SDK appends /v1/...
        OpenAIChatProvider(api_key="sk-test", base_url=srv.openai_url)  # srv.url + "/v1"
        srv.anthropic.requests[0].body["messages"]                       # what the client sent

A `Turn` is vendor-neutral (text / thinking / redacted thinking / refusal / tool calls,
stop reason in Anthropic vocabulary, usage with cache tokens) and is rendered into the
endpoint's own SSE dialect. Faults on a turn: ``first_byte_delay``, ``frame_delay``,
``reset_after`` (TCP RST after N frames), ``truncate_after`` / ``truncated`` (clean end
without the final event), ``error_after`` (in-stream error event after N frames),
``gate_after`` (send N frames, then hold until ``turn.gate.set()``, for deterministic
mid-stream cancel/interrupt tests). ``ep.wait_for_requests(n)`` blocks until n requests
arrived; a reply may also be a callable ``(RecordedRequest) -> reply``.
`http_error(...)` is a plain JSON error reply with optional headers; `raw_sse(...)` sends
exact hand-made frames. An endpoint whose
queue is empty answers 400 "wire server: no scripted reply", unless ``default`` is set.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Endpoint",
    "HttpError",
    "RecordedRequest",
    "RawStream",
    "Redacted",
    "Refusal",
    "Text",
    "Thinking",
    "ToolCall",
    "Turn",
    "WireServer",
    "WireUsage",
    "http_error",
    "raw_sse",
    "redacted_thinking",
    "refusal",
    "text",
    "thinking",
    "tool_call",
    "turn",
]


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
ReplySource = Reply | Callable[["RecordedRequest"], Reply]
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


# --------------------------------------------------------------------------- renderers


def _sse(event: str | None, data: Any) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {payload}\n\n".encode()


_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass
class Rendered:
    """Frames of a turn, with how many trailing frames are the terminal ones."""

    frames: list[bytes]
    terminal: int


def render_anthropic(t: Turn, model: str) -> Rendered:
    """Anthropic Messages SSE frames (every frame has an ``event:`` line)."""
    u = t.usage
    msg_id = t.response_id or "msg_01"
    f: list[bytes] = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": model,
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": u.input_tokens,
                        "cache_creation_input_tokens": u.cache_creation_tokens,
                        "cache_read_input_tokens": u.cache_read_tokens,
                        "output_tokens": 1,
                    },
                },
            },
        )
    ]
    for i, p in enumerate(t.parts):

        def delta(d: dict[str, Any], i: int = i) -> bytes:
            return _sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})

        if isinstance(p, (Text, Refusal)):
            f.append(
                _sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                )
            )
            f.extend(delta({"type": "text_delta", "text": s}) for s in p.parts)
        elif isinstance(p, Thinking):
            f.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                    },
                )
            )
            f.extend(delta({"type": "thinking_delta", "thinking": s}) for s in p.parts)
            if p.signature is not None:
                f.append(delta({"type": "signature_delta", "signature": p.signature}))
        elif isinstance(p, Redacted):
            f.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "redacted_thinking", "data": p.data},
                    },
                )
            )
        else:
            f.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "tool_use", "id": p.id, "name": p.name, "input": {}},
                    },
                )
            )
            f.append(delta({"type": "input_json_delta", "partial_json": ""}))
            f.extend(delta({"type": "input_json_delta", "partial_json": s}) for s in p.parts)
        f.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    f.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": t.stop_reason, "stop_sequence": None},
                "usage": {
                    "output_tokens": u.output_tokens,
                    "input_tokens": u.input_tokens,
                    "cache_creation_input_tokens": u.cache_creation_tokens,
                    "cache_read_input_tokens": u.cache_read_tokens,
                },
            },
        )
    )
    f.append(_sse("message_stop", {"type": "message_stop"}))
    return Rendered(f, 2)


def anthropic_error_event(t: Turn) -> bytes:
    return _sse("error", {"type": "error", "error": {"type": t.error_type, "message": t.error_message}})


_CHAT_FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "refusal": "content_filter"}


def render_chat(t: Turn, model: str) -> Rendered:
    """Chat Completions chunks (bare ``data:`` frames, ``[DONE]`` at the end)."""
    cid = t.response_id or "chatcmpl-1"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _sse(
            None,
            {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
                "usage": None,
            },
        )

    f = [chunk({"role": "assistant", "content": "", "refusal": None})]
    tool_index = 0
    for p in t.parts:
        if isinstance(p, Text):
            f.extend(chunk({"content": s}) for s in p.parts)
        elif isinstance(p, Refusal):
            f.extend(chunk({"refusal": s}) for s in p.parts)
        elif isinstance(p, ToolCall):
            head = {"index": tool_index, "id": p.id, "type": "function", "function": {"name": p.name, "arguments": ""}}
            pieces = list(p.parts)
            if p.late_id and pieces:
                f.append(chunk({"tool_calls": [{"index": tool_index, "function": {"arguments": pieces.pop(0)}}]}))
            f.append(chunk({"tool_calls": [head]}))
            f.extend(chunk({"tool_calls": [{"index": tool_index, "function": {"arguments": s}}]}) for s in pieces)
            tool_index += 1
    u = t.usage
    prompt = u.input_tokens + u.cache_read_tokens + u.cache_creation_tokens
    f.append(chunk({}, _CHAT_FINISH.get(t.stop_reason, t.stop_reason)))
    f.append(
        _sse(
            None,
            {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": model,
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": u.output_tokens,
                    "total_tokens": prompt + u.output_tokens,
                    "prompt_tokens_details": {"cached_tokens": u.cache_read_tokens},
                    "completion_tokens_details": {"reasoning_tokens": 0},
                },
            },
        )
    )
    f.append(_sse(None, "[DONE]"))
    return Rendered(f, 3)


def chat_error_event(t: Turn) -> bytes:
    return _sse(None, {"error": {"message": t.error_message, "type": t.error_type, "param": None, "code": None}})


def render_responses(t: Turn, model: str) -> Rendered:
    """Responses API SSE frames (``event:`` lines, ends with ``response.completed``/``incomplete``)."""
    rid = t.response_id or "resp_1"
    seq = 0
    f: list[bytes] = []

    def ev(kind: str, **data: Any) -> None:
        nonlocal seq
        f.append(_sse(kind, {"type": kind, "sequence_number": seq, **data}))
        seq += 1

    def response(status: str, output: list[Any], usage: Any = None, incomplete: Any = None) -> dict[str, Any]:
        return {
            "id": rid,
            "object": "response",
            "created_at": 1700000000,
            "model": model,
            "status": status,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "incomplete_details": incomplete,
            "error": None,
            "usage": usage,
        }

    ev("response.created", response=response("in_progress", []))
    ev("response.in_progress", response=response("in_progress", []))
    output: list[dict[str, Any]] = []
    for oi, p in enumerate(t.parts):
        if isinstance(p, Thinking):
            item_id = f"rs_{oi}"
            ev("response.output_item.added", output_index=oi, item={"id": item_id, "type": "reasoning", "summary": []})
            ev(
                "response.reasoning_summary_part.added",
                item_id=item_id,
                output_index=oi,
                summary_index=0,
                part={"type": "summary_text", "text": ""},
            )
            for s in p.parts:
                ev("response.reasoning_summary_text.delta", item_id=item_id, output_index=oi, summary_index=0, delta=s)
            full = "".join(p.parts)
            ev("response.reasoning_summary_text.done", item_id=item_id, output_index=oi, summary_index=0, text=full)
            item = {"id": item_id, "type": "reasoning", "summary": [{"type": "summary_text", "text": full}]}
            ev("response.output_item.done", output_index=oi, item=item)
            output.append(item)
        elif isinstance(p, (Text, Refusal)):
            item_id = f"msg_{oi}"
            is_refusal = isinstance(p, Refusal)
            ev(
                "response.output_item.added",
                output_index=oi,
                item={"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []},
            )
            part0 = (
                {"type": "refusal", "refusal": ""}
                if is_refusal
                else {"type": "output_text", "text": "", "annotations": []}
            )
            ev("response.content_part.added", item_id=item_id, output_index=oi, content_index=0, part=part0)
            kind = "response.refusal.delta" if is_refusal else "response.output_text.delta"
            for s in p.parts:
                extra = {} if is_refusal else {"logprobs": []}
                ev(kind, item_id=item_id, output_index=oi, content_index=0, delta=s, **extra)
            full = "".join(p.parts)
            done_part = (
                {"type": "refusal", "refusal": full}
                if is_refusal
                else {"type": "output_text", "text": full, "annotations": []}
            )
            ev("response.content_part.done", item_id=item_id, output_index=oi, content_index=0, part=done_part)
            item = {
                "id": item_id,
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [done_part],
            }
            ev("response.output_item.done", output_index=oi, item=item)
            output.append(item)
        elif isinstance(p, ToolCall):
            item_id = f"fc_{oi}"
            base = {"id": item_id, "type": "function_call", "call_id": p.id, "name": p.name}
            ev("response.output_item.added", output_index=oi, item={**base, "arguments": "", "status": "in_progress"})
            for s in p.parts:
                ev("response.function_call_arguments.delta", item_id=item_id, output_index=oi, delta=s)
            args = "".join(p.parts)
            ev("response.function_call_arguments.done", item_id=item_id, output_index=oi, arguments=args)
            item = {**base, "arguments": args, "status": "completed"}
            ev("response.output_item.done", output_index=oi, item=item)
            output.append(item)
    u = t.usage
    prompt = u.input_tokens + u.cache_read_tokens + u.cache_creation_tokens
    usage = {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": u.cache_read_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": prompt + u.output_tokens,
    }
    if t.stop_reason == "max_tokens":
        ev("response.incomplete", response=response("incomplete", output, usage, {"reason": "max_output_tokens"}))
    elif t.stop_reason == "refusal":
        ev("response.incomplete", response=response("incomplete", output, usage, {"reason": "content_filter"}))
    else:
        ev("response.completed", response=response("completed", output, usage))
    return Rendered(f, 1)


def responses_error_event(t: Turn) -> bytes:
    return _sse(
        "error",
        {"type": "error", "code": t.error_type, "message": t.error_message, "param": None, "sequence_number": 0},
    )


# --------------------------------------------------------------------------- server


@dataclass
class RecordedRequest:
    """One request as received: path, lower-cased headers, parsed JSON body."""

    path: str
    headers: dict[str, str]
    body: Any
    raw: bytes


class Endpoint:
    """The script (a FIFO of replies) and request log of one API path."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._queue: deque[ReplySource] = deque()
        self._lock = threading.Condition()
        self.requests: list[RecordedRequest] = []
        self.default: ReplySource | None = None  # served when the queue is empty

    def enqueue(self, *replies: ReplySource) -> Endpoint:
        """Append replies (turns, http errors, raw streams, or callables of the request),
        served one per request in order."""
        with self._lock:
            self._queue.extend(replies)
        return self

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> list[RecordedRequest]:
        """Block until at least ``count`` requests arrived (raises `TimeoutError`).
        From async code: ``await asyncio.to_thread(ep.wait_for_requests, n)``."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.requests) >= count, timeout):
                raise TimeoutError(f"{self.kind}: {len(self.requests)} of {count} requests after {timeout}s")
            return list(self.requests)

    def pending(self) -> int:
        """How many scripted replies are still unserved."""
        with self._lock:
            return len(self._queue)

    def clear(self) -> None:
        """Drop unserved replies and the request log."""
        with self._lock:
            self._queue.clear()
            self.requests.clear()

    @property
    def last_body(self) -> Any:
        """The JSON body of the most recent request."""
        return self.requests[-1].body

    def _next(self, req: RecordedRequest) -> Reply | None:
        with self._lock:
            self.requests.append(req)
            self._lock.notify_all()
            source = self._queue.popleft() if self._queue else self.default
        if source is not None and not isinstance(source, (Turn, HttpError, RawStream)):
            return source(req)
        return source


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, owner: WireServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients closing streams early cause expected ConnectionReset/BrokenPipe noise.
        pass


class _Reset(Exception):
    pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        path = self.path.split("?", 1)[0]
        ep = owner.route(path)
        headers = {k.lower(): v for k, v in self.headers.items()}
        rec = RecordedRequest(path, headers, body, raw)
        with owner._lock:
            owner.requests.append(rec)
        if ep is None:
            self._json(404, {"error": {"message": f"wire server: unknown path {path}", "type": "not_found"}}, {})
            return
        reply = ep._next(rec)
        if reply is None:
            self._error(ep, HttpError(400, "wire server: no scripted reply", "invalid_request_error"))
            return
        delay = reply.first_byte_delay
        if delay and owner._stopping.wait(delay):
            return
        if isinstance(reply, HttpError):
            self._error(ep, reply)
            return
        model = str(body.get("model", "model")) if isinstance(body, dict) else "model"
        try:
            if isinstance(reply, RawStream):
                self._send_frames(reply.frames, reply.headers)
                return
            self._stream(ep.kind, reply, model)
        except (_Reset, OSError):
            self.close_connection = True

    def _json(self, status: int, payload: Any, headers: dict[str, str]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", "req_wire")
        self.send_header("x-request-id", "req_wire")
        self.end_headers()
        self.wfile.write(data)

    def _error(self, ep: Endpoint, e: HttpError) -> None:
        if e.body is not None:
            payload = e.body
        elif ep.kind == "anthropic":
            payload = {
                "type": "error",
                "error": {
                    "type": e.err_type or _ANTHROPIC_ERROR_TYPES.get(e.status, "api_error"),
                    "message": e.message,
                },
                "request_id": "req_wire",
            }
        else:
            etype = e.err_type or ("invalid_request_error" if e.status < 500 else "server_error")
            payload = {"error": {"message": e.message, "type": etype, "param": None, "code": e.code}}
        self._json(e.status, payload, e.headers)

    def _stream(self, kind: str, t: Turn, model: str) -> None:
        render = {"anthropic": render_anthropic, "chat": render_chat, "responses": render_responses}[kind]
        rendered = render(t, model)
        frames = rendered.frames
        if t.truncated:
            frames = frames[: len(frames) - rendered.terminal]
        if t.truncate_after is not None:
            frames = frames[: t.truncate_after]
        error_frame = {
            "anthropic": anthropic_error_event,
            "chat": chat_error_event,
            "responses": responses_error_event,
        }[kind]
        if t.error_after is not None:
            frames = [*frames[: t.error_after], error_frame(t)]
        self.send_response(t.status)
        for k, v in t.headers.items():
            self.send_header(k, v)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", "req_wire")
        self.send_header("x-request-id", "req_wire")
        self.end_headers()
        self.wfile.flush()
        stopping = self.server.owner._stopping
        buf: list[bytes] = []
        size = 0
        for n, frame in enumerate(frames):
            if t.gate_after is not None and n == t.gate_after:
                self._flush(buf)
                buf, size = [], 0
                while not t.gate.wait(0.05):
                    if stopping.is_set():
                        raise _Reset()
            if t.reset_after is not None and n == t.reset_after:
                self._flush(buf)
                self._reset()
            if t.frame_delay:
                buf.append(frame)
                self._flush(buf)
                buf, size = [], 0
                if stopping.wait(t.frame_delay):
                    raise _Reset()
                continue
            buf.append(frame)
            size += len(frame)
            if size >= 32768:
                self._flush(buf)
                buf, size = [], 0
        if t.reset_after is not None and t.reset_after >= len(frames):
            self._flush(buf)
            self._reset()
        self._flush(buf)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _send_frames(self, frames: list[bytes], headers: dict[str, str]) -> None:
        self.send_response(200)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self._flush(list(frames))
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _flush(self, buf: list[bytes]) -> None:
        if not buf:
            return
        data = b"".join(buf)
        buf.clear()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _reset(self) -> None:
        """Abort the TCP connection with an RST (connection reset by peer)."""
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        with contextlib.suppress(OSError):
            self.connection.close()
        raise _Reset()


class WireServer:
    """A scripted Anthropic / OpenAI Chat / OpenAI Responses server in a daemon thread.

    Use as a context manager (or `start()` / `stop()`). ``url`` is ``http://127.0.0.1:PORT``
    (Anthropic ``base_url``); ``openai_url`` is ``url + "/v1"`` (OpenAI ``base_url``).
    """

    def __init__(self) -> None:
        self.anthropic = Endpoint("anthropic")
        self.chat = Endpoint("chat")
        self.responses = Endpoint("responses")
        self.requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def route(self, path: str) -> Endpoint | None:
        """The endpoint serving ``path`` (any prefix before ``/v1/...`` is accepted)."""
        if path.endswith("/v1/messages"):
            return self.anthropic
        if path.endswith("/chat/completions"):
            return self.chat
        if path.endswith("/responses"):
            return self.responses
        return None

    def start(self) -> WireServer:
        """Bind an ephemeral port on 127.0.0.1 and serve in a daemon thread."""
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; in-flight delayed replies are cut short."""
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None

    @property
    def port(self) -> int:
        assert self._server is not None, "WireServer not started"
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_url(self) -> str:
        return f"{self.url}/v1"

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":  # pragma: no cover - manual smoke run
    with WireServer() as srv:
        srv.anthropic.default = turn(text("hello from the wire server"))
        srv.chat.default = turn(text("hello from the wire server"))
        srv.responses.default = turn(text("hello from the wire server"))
        print(srv.url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
