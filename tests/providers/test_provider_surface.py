"""Provider surface: lazy imports, lazy clients, key handling, ids."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from skawld_core.errors import AuthError, ConfigError
from skawld_core.messages import user_text
from skawld_core.providers import AnthropicProvider, OpenAIChatProvider, OpenAIResponsesProvider
from tests.support.provider_kit import API_KEY, collect, endpoint, make_provider, request, texts
from tests.support.wire_server import WireServer, http_error, text, turn

pytestmark = pytest.mark.timeout(30)


def test_importing_skawld_core_does_not_import_vendor_sdks() -> None:
    code = (
        "import sys, skawld_core, skawld_core.providers, skawld_core.providers.retry, skawld_core.providers.errors_map;"
        "bad = [m for m in ('anthropic', 'openai', 'httpx2') if m in sys.modules];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ids_and_lazy_clients() -> None:
    providers = [AnthropicProvider(), OpenAIChatProvider(), OpenAIResponsesProvider()]
    assert [p.id for p in providers] == ["anthropic", "openai-chat", "openai-responses"]
    assert all(p._clients.client is None for p in providers)  # type: ignore[attr-defined]  # constructed without a key, no client yet


@pytest.mark.parametrize(
    ("cls", "var"),
    [
        (AnthropicProvider, "ANTHROPIC_API_KEY"),
        (OpenAIChatProvider, "OPENAI_API_KEY"),
        (OpenAIResponsesProvider, "OPENAI_API_KEY"),
    ],
)
async def test_missing_key_raises_on_iteration_not_on_call(
    cls: type, var: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(var, raising=False)
    gen = cls().stream(request())  # no error yet
    with pytest.raises(AuthError, match=var):
        await gen.__anext__()


async def test_negative_max_retries_is_config_error() -> None:
    gen = AnthropicProvider(api_key="k").stream(request(max_retries=-1))
    with pytest.raises(ConfigError):
        await gen.__anext__()


def test_repr_never_shows_the_key() -> None:
    for cls in (AnthropicProvider, OpenAIChatProvider, OpenAIResponsesProvider):
        assert "sk-secret-key-1" not in repr(cls(api_key="sk-secret-key-1"))


def test_provider_reused_across_event_loops(wire: WireServer) -> None:
    import asyncio

    p = make_provider("anthropic", wire)
    wire.anthropic.enqueue(turn(text("one")), turn(text("two")))
    assert texts(asyncio.run(collect(p))) == "one"
    assert texts(asyncio.run(collect(p))) == "two"  # a fresh client on the new loop


@pytest.mark.parametrize(("kind", "var"), [("anthropic", "ANTHROPIC_BASE_URL"), ("chat", "OPENAI_BASE_URL")])
async def test_base_url_from_environment(
    kind: str, var: str, wire: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Subprocess clients (CLI/TUI e2e tests) can be pointed at the wire server by env vars."""
    monkeypatch.setenv(var, wire.url if kind == "anthropic" else wire.openai_url)
    endpoint(wire, kind).enqueue(turn(text("via env")))
    p = make_provider(kind, None)
    assert texts(await collect(p)) == "via env"
    await p.aclose()


async def test_early_close_closes_the_http_response(wire: WireServer, transport: str) -> None:
    wire.anthropic.enqueue(turn(text(["a"] * 20), frame_delay=0.05))
    p = make_provider("anthropic", wire)
    seen: list[Any] = []
    client = p._get_client(API_KEY)  # type: ignore[attr-defined]
    method = "post" if transport == "sdk" else "stream"
    original = getattr(client, method)

    async def spy(*args: Any, **kw: Any) -> Any:
        stream = await original(*args, **kw)
        seen.append(stream)
        return stream

    setattr(client, method, spy)
    gen = p.stream(request())
    async for ev in gen:
        if ev.type == "text_delta":
            break
    await gen.aclose()
    assert seen and seen[0].response.is_closed
    await p.aclose()


def test_wire_server_works_with_a_plain_sync_client() -> None:
    import json
    import urllib.error
    import urllib.request

    with WireServer() as srv:
        srv.chat.enqueue(turn(text("hi")), http_error(429, headers={"retry-after": "3"}))
        req = urllib.request.Request(
            srv.openai_url + "/chat/completions", data=b'{"model": "x"}', headers={"content-type": "application/json"}
        )
        body = urllib.request.urlopen(req, timeout=5).read().decode()
        assert body.rstrip().endswith("data: [DONE]") and '"content":"hi"' in body
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=5)
        assert info.value.code == 429 and info.value.headers["retry-after"] == "3"
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=5)  # queue empty
        assert info.value.code == 400 and "no scripted reply" in info.value.read().decode()
        assert [r.body for r in srv.chat.requests] == [{"model": "x"}] * 3
        assert json.loads(srv.requests[0].raw) == {"model": "x"}


async def test_gate_holds_the_stream_until_released(wire: WireServer) -> None:
    import asyncio

    held = turn(text(["first", "second"]), gate_after=3)  # message_start, block start, "first"
    wire.anthropic.enqueue(held)
    p = make_provider("anthropic", wire)
    gen = p.stream(request())
    seen = [await gen.__anext__(), await gen.__anext__()]
    assert [e.type for e in seen] == ["message_start", "text_delta"]
    pending = asyncio.ensure_future(gen.__anext__())
    await asyncio.sleep(0.1)
    assert not pending.done()  # the server is holding the rest
    held.gate.set()
    assert (await pending).text == "second"  # type: ignore[union-attr]
    rest = [e async for e in gen]
    assert rest[-1].type == "message_end"
    await p.aclose()


async def test_callable_replies_and_wait_for_requests(wire: WireServer) -> None:
    import asyncio

    def echo(req: Any) -> Any:
        return turn(text("you said " + req.body["messages"][-1]["content"]))

    wire.chat.default = echo
    p = make_provider("chat", wire)
    events = await collect(p, request([user_text("ping")]))
    assert texts(events) == "you said ping"
    got = await asyncio.to_thread(wire.chat.wait_for_requests, 1, 1.0)
    assert len(got) == 1
    with pytest.raises(TimeoutError):
        wire.chat.wait_for_requests(2, 0.05)
    await p.aclose()
