"""A small HTTP/1.1 client on asyncio streams: the default carrier of `http_transport.HttpClient`.

Why it exists: the first request of ``skawld -p`` waits for whatever its HTTP client
imports, and ``httpx2`` brings ``httpcore2``, ``h11``, ``h2``, ``anyio``, ``idna`` and
``http.cookiejar`` (about 0.1 s of CPU, more than a third of the start-up budget), while a
model API call needs one POST with a JSON body and a streamed answer. This module speaks
exactly that over `asyncio.open_connection`, with the standard library only.

What it does: ``http`` and ``https`` (the TLS context comes from the caller, shared with
``httpx2``), one request per connection at a time, idle connections kept for reuse (a
reused connection that turns out closed is retried once on a fresh one, before any byte
of the answer), ``Content-Length``, chunked and read-until-close bodies, and the SDKs'
timeouts (``connect_timeout`` to connect; ``timeout`` for each write and each read).

What it leaves to ``httpx2`` (the caller decides, see `http_transport.HttpClient`):
proxies from the environment, and redirects (a 3xx answer is replayed through ``httpx2``,
which follows them as the SDKs do). Failures are `OSError`, `TimeoutError`,
`asyncio.IncompleteReadError` or `RemoteProtocolError`, which `errors_map` classifies as
retryable transport errors.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import sys
from collections.abc import AsyncIterator, Callable, Mapping
from urllib.parse import urlsplit

__all__ = ["AioHttp", "AioResponse", "RemoteProtocolError", "socket_options"]

_LIMIT = 1 << 20  # longest header block / chunk-size line accepted
_READ = 1 << 16
_SKIP_HEADERS = frozenset({"host", "content-length", "transfer-encoding", "connection"})


class RemoteProtocolError(Exception):
    """The server's answer is not valid HTTP/1.1 (a retryable transport error)."""


Key = tuple[str, str, int]


class _Connection:
    __slots__ = ("key", "reader", "writer")

    def __init__(self, key: Key, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.key = key
        self.reader = reader
        self.writer = writer

    @property
    def usable(self) -> bool:
        return not (self.reader.at_eof() or self.writer.is_closing())

    def close(self) -> None:
        self.writer.close()


class AioResponse:
    """One answer: ``status_code``, lower-cased ``headers``, and its body as a stream.

    The interface is the part of ``httpx2.Response`` the transport uses (`aiter_bytes`,
    `aread`, `aclose`, `is_closed`); `aclose` returns a fully read keep-alive connection to the pool.
    """

    def __init__(
        self, pool: AioHttp, conn: _Connection, status: int, headers: dict[str, str], no_body: bool, http10: bool
    ) -> None:
        self.status_code = status
        self.headers = headers
        self._pool = pool
        self._conn: _Connection | None = conn
        self._done = no_body
        self._chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        length = headers.get("content-length")
        self._remaining: int | None = None
        if not self._chunked and length is not None:
            try:
                self._remaining = int(length)
            except ValueError:
                raise RemoteProtocolError(f"bad Content-Length {length!r}") from None
            if self._remaining < 0:
                raise RemoteProtocolError(f"bad Content-Length {length!r}")
            self._done = self._done or self._remaining == 0
        connection = headers.get("connection", "").lower()
        keep_alive = "keep-alive" in connection if http10 else "close" not in connection
        self._reusable = (self._chunked or self._remaining is not None) and keep_alive

    @property
    def is_closed(self) -> bool:
        """True once `aclose` ran (the connection is released)."""
        return self._conn is None

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body, chunk by chunk as it arrives."""
        conn = self._conn
        if conn is None or self._done:
            return
        reader, timeout = conn.reader, self._pool.timeout
        while not self._done:
            async with asyncio.timeout(timeout):
                if self._chunked:
                    data = await self._next_chunk(reader)
                elif self._remaining is not None:
                    data = await reader.read(min(_READ, self._remaining))
                    if not data:
                        raise asyncio.IncompleteReadError(b"", self._remaining)
                    self._remaining -= len(data)
                    self._done = self._remaining == 0
                else:
                    data = await reader.read(_READ)
                    self._done = not data
            if data:
                yield data

    async def _next_chunk(self, reader: asyncio.StreamReader) -> bytes:
        line = await reader.readuntil(b"\n")
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise RemoteProtocolError(f"bad chunk size line {line[:40]!r}") from None
        if size == 0:
            while (await reader.readuntil(b"\n")).strip():  # trailers
                pass
            self._done = True
            return b""
        data = await reader.readexactly(size)
        await reader.readexactly(2)
        return data

    async def aread(self) -> bytes:
        """The whole (rest of the) body."""
        return b"".join([part async for part in self.aiter_bytes()])

    async def aclose(self) -> None:
        """Release the connection (back to the pool only when the body was read to its end)."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        if self._done and self._reusable and conn.usable:
            self._pool.release(conn)
        else:
            conn.close()


def socket_options() -> list[tuple[int, int, int | bool]]:
    """TCP keep-alive options, as the SDKs set them."""
    opts: list[tuple[int, int, int | bool]] = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, True)]
    keepintvl = getattr(socket, "TCP_KEEPINTVL", None)
    if keepintvl is not None:
        opts.append((socket.IPPROTO_TCP, keepintvl, 60))
    elif sys.platform == "darwin":  # pragma: no cover - macOS spelling
        opts.append((socket.IPPROTO_TCP, getattr(socket, "TCP_KEEPALIVE", 0x10), 60))
    keepcnt = getattr(socket, "TCP_KEEPCNT", None)
    if keepcnt is not None:
        opts.append((socket.IPPROTO_TCP, keepcnt, 5))
    keepidle = getattr(socket, "TCP_KEEPIDLE", None)
    if keepidle is not None:
        opts.append((socket.IPPROTO_TCP, keepidle, 60))
    return opts


