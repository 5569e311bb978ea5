"""`aio_http`, the asyncio carrier of the HTTP transport, against raw servers on 127.0.0.1.

Each server answers with hand-written HTTP/1.x bytes, so the framing cases (chunked,
Content-Length, read-until-close, interim 1xx), connection reuse, a stale keep-alive
connection, and the redirect hand-over to ``httpx2`` are exercised on real sockets.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from skawld_core.providers.aio_http import AioHttp, RemoteProtocolError
from skawld_core.providers.http_transport import HttpClient, ssl_context

pytestmark = pytest.mark.timeout(20)

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, int], Awaitable[None]]


class RawServer:
    """An asyncio server; ``handler(reader, writer, connection_number)`` per connection."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.connections = 0
        self.requests: list[bytes] = []
        self.server: asyncio.AbstractServer | None = None

    async def __aenter__(self) -> RawServer:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def read_request(self, reader: asyncio.StreamReader) -> bytes:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        body = await reader.readexactly(length) if length else b""
        self.requests.append(head + body)
        return head

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            await self.handler(reader, writer, self.connections)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client hung up, or the server is shutting down
        finally:
            writer.close()


def client(timeout: float = 5.0) -> AioHttp:
    return AioHttp(timeout, 5.0, lambda: ssl_context(True))


CHUNKED = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"


async def test_chunked_body_streams_and_the_connection_is_reused() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            await server.read_request(reader)
            writer.write(CHUNKED + b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nx-trailer: 1\r\n\r\n")
            await writer.drain()

    async with RawServer(handler) as server:
        http = client()
        for _ in range(3):
            response = await http.request("POST", server.url + "/v1/messages?beta=true", {"X-A": "1"}, b'{"a":1}')
            assert response.status_code == 200 and response.headers["content-type"] == "text/event-stream"
            assert [part async for part in response.aiter_bytes()] == [b"hello", b" world"]
            await response.aclose()
        await http.aclose()
    assert server.connections == 1
    first = server.requests[0]
    assert first.startswith(b"POST /v1/messages?beta=true HTTP/1.1\r\n")
    assert b"\r\nHost: 127.0.0.1:" in first and b"\r\nX-A: 1\r\n" in first and b"\r\nContent-Length: 7\r\n" in first
    assert first.endswith(b'\r\n\r\n{"a":1}')


async def test_content_length_and_read_until_close_bodies() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        if n == 1:
            writer.write(b'HTTP/1.1 404 Not Found\r\nContent-Length: 13\r\nRetry-After: 2\r\n\r\n{"e": "gone"}')
            await writer.drain()
            await server.read_request(reader)  # kept alive: a second request on it
            writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        else:
            writer.write(b"HTTP/1.0 200 OK\r\n\r\nuntil the end")

    async with RawServer(handler) as server:
        http = client()
        r1 = await http.request("GET", server.url + "/a", {})
        assert r1.status_code == 404 and r1.headers["retry-after"] == "2"
        assert json.loads(await r1.aread()) == {"e": "gone"}
        await r1.aclose()
        r2 = await http.request("GET", server.url + "/b", {})
        assert r2.status_code == 204 and await r2.aread() == b""
        await r2.aclose()
        await http.aclose()  # the next request needs a new connection
        r3 = await http.request("GET", server.url + "/c", {})
        assert await r3.aread() == b"until the end"
        await r3.aclose()
    assert server.connections == 2


async def test_interim_1xx_answers_are_skipped() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    async with RawServer(handler) as server:
        response = await client().request("POST", server.url + "/", {}, b"x")
        assert response.status_code == 200 and await response.aread() == b"ok"
        await response.aclose()


async def test_a_stale_keep_alive_connection_is_replaced_once() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        if n == 1:
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n1")
            await writer.drain()
            await server.read_request(reader)  # reads the second request, then hangs up unanswered
            return
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n2")

    async with RawServer(handler) as server:
        http = client()
        first = await http.request("POST", server.url + "/", {}, b"a")
        assert await first.aread() == b"1"
        await first.aclose()
        second = await http.request("POST", server.url + "/", {}, b"b")
        assert await second.aread() == b"2"
        await second.aclose()
    assert server.connections == 2 and len(server.requests) == 3


async def test_a_fresh_connection_closing_early_is_an_error_not_a_resend() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        if n == 1:
            writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel")
        # connection 2: hangs up without an answer

    async with RawServer(handler) as server:
        response = await client().request("POST", server.url + "/", {}, b"a")
        with pytest.raises(asyncio.IncompleteReadError):
            await response.aread()
        await response.aclose()
        with pytest.raises(asyncio.IncompleteReadError):
            await client().request("POST", server.url + "/", {}, b"b")
    assert server.connections == 2 and len(server.requests) == 2


async def test_garbage_is_a_protocol_error_and_silence_a_timeout() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)
        if n == 1:
            writer.write(b"SSH-2.0-OpenSSH\r\n\r\n")
            await writer.drain()
        await asyncio.Event().wait()

    async with RawServer(handler) as server:
        with pytest.raises(RemoteProtocolError):
            await client().request("GET", server.url + "/", {})
        with pytest.raises(TimeoutError):
            await client(timeout=0.2).request("GET", server.url + "/", {})


