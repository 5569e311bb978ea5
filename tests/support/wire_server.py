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
exact hand-made frames. An endpoint whose queue is empty answers 400 "wire server: no
scripted reply", unless ``default`` is set.

Modules: `wire_script` (turns, faults, builders), `wire_formats` (the three SSE
renderers), this one (the threaded HTTP server). Everything is re-exported here.
Run ``python -m tests.support.wire_server`` for a manual server answering every request.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .wire_formats import (
    _ANTHROPIC_ERROR_TYPES,
    anthropic_error_event,
    chat_error_event,
    render_anthropic,
    render_chat,
    render_responses,
    responses_error_event,
)
from .wire_profiles import OPENAI, PROFILES, ChatProfile
from .wire_script import (
    HttpError,
    RawStream,
    RecordedRequest,
    Redacted,
    Refusal,
    Reply,
    ReplySource,
    Text,
    Thinking,
    ToolCall,
    Turn,
    WireUsage,
    http_error,
    raw_sse,
    redacted_thinking,
    refusal,
    text,
    thinking,
    tool_call,
    turn,
)

__all__ = [
    "PROFILES",
    "ChatProfile",
    "Endpoint",
    "Reply",
    "ReplySource",
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


# --------------------------------------------------------------------------- server


class Endpoint:
    """The script (a FIFO of replies) and request log of one API path."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._queue: deque[ReplySource] = deque()
        self._lock = threading.Condition()
        self.requests: list[RecordedRequest] = []
        self.default: ReplySource | None = None  # served when the queue is empty
        self.profile: ChatProfile = OPENAI  # chat only: a compatible server's differences

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

    def do_GET(self) -> None:
        owner = self.server.owner
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        rec = RecordedRequest(path, headers, None, b"")
        with owner._lock:
            owner.requests.append(rec)
        profile = owner.chat.profile
        if path.endswith("/models"):
            self._json(200, {"object": "list", "data": profile.models}, {})
        elif path in profile.get_routes:
            self._json(200, profile.get_routes[path], {})
        else:
            self._json(404, {"error": {"message": f"wire server: unknown path {path}", "type": "not_found"}}, {})

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
        profile = owner.chat.profile
        if ep is None and path in profile.post_routes:
            answer = profile.post_routes[path]
            self._json(200, answer(body) if callable(answer) else answer, {})
            return
        if ep is not None and ep.kind == "chat":
            rejected = profile.request_error(body)
            if rejected is not None:
                with ep._lock:
                    ep.requests.append(rec)
                    ep._lock.notify_all()
                self._json(rejected[0], rejected[1], {})
                return
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
            self._stream(ep, reply, model, body)
        except (_Reset, OSError):
            self.close_connection = True
        finally:
            if isinstance(reply, Turn):
                reply.ended_at = time.monotonic()

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

    def _stream(self, ep: Endpoint, t: Turn, model: str, body: Any) -> None:
        kind = ep.kind
        if kind == "chat":
            asked = isinstance(body, dict) and bool((body.get("stream_options") or {}).get("include_usage"))
            rendered = render_chat(t, model, ep.profile, asked)
        else:
            rendered = (render_anthropic if kind == "anthropic" else render_responses)(t, model)
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
                t.frames_sent = n + 1
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