class AioHttp:
    """A connection pool and the request function over it (one pool per event loop)."""

    def __init__(self, timeout: float, connect_timeout: float, tls: Callable[[], ssl.SSLContext]) -> None:
        self.timeout = timeout
        self.connect_timeout = connect_timeout
        self._tls = tls
        self._idle: dict[Key, list[_Connection]] = {}
        self._warming: dict[Key, asyncio.Future[None]] = {}

    async def request(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None = None
    ) -> AioResponse:
        """Send one request and return once the status line and headers arrived."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"unsupported URL {url!r}")
        port = parts.port or (443 if scheme == "https" else 80)
        key: Key = (scheme, parts.hostname, port)
        head = _request_head(method, parts.path or "/", parts.query, parts.netloc.rpartition("@")[2], headers, body)
        warming = self._warming.get(key)
        if warming is not None:  # a `preconnect` is under way: its connection is the one to use
            await asyncio.shield(warming)
        while True:
            conn, reused = self._idle_connection(key), True
            if conn is None:
                conn, reused = await self._connect(key), False
            try:
                return await self._exchange(conn, head, body, method)
            except (ConnectionError, asyncio.IncompleteReadError) as exc:
                conn.close()
                if not (reused and getattr(exc, "partial", b"") == b""):
                    raise
                # an idle keep-alive connection the server had closed: one fresh attempt
                # (never after a timeout: that server may still be working on the request)
            except BaseException:
                conn.close()
                raise

    def _idle_connection(self, key: Key) -> _Connection | None:
        idle = self._idle.get(key)
        while idle:
            conn = idle.pop()
            if conn.usable:
                return conn
            conn.close()
        return None

    async def _connect(self, key: Key) -> _Connection:
        scheme, host, port = key
        # the context may still be loading its CA bundle (`http_transport.prewarm`): wait in
        # a thread, not on the event loop (an app's keys keep flowing meanwhile)
        tls = await asyncio.to_thread(self._tls) if scheme == "https" else None
        async with asyncio.timeout(self.connect_timeout):
            reader, writer = await asyncio.open_connection(
                host, port, ssl=tls, server_hostname=host if tls else None, limit=_LIMIT
            )
        sock = writer.get_extra_info("socket")
        if sock is not None:
            for level, option, value in socket_options():
                try:
                    sock.setsockopt(level, option, value)
                except OSError:  # pragma: no cover - an option this kernel lacks
                    pass
        return _Connection(key, reader, writer)

    async def _exchange(self, conn: _Connection, head: bytes, body: bytes | None, method: str) -> AioResponse:
        async with asyncio.timeout(self.timeout):
            conn.writer.write(head + body if body else head)
            await conn.writer.drain()
        while True:
            async with asyncio.timeout(self.timeout):
                raw = await conn.reader.readuntil(b"\r\n\r\n")
            status, headers, http10 = _parse_head(raw)
            if status >= 200 or status == 101:
                break  # 1xx interim answers are skipped
        no_body = method == "HEAD" or status in (204, 304) or status < 200
        return AioResponse(self, conn, status, headers, no_body, http10)

    async def preconnect(self, url: str) -> None:
        """Open (TCP, and TLS for ``https``) one connection to ``url``'s host and keep it idle,
        so the first request does not wait for the handshakes; failures are the first
        request's to report, not this warm-up's."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or not parts.hostname:
            return
        key: Key = (scheme, parts.hostname, parts.port or (443 if scheme == "https" else 80))
        if self._idle.get(key) or key in self._warming:
            return
        done = asyncio.get_running_loop().create_future()
        self._warming[key] = done
        try:
            self.release(await self._connect(key))
        except (OSError, ssl.SSLError):
            pass
        finally:
            del self._warming[key]
            done.set_result(None)

    def release(self, conn: _Connection) -> None:
        """Keep a connection whose answer was read completely for the next request."""
        self._idle.setdefault(conn.key, []).append(conn)

    async def aclose(self) -> None:
        """Close every idle connection."""
        idle, self._idle = self._idle, {}
        for conns in idle.values():
            for conn in conns:
                conn.close()


def _request_head(
    method: str, path: str, query: str, host: str, headers: Mapping[str, str], body: bytes | None
) -> bytes:
    target = f"{path}?{query}" if query else path
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host}"]
    for name, value in headers.items():
        if "\r" in name or "\n" in name or "\r" in value or "\n" in value:
            raise ValueError(f"HTTP header {name!r} contains a line break")
        if name.lower() not in _SKIP_HEADERS:
            lines.append(f"{name}: {value}")
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _parse_head(raw: bytes) -> tuple[int, dict[str, str], bool]:
    lines = raw.decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    code = rest[:3]
    if not version.startswith("HTTP/") or not code.isdigit():
        raise RemoteProtocolError(f"not an HTTP response: {lines[0][:80]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise RemoteProtocolError(f"bad header line {line[:80]!r}")
        name, value = name.strip().lower(), value.strip()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return int(code), headers, version == "HTTP/1.0"
