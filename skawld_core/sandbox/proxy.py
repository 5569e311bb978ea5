"""The network proxy of a session's sandbox: HTTP (absolute URLs and CONNECT for
HTTPS) and SOCKS5 on one listener, letting through only the host names its
`DomainPolicy` allows.

It runs in skawld's event loop, outside the sandbox, on a Unix socket; inside,
the session's namespace holder forwards `127.0.0.1:PORT` to it (`session_net`),
exposed as `HTTP_PROXY` / `HTTPS_PROXY` / `ALL_PROXY`. The requested name is
put in its canonical form (`canonical_host`: a name without one is refused,
never asked about), checked, and connected to in that form, never an address it
resolves to; SOCKS5 requests by address are IP literals (allowed only when
listed). A request naming another host inside the connection (a Host header, a
tunnel's first request or TLS server name) is refused (`fronting`). `resolve` maps names to the addresses to
connect to (a `curl --resolve` for tests); refusals are kept for the Bash result.

An unlisted name is asked about when the session has an asker (`NetworkAsk`: the
app's dialog, the plain mode's prompt): the connection is held, without blocking
the event loop, until the answer or `ask_timeout` (no answer refuses). A yes
opens the name for the rest of the session; concurrent requests for one name
share one question; a no is not asked again until the call's refusals are
taken (`take_refused`). Denied names are never asked about.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import struct
from collections.abc import Awaitable, Callable, Mapping
from typing import Literal

from .domains import DomainPolicy, HostError, canonical_host, host_problem, shown_host
from .fronting import first_bytes_name_problem, host_header_problem, looks_like_http

__all__ = ["DomainProxy", "NetworkAsk", "Refusal", "refusal_text"]

NetworkAsk = Callable[[str], Awaitable[bool]]
"""Asks the user whether sandboxed commands may reach a host name (True: yes)."""

Refusal = Literal["deny", "unlisted", "declined", "unanswered", "invalid", "fronted"]
"""Why a host was refused: denied, not listed (nobody to ask), the user said no, no answer in time,
not a host name at all (`host_problem`), a request through it named another host (`fronting`)."""

_HEADER_LIMIT = 64 * 1024
_SOCKS_NOT_ALLOWED = 0x02
_SOCKS_UNREACHABLE = 0x04


def refusal_text(host: str, verdict: Refusal) -> str:
    """Why the proxy refused `host`, naming the setting."""
    if verdict == "invalid":
        return f"network access to {shown_host(host)}: {host_problem(host) or 'not a host name'}"
    host = shown_host(host)
    if verdict == "fronted":
        return f"a request through {host}: its Host header or TLS server name named another host (domain fronting)"
    if verdict == "deny":
        return f"network access to {host} is denied (sandbox.network.deniedDomains)"
    if verdict == "declined":
        return f"network access to {host}: the user said no (sandbox.network.allowedDomains does not list it)"
    if verdict == "unanswered":
        return f"network access to {host}: the question was not answered in time (sandbox.network.allowedDomains)"
    return f"network access to {host} is not allowed (add it to sandbox.network.allowedDomains)"


class DomainProxy:
    """One listener on a Unix socket path (`listen`), closed by `close`; `domains`
    is asked on each request (rules added during the session count at once), and
    `asker` for the session's `NetworkAsk` (None: unlisted names are refused)."""

    def __init__(
        self,
        domains: Callable[[], DomainPolicy],
        resolve: Mapping[str, str] | None = None,
        *,
        asker: Callable[[], NetworkAsk | None] = lambda: None,
        ask_timeout: float = 120.0,
    ) -> None:
        self.domains = domains
        self.resolve = dict(resolve or {})
        self.asker = asker
        self.ask_timeout = ask_timeout
        self.refused: dict[str, Refusal] = {}
        self.allowed_by_user: set[str] = set()  # "yes" answers, for the rest of the session
        self._questions: dict[str, asyncio.Task[bool]] = {}
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def listen(self, path: str) -> None:
        """Bind `path` now and serve it from the running event loop."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path)
        sock.listen(64)
        task = asyncio.get_running_loop().create_task(self._serve(sock))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, sock: socket.socket) -> None:
        self._server = await asyncio.start_unix_server(self._client, sock=sock)

    def take_refused(self) -> dict[str, Refusal]:
        """The hosts refused since the last call."""
        refused, self.refused = self.refused, {}
        return refused

    def close(self) -> None:
        """Stop listening (open tunnels end with their peers)."""
        if self._server is not None:
            self._server.close()
        for task in [*self._tasks, *self._questions.values()]:
            task.cancel()

    # -- one client ----------------------------------------------------------

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            first = await reader.readexactly(1)
            if first == b"\x05":
                await self._socks(reader, writer)
            else:
                await self._http(first, reader, writer)
        except (OSError, asyncio.IncompleteReadError, ValueError, asyncio.LimitOverrunError):
            pass
        finally:
            with contextlib.suppress(OSError):
                writer.close()

    async def _check(self, requested: str) -> tuple[str, Refusal | None]:
        """The canonical name, and None when it may be reached; else why not (recorded for the Bash result)."""
        try:
            host = canonical_host(requested)  # one answer per name, whatever its spelling
        except HostError:
            self.refused[requested] = "invalid"  # never asked about
            return requested, "invalid"
        verdict = self.domains().verdict(host)
        if verdict == "allow" or (verdict == "unlisted" and host in self.allowed_by_user):
            return host, None
        refusal: Refusal | None = verdict
        if verdict == "unlisted":
            earlier = self.refused.get(host)  # a no (or silence) holds until the call's end
            refusal = earlier if earlier in ("declined", "unanswered") else await self._ask(host)
        if refusal is not None:
            self.refused[host] = refusal
        return host, refusal

    async def _ask(self, host: str) -> Refusal | None:
        """The user's answer about `host`, one question per name at a time."""
        ask = self.asker()
        if ask is None:
            return "unlisted"
        question = self._questions.get(host)
        if question is None:
            question = asyncio.get_running_loop().create_task(_bounded(ask(host), self.ask_timeout))
            self._questions[host] = question
            question.add_done_callback(lambda _: self._questions.pop(host, None))
        try:
            allowed = await asyncio.shield(question)
        except TimeoutError:
            return "unanswered"
        except Exception:  # an asker that fails refuses, like a no
            return "declined"
        if not allowed:
            return "declined"
        self.allowed_by_user.add(host)
        return None

    async def _open(self, host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Connects to the canonical name that was checked (never the spelling the client sent)."""
        return await asyncio.wait_for(asyncio.open_connection(self.resolve.get(host, host), port), 30)

    async def _http(self, first: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = first + await reader.readuntil(b"\r\n\r\n")
        if len(head) > _HEADER_LIMIT:
            raise ValueError("request head too long")
        request_line, _, rest = head.partition(b"\r\n")
        method, target, version = request_line.decode("latin-1").split(" ", 2)
        if method == "CONNECT":
            host, port = _split_host_port(target, 443)
            upstream_head = b""
        else:
            scheme, sep, after = target.partition("://")
            if not sep or scheme.lower() != "http":
                return await _reply(writer, 400, "the proxy takes absolute http:// URLs or CONNECT")
            authority, slash, path = after.partition("/")
            host, port = _split_host_port(authority, 80)
            upstream_head = f"{method} {slash + path or '/'} {version}\r\n".encode("latin-1") + rest
        host, refusal = await self._check(host)
        if refusal is not None:
            return await _reply(writer, 403, "skawld sandbox: " + refusal_text(host, refusal))
        if method != "CONNECT" and (problem := host_header_problem(rest, host)):
            self.refused[host] = "fronted"
            return await _reply(writer, 400, f"skawld sandbox proxy: {problem}")
        try:
            up_reader, up_writer = await self._open(host, port)
        except (OSError, TimeoutError) as exc:
            return await _reply(writer, 502, f"skawld sandbox proxy: cannot reach {host}:{port}: {exc}")
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            return await self._tunnel(host, reader, writer, up_reader, up_writer)
        up_writer.write(upstream_head)
        await _pipe_both(reader, writer, up_reader, up_writer)

    async def _socks(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        (count,) = await reader.readexactly(1)
        await reader.readexactly(count)
        writer.write(b"\x05\x00")  # no authentication
        version, command, _, kind = await reader.readexactly(4)
        if kind == 0x03:
            (length,) = await reader.readexactly(1)
            host = (await reader.readexactly(length)).decode("utf-8", "replace")  # canonical_host judges it
        elif kind == 0x01:
            host = str(ipaddress.IPv4Address(await reader.readexactly(4)))
        elif kind == 0x04:
            host = str(ipaddress.IPv6Address(await reader.readexactly(16)))
        else:
            raise ValueError("bad SOCKS address type")
        (port,) = struct.unpack("!H", await reader.readexactly(2))
        if version != 5 or command != 1:  # CONNECT only
            writer.write(_socks_reply(0x07))
            return
        host, refusal = await self._check(host)
        if refusal is not None:
            writer.write(_socks_reply(_SOCKS_NOT_ALLOWED))
            return
        try:
            up_reader, up_writer = await self._open(host, port)
        except (OSError, TimeoutError):
            writer.write(_socks_reply(_SOCKS_UNREACHABLE))
            return
        writer.write(_socks_reply(0x00))
        await self._tunnel(host, reader, writer, up_reader, up_writer)

    async def _tunnel(
        self,
        host: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        up_reader: asyncio.StreamReader,
        up_writer: asyncio.StreamWriter,
    ) -> None:
        """A CONNECT or SOCKS5 tunnel to `host`: the upstream may speak first (SSH, SMTP); the client's
        first bytes are held until they show no other name (`first_bytes_name_problem`)."""
        downstream = asyncio.ensure_future(_pipe(up_reader, writer))
        try:
            first = await _first_bytes(reader)
            if first and first_bytes_name_problem(first, host) is not None:
                self.refused[host] = "fronted"
                return
            up_writer.write(first)  # nothing when the client only waits (or half-closed): the server speaks
            await _pipe(reader, up_writer)
            await downstream
        finally:
            downstream.cancel()
            with contextlib.suppress(OSError):
                up_writer.close()


async def _bounded(answer: Awaitable[bool], timeout: float) -> bool:
    return await asyncio.wait_for(answer, timeout)


def _socks_reply(code: int) -> bytes:
    return bytes([5, code, 0, 1, 0, 0, 0, 0, 0, 0])


def _split_host_port(authority: str, default: int) -> tuple[str, int]:
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else default
    host, sep, port = authority.rpartition(":")
    if not sep:
        return authority, default
    return host, int(port)


async def _reply(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    body = (text + "\n").encode()
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n".encode()
        + body
    )
    await writer.drain()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        pass


async def _first_bytes(reader: asyncio.StreamReader) -> bytes:
    """The client's first TLS record or HTTP request head (or whatever its first read gives)."""
    data = await reader.read(_HEADER_LIMIT)
    while data and len(data) < _HEADER_LIMIT and _wants_more(data):
        more = await reader.read(_HEADER_LIMIT - len(data))
        if not more:
            break
        data += more
    return data


def _wants_more(data: bytes) -> bool:
    if data[0] == 0x16:  # a TLS handshake record: its header, then the length it gives
        return len(data) < 5 or len(data) < 5 + int.from_bytes(data[3:5], "big")
    if looks_like_http(data):  # up to the blank line
        return b"\r\n\r\n" not in data
    return False


async def _pipe_both(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    try:
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
    finally:
        with contextlib.suppress(OSError):
            up_writer.close()
