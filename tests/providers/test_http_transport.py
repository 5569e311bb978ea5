"""The thin httpx2 transport: SSE decoding, SDK-equal headers and URLs, errors, no SDK import."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from skawld_core.errors import ProviderError, RateLimitError
from skawld_core.providers.errors_map import map_error
from skawld_core.providers.http_transport import HttpStatusFailure, iter_sse
from tests.support.provider_kit import collect, endpoint, make_provider, texts
from tests.support.wire_server import WireServer, http_error, text, turn

pytestmark = pytest.mark.timeout(30)


async def _chunks(*parts: bytes) -> AsyncIterator[bytes]:
    for p in parts:
        yield p


async def test_sse_decoding_handles_splits_crlf_comments_and_multiline_data() -> None:
    body = [
        b": keep-alive comment\r\n\r\nevent: a\r\nda",
        b'ta: {"x":\r\ndata: 1}\r\n\r\n',
        b"id: 7\nretry: 10\ndata:no-space\n\nevent: lonely\n\n",
        b"data: tail-without-blank-line",
    ]
    got = [ev async for ev in iter_sse(_chunks(*body))]
    assert got == [("a", '{"x":\n1}'), (None, "no-space"), (None, "tail-without-blank-line")]


async def test_http_and_sdk_send_the_same_request(wire: WireServer) -> None:
    """Bodies are equal and the headers that matter agree, whichever transport is used."""
    for kind in ("anthropic", "chat", "responses"):
        ep = endpoint(wire, kind)
        ep.enqueue(turn(text("a")), turn(text("b")))
        for transport in ("http", "sdk"):
            p = make_provider(kind, wire, transport=transport)
            await collect(p)
            await p.aclose()
        http_req, sdk_req = ep.requests[-2:]
        assert http_req.body == sdk_req.body and http_req.path == sdk_req.path
        for name in ("authorization", "content-type", "accept", "anthropic-version"):
            assert http_req.headers.get(name) == sdk_req.headers.get(name), (kind, name)


async def test_base_url_path_prefix_and_env(wire: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    wire.anthropic.enqueue(turn(text("x")), turn(text("y")))
    p = make_provider("anthropic", None, transport="http", base_url=wire.url + "/gateway")
    await collect(p)
    assert wire.anthropic.requests[-1].path == "/gateway/v1/messages"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", wire.url + "/from-env/")
    p = make_provider("anthropic", None, transport="http")
    await collect(p)
    assert wire.anthropic.requests[-1].path == "/from-env/v1/messages"


async def test_custom_headers_org_and_project_from_env(wire: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-1")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-1")
    monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "X-Team: blue\nX-Cost-Center: 42")
    monkeypatch.setenv("ANTHROPIC_CUSTOM_HEADERS", "X-Gateway: yes")
    wire.chat.enqueue(turn(text("x")))
    wire.anthropic.enqueue(turn(text("x")))
    await collect(make_provider("chat", wire, transport="http", default_headers={"X-Team": "red"}))
    h = wire.chat.requests[-1].headers
    assert (h["openai-organization"], h["openai-project"]) == ("org-1", "proj-1")
    assert (h["x-team"], h["x-cost-center"]) == ("red", "42")  # explicit headers win
    await collect(make_provider("anthropic", wire, transport="http"))
    assert wire.anthropic.requests[-1].headers["x-gateway"] == "yes"


async def test_connection_refused_is_a_retryable_provider_error() -> None:
    p = make_provider("anthropic", None, transport="http", base_url="http://127.0.0.1:9")
    from tests.support.provider_kit import request

    with pytest.raises(ProviderError, match="connection error") as info:
        await collect(p, request(max_retries=0))
    assert info.value.retryable


async def test_error_body_is_mapped_without_sdk_classes(wire: WireServer) -> None:
    wire.chat.enqueue(http_error(429, "slow down", headers={"retry-after": "7"}))
    from tests.support.provider_kit import request

    with pytest.raises(RateLimitError) as info:
        await collect(make_provider("chat", wire, transport="http"), request(max_retries=0))
    assert info.value.retry_after_seconds == 7.0
    assert isinstance(info.value.__cause__, HttpStatusFailure)
    assert "slow down" in str(info.value)


def test_x_should_retry_overrides_the_status_rule() -> None:
    err = map_error(HttpStatusFailure(400, {"x-should-retry": "true"}, {"error": {"message": "m"}}, "m"), vendor="V")
    assert isinstance(err, ProviderError) and err.retryable
    err = map_error(HttpStatusFailure(503, {"x-should-retry": "false"}, None, "busy"), vendor="V")
    assert isinstance(err, ProviderError) and not err.retryable


def test_a_streamed_turn_never_imports_the_sdks() -> None:
    code = """
import asyncio, sys
from tests.support.wire_server import WireServer, text, turn
from tests.support.provider_kit import collect, make_provider, texts
with WireServer() as srv:
    for kind in ("anthropic", "chat", "responses"):
        {"anthropic": srv.anthropic, "chat": srv.chat, "responses": srv.responses}[kind].enqueue(turn(text("ok")))
        assert texts(asyncio.run(collect(make_provider(kind, srv, transport="http")))) == "ok"
print(sorted(m for m in ("anthropic", "openai") if m in sys.modules))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().replace("'", '"')) == []


async def test_texts_arrive_over_http(wire: WireServer) -> None:
    wire.responses.enqueue(turn(text(["a", "b"])))
    assert texts(await collect(make_provider("responses", wire, transport="http"))) == "ab"
