"""LiteLLM: replays of what version 1.106.12 said (tests/fixtures/wire/), and its real proxy
in front of the Anthropic test server for a full tool session.

The live test needs ``litellm[proxy]`` (`.ci/run` installs it into /opt/litellmvenv):
it skips without it outside CI and fails without it when ``CI=true``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core import Agent
from skawld_core.errors import ContextLengthError
from skawld_core.messages import Usage, user_text
from skawld_core.providers.base import MessageEnd, ToolSchema
from skawld_core.providers.discovery import discover
from skawld_core.providers.openai_chat import OpenAIChatProvider
from skawld_core.providers.retry import RetryPolicy
from skawld_core.sessions.memory import InMemorySessionStore
from skawld_core.tools import default_tools
from tests.support.litellm_proxy import MASTER_KEY, MODEL, LiteLLMProxy, anthropic_backend, litellm_command
from tests.support.provider_kit import RecordingSleep, collect, make_provider, request, texts
from tests.support.wire_replay import LITELLM, load_session, replay, replay_profile, streamed_text
from tests.support.wire_server import WireServer, text, tool_call, turn

SESSION = load_session(LITELLM)
WEATHER = ToolSchema(name="get_weather", description="The weather in a city.", input_schema={"type": "object"})


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as srv:
        srv.chat.profile = replay_profile(SESSION)
        yield srv


def provider(srv: WireServer, sleeps: RecordingSleep) -> OpenAIChatProvider:
    p = make_provider("chat", srv, compat="lenient", retry_policy=RetryPolicy(sleep=sleeps))
    assert isinstance(p, OpenAIChatProvider)
    return p


# ------------------------------------------------------------------ replays


@pytest.mark.timeout(60)
async def test_its_context_window_error_is_a_context_length_error(server: WireServer, sleeps: RecordingSleep) -> None:
    # LiteLLM says code "400" and "ContextWindowExceededError": not a code we know by name.
    server.chat.enqueue(replay(SESSION, "too_long_stream"))
    with pytest.raises(ContextLengthError, match="prompt is too long"):
        await collect(provider(server, sleeps), request([user_text("word " * 3000)], model=MODEL))
    assert len(server.chat.requests) == 1 and sleeps.delays == []


@pytest.mark.timeout(60)
async def test_usage_streams_and_is_not_an_estimate(server: WireServer, sleeps: RecordingSleep) -> None:
    server.chat.enqueue(replay(SESSION, "prompt_max_tokens"))
    events = await collect(provider(server, sleeps), request(model=MODEL, max_output_tokens=16))
    end = events[-1]
    assert isinstance(end, MessageEnd) and end.provider_metadata is None
    assert end.usage == Usage(input_tokens=10, output_tokens=42, cache_read_tokens=0)
    assert texts(events) == streamed_text(SESSION, "prompt_max_tokens") and end.stop_reason == "max_tokens"
    assert not [r for r in server.requests if "tokenize" in r.path]  # usage came: no tokenizer asked


@pytest.mark.timeout(60)
async def test_its_tool_calls_keep_their_ids(server: WireServer, sleeps: RecordingSleep) -> None:
    server.chat.enqueue(replay(SESSION, "tool_forced"))
    events = await collect(provider(server, sleeps), request(model=MODEL, tools=[WEATHER]))
    starts = [e for e in events if e.type == "tool_use_start"]
    assert [(s.id, s.name) for s in starts] == [("toolu_litellm_1", "get_weather")]  # type: ignore[attr-defined]


@pytest.mark.timeout(60)
def test_its_model_list_carries_the_window(server: WireServer) -> None:
    (model,) = discover(server.openai_url)
    assert model.id == MODEL and model.context_window == 200000


# ------------------------------------------------------------------ the real proxy


@pytest.fixture(scope="module")
def litellm() -> Iterator[tuple[WireServer, LiteLLMProxy]]:
    command = litellm_command()
    if command is None:
        if os.environ.get("CI") == "true":
            pytest.fail("litellm[proxy] is required in CI (.ci/run installs it into /opt/litellmvenv)")
        pytest.skip("litellm is not installed (pip install 'litellm[proxy]' into /opt/litellmvenv)")
    with WireServer() as srv, LiteLLMProxy(command, srv.url) as proxy:
        yield srv, proxy


@pytest.mark.timeout(300)
async def test_a_full_tool_session_through_the_real_proxy(
    litellm: tuple[WireServer, LiteLLMProxy], tmp_path: Path
) -> None:
    srv, proxy = litellm
    (tmp_path / "a.txt").write_text("alpha\n")
    srv.anthropic.clear()
    srv.anthropic.default = None
    srv.anthropic.enqueue(
        turn(tool_call("Read", {"file_path": str(tmp_path / "a.txt")}, id="toolu_read_1")),
        turn(text(["The file ", "says alpha."])),
    )
    chat = OpenAIChatProvider(api_key=MASTER_KEY, base_url=proxy.url + "/v1")
    assert chat.compat == "lenient"
    agent = Agent(provider=chat, model=MODEL, tools=default_tools(), session_store=InMemorySessionStore(), cwd=tmp_path)
    async with agent:
        session = await agent.session()
        events = [e async for e in session.run("read a.txt")]
    result = events[-1]
    assert result.type == "result" and result.subtype == "success", (events, proxy.log_tail())
    assert result.final_text == "The file says alpha."
    first, second = srv.anthropic.requests[-2:]
    assert first.body["model"] == "claude-sonnet-4-5" and first.body["tools"][0]["name"] == "Read"
    # The tool result went back through LiteLLM as Anthropic's tool_result block.
    results = [b for m in second.body["messages"] for b in (m["content"] if isinstance(m["content"], list) else [])]
    tool_results = [b for b in results if b.get("type") == "tool_result"]
    assert tool_results and tool_results[0]["tool_use_id"] == "toolu_read_1"
    assert "alpha" in str(tool_results[0]["content"])
    assert result.total_usage.output_tokens > 0  # LiteLLM streamed usage


@pytest.mark.timeout(300)
async def test_a_too_long_prompt_through_the_real_proxy_is_a_context_length_error(
    litellm: tuple[WireServer, LiteLLMProxy],
) -> None:
    srv, proxy = litellm
    srv.anthropic.clear()
    srv.anthropic.default = anthropic_backend
    chat = OpenAIChatProvider(api_key=MASTER_KEY, base_url=proxy.url + "/v1", retry_policy=RetryPolicy())
    with pytest.raises(ContextLengthError):
        await collect(chat, request([user_text("word " * 3000)], model=MODEL))