async def test_http_client_hands_a_redirect_to_httpx2() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            head = await server.read_request(reader)
            if head.startswith(b"POST /old/v1/messages "):
                writer.write(
                    b"HTTP/1.1 307 Temporary Redirect\r\nLocation: /new/v1/messages\r\nContent-Length: 0\r\n\r\n"
                )
            else:
                writer.write(CHUNKED + b"1e\r\nevent: message_stop\ndata: {}\n\n\r\n0\r\n\r\n")
            await writer.drain()

    async with RawServer(handler) as server:
        http = HttpClient(server.url + "/old/", {"Authorization": "Bearer k"}, 5.0, 5.0, "anthropic")
        assert http.carrier == "asyncio"
        stream = await http.stream("v1/messages", {"model": "m"})
        events: AsyncIterator[object] = stream.__aiter__()
        assert [e async for e in events] == [{}]
        await stream.close()
        assert http.carrier == "httpx2"  # and it stays there
        await http.close()
    paths = [r.split(b" ", 2)[1] for r in server.requests]
    assert paths == [b"/old/v1/messages", b"/old/v1/messages", b"/new/v1/messages"]  # replayed, then followed
    assert json.loads(server.requests[2].split(b"\r\n\r\n", 1)[1]) == {"model": "m"}


def test_verified_tls_context_is_the_one_httpx2_builds() -> None:
    import httpx2

    from skawld_core.providers.http_transport import _verified_context

    ours, theirs = _verified_context(), httpx2.create_ssl_context()
    assert ours.verify_mode == theirs.verify_mode and ours.check_hostname == theirs.check_hostname
    assert ours.cert_store_stats() == theirs.cert_store_stats() and ours.options == theirs.options


def self_signed(tmp: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("openssl is missing (.ci/run installs it)")
        pytest.skip("openssl is not installed")
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subject = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            *subject,
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


async def test_https_is_verified_against_the_configured_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skawld_core.providers.http_transport import _verified_context

    cert, key = self_signed(tmp_path)
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(cert, key)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecure")
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0, ssl=server_ctx)
    url = f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}/"
    try:
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        trusting = _verified_context()
        monkeypatch.delenv("SSL_CERT_FILE")
        response = await AioHttp(5.0, 5.0, lambda: trusting).request("GET", url, {})
        assert await response.aread() == b"secure"
        await response.aclose()
        with pytest.raises(ssl.SSLCertVerificationError):  # the system store does not know it
            await AioHttp(5.0, 5.0, lambda: ssl_context(True)).request("GET", url, {})
    finally:
        server.close()
        await server.wait_closed()


async def test_a_header_with_a_line_break_is_refused_before_sending() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        await server.read_request(reader)

    async with RawServer(handler) as server:
        with pytest.raises(ValueError, match="line break"):
            await client().request("POST", server.url + "/", {"X-Team": "red\r\nX-Evil: 1"}, b"{}")
    assert server.requests == []


async def test_preconnect_opens_the_connection_the_first_request_uses() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, n: int) -> None:
        while True:
            await server.read_request(reader)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()

    async with RawServer(handler) as server:
        http = client()
        warm = asyncio.create_task(http.preconnect(server.url + "/v1/"))
        await asyncio.sleep(0)  # the warm-up is under way when the request starts
        response = await http.request("POST", server.url + "/v1/messages", {}, b"{}")
        assert await response.aread() == b"ok"
        await response.aclose()
        await warm
        await http.preconnect(server.url + "/v1/")  # an idle connection exists: nothing to do
        await http.aclose()
    assert server.connections == 1 and len(server.requests) == 1


async def test_provider_warm_never_raises_and_the_first_stream_reuses_its_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from skawld_core.providers.anthropic import AnthropicProvider
    from tests.support.wire_server import WireServer, text, turn

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    await AnthropicProvider(base_url="http://127.0.0.1:9").warm()  # no key: quietly nothing
    await AnthropicProvider(api_key="k", base_url="http://127.0.0.1:9").warm()  # refused: quietly nothing
    with WireServer() as srv:
        srv.anthropic.enqueue(turn(text("hi")))
        provider = AnthropicProvider(api_key="k", base_url=srv.url)
        await provider.warm()
        client = provider._get_client("k")
        assert client.carrier == "asyncio" and sum(map(len, client._aio._idle.values())) == 1
        from skawld_core.providers.base import ProviderRequest

        request = ProviderRequest(model="m", messages=[], max_retries=0)
        events = [e async for e in provider.stream(request)]
        assert any(e.type == "text_delta" for e in events)
        assert sum(map(len, client._aio._idle.values())) == 1  # the same one, back in the pool
        await provider.aclose()
