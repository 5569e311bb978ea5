"""The Chat provider against llama-cpp-python 0.3.36 as recorded (tests/fixtures/wire/).

Every reply here is the real server's bytes (`tests.support.wire_replay`): the empty
200 stream it sends for a prompt over its context, its 400 for the same request
non-streamed, its 500 for a validation error, a stream that ignores
``max_completion_tokens``, its tokenizer endpoint and its model list.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core import Agent
from skawld_core.errors import ContextLengthError, ProviderError
from skawld_core.messages import Usage, user_text
from skawld_core.providers.base import MessageEnd, ProviderStreamEvent, ToolSchema
from skawld_core.providers.discovery import discover
from skawld_core.providers.openai_chat import OpenAIChatProvider
from skawld_core.providers.retry import RetryPolicy
from skawld_core.sessions.memory import InMemorySessionStore
from tests.cli.harness import CliEnv, base_env, make_repo
from tests.support.provider_kit import RecordingSleep, collect, make_provider, request, texts
from tests.support.wire_profiles import ChatProfile
from tests.support.wire_replay import LLAMA_CPP_PYTHON, load_session, replay, replay_profile, streamed_text, word_count
from tests.support.wire_script import HttpError
from tests.support.wire_server import WireServer

pytestmark = pytest.mark.timeout(60)
SESSION = load_session(LLAMA_CPP_PYTHON)
MODEL = SESSION["model"]
WEATHER = ToolSchema(
    name="get_weather",
    description="The weather in a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as srv:
        srv.chat.profile = replay_profile(SESSION)
        yield srv


def provider(srv: WireServer, sleeps: RecordingSleep, **kw: object) -> OpenAIChatProvider:
    p = make_provider("chat", srv, compat="lenient", retry_policy=RetryPolicy(sleep=sleeps), **kw)
    assert isinstance(p, OpenAIChatProvider)
    return p


def end_of(events: list[ProviderStreamEvent]) -> MessageEnd:
    ends = [e for e in events if isinstance(e, MessageEnd)]
    assert len(ends) == 1
    return ends[0]


def chat_posts(srv: WireServer) -> list[dict[str, object]]:
    return [r.body for r in srv.chat.requests]


# ------------------------------------------------------------------ errors as what they are


async def test_empty_stream_after_a_long_prompt_is_a_context_length_error(
    server: WireServer, sleeps: RecordingSleep
) -> None:
    server.chat.enqueue(replay(SESSION, "too_long_stream"), replay(SESSION, "too_long_plain"))
    p = provider(server, sleeps)
    with pytest.raises(ContextLengthError, match="maximum context length is 2048"):
        await collect(p, request([user_text("word " * 3000)], model=MODEL))
    streamed, plain = chat_posts(server)
    assert streamed["stream"] is True and plain["stream"] is False and plain["max_tokens"] == 1
    assert sleeps.delays == [0.0]  # no backoff: one plain question, not a retry loop
    assert p.context_window(MODEL) == 2048  # the window the error named is remembered


async def test_empty_stream_over_a_known_window_needs_no_second_request(
    server: WireServer, sleeps: RecordingSleep
) -> None:
    server.chat.enqueue(replay(SESSION, "too_long_stream"))
    p = provider(server, sleeps)
    p.discovered_windows[MODEL] = 2048
    with pytest.raises(ContextLengthError, match="context window of 2048"):
        await collect(p, request([user_text("word " * 3000)], model=MODEL))
    assert len(server.chat.requests) == 1


async def test_empty_stream_that_is_not_about_length_is_retried(server: WireServer, sleeps: RecordingSleep) -> None:
    plain_ok = HttpError(200, body={"choices": [{"message": {"content": "x"}, "finish_reason": "length"}]})
    server.chat.enqueue(replay(SESSION, "too_long_stream"), plain_ok, replay(SESSION, "prompt_max_tokens"))
    events = await collect(provider(server, sleeps), request(model=MODEL))
    assert texts(events) == streamed_text(SESSION, "prompt_max_tokens")
    assert len(server.chat.requests) == 3 and len(sleeps.delays) == 1


async def test_a_500_carrying_validation_errors_is_not_retried(server: WireServer, sleeps: RecordingSleep) -> None:
    server.chat.enqueue(replay(SESSION, "null_assistant_content"), replay(SESSION, "null_assistant_content"))
    with pytest.raises(ProviderError, match="validation errors") as info:
        await collect(provider(server, sleeps), request(model=MODEL))
    assert info.value.retryable is False
    assert len(server.chat.requests) == 1 and sleeps.delays == []


async def test_a_stream_cut_after_its_first_words_is_retried_before_output_only(
    server: WireServer, sleeps: RecordingSleep
) -> None:
    server.chat.enqueue(replay(SESSION, "cancelled_stream"))
    with pytest.raises(ProviderError, match="ended before a finish_reason"):
        await collect(provider(server, sleeps), request(model=MODEL))
    assert len(server.chat.requests) == 1  # text had been shown: not retried, not probed


# ------------------------------------------------------------------ parameters it honours


async def test_the_output_cap_goes_as_max_tokens(server: WireServer, sleeps: RecordingSleep) -> None:
    server.chat.enqueue(replay(SESSION, "prompt_max_tokens"))
    end = end_of(await collect(provider(server, sleeps), request(model=MODEL, max_output_tokens=16)))
    body = server.chat.last_body
    assert body["max_tokens"] == 16 and "max_completion_tokens" not in body
    assert end.stop_reason == "max_tokens"
    assert "output_cap_ignored" not in (end.provider_metadata or {}).get("openai_chat", {})


async def test_a_server_that_ignores_the_cap_is_learnt_and_reported_once(
    server: WireServer, sleeps: RecordingSleep, caplog: pytest.LogCaptureFixture
) -> None:
    # What llama-cpp-python streamed for max_completion_tokens=16: about 400 tokens.
    server.chat.enqueue(
        replay(SESSION, "prompt_max_completion_tokens"), replay(SESSION, "prompt_max_completion_tokens")
    )
    p = provider(server, sleeps)
    with caplog.at_level(logging.WARNING, logger="skawld.providers"):
        first = end_of(await collect(p, request(model=MODEL, max_output_tokens=16)))
        second = end_of(await collect(p, request(model=MODEL, max_output_tokens=16)))
    assert p.ignores_output_cap
    assert first.provider_metadata and first.provider_metadata["openai_chat"]["output_cap_ignored"] is True
    assert second.provider_metadata and second.provider_metadata["openai_chat"]["output_cap_ignored"] is True
    warnings = [r.getMessage() for r in caplog.records if "ignores the output cap" in r.getMessage()]
    assert len(warnings) == 1 and "max_tokens=16" in warnings[0]


# ------------------------------------------------------------------ honest usage


async def test_usage_is_counted_by_the_servers_tokenizer(server: WireServer, sleeps: RecordingSleep) -> None:
    server.chat.enqueue(replay(SESSION, "prompt_max_tokens"))
    end = end_of(await collect(provider(server, sleeps), request([user_text("Tell me a story")], model=MODEL)))
    # The replayed tokenizer's stand-in counts one token per word.
    out = streamed_text(SESSION, "prompt_max_tokens")
    assert end.usage == Usage(input_tokens=4, output_tokens=word_count(out))
    assert end.provider_metadata == {"openai_chat": {"usage_counted": "tokenizer"}}
    asked = [r.body for r in server.requests if r.path == "/extras/tokenize/count"]
    assert asked[0] == {"input": "Tell me a story"}
    assert asked[1] == {"input": streamed_text(SESSION, "prompt_max_tokens")}


async def test_without_a_tokenizer_usage_stays_marked_as_an_estimate(sleeps: RecordingSleep) -> None:
    with WireServer() as srv:
        srv.chat.profile = ChatProfile(name="no-tokenizer", models=replay_profile(SESSION).models)
        srv.chat.enqueue(replay(SESSION, "prompt_max_tokens"), replay(SESSION, "prompt_max_tokens"))
        p = provider(srv, sleeps)
        for _ in range(2):
            end = end_of(await collect(p, request(model=MODEL)))
            assert end.provider_metadata == {"openai_chat": {"usage_estimated": True}}
            assert end.usage.output_tokens > 0
        tokenizer_asks = [r for r in srv.requests if "tokenize" in r.path]
        assert len(tokenizer_asks) == 2  # both endpoints tried once, then never again


# ------------------------------------------------------------------ tools, models


async def test_a_forced_tool_call_streams_as_a_tool_use(server: WireServer, sleeps: RecordingSleep) -> None:
    server.chat.enqueue(replay(SESSION, "tool_forced"))
    events = await collect(provider(server, sleeps), request(model=MODEL, tools=[WEATHER]))
    starts = [e for e in events if e.type == "tool_use_start"]
    assert [s.name for s in starts] == ["get_weather"]  # type: ignore[attr-defined]
    assert end_of(events).stop_reason == "tool_use"


async def test_under_auto_this_server_answers_in_text(server: WireServer, sleeps: RecordingSleep) -> None:
    server.chat.enqueue(replay(SESSION, "tool_auto"))
    events = await collect(provider(server, sleeps), request(model=MODEL, tools=[WEATHER]))
    assert not [e for e in events if e.type == "tool_use_start"] and texts(events)


def test_model_list_has_the_gguf_path_and_no_window(server: WireServer) -> None:
    (model,) = discover(server.openai_url)
    assert model.id == MODEL and model.id.endswith(".gguf") and model.context_window is None


# ------------------------------------------------------------------ what `skawld -p` shows


@pytest.fixture
def cli(tmp_path: Path) -> Iterator[CliEnv]:
    home = tmp_path / "home"
    home.mkdir()
    with WireServer() as srv:
        yield CliEnv(home=home, repo=make_repo(tmp_path / "repo"), srv=srv, env=base_env(home))


def _headless(cli: CliEnv, profile: ChatProfile) -> dict[str, object]:
    cli.srv.chat.profile = profile
    cli.srv.chat.enqueue(replay(SESSION, "prompt_max_tokens"))
    args = ["-p", "hi", "--output-format", "json", "--provider", "openai-chat"]
    proc = cli.run(*args, "--base-url", cli.srv.openai_url, "--model", MODEL, env={"OPENAI_API_KEY": "local"})
    assert proc.returncode == 0, proc.stderr
    out: dict[str, object] = json.loads(proc.stdout)
    return out


def test_headless_result_marks_estimates_and_names_the_model_short(cli: CliEnv) -> None:
    out = _headless(cli, ChatProfile(name="no-tokenizer", models=replay_profile(SESSION).models))
    assert out["usage_estimated"] is True
    assert list(out["modelUsage"]) == ["SmolLM2-135M-Instruct.Q4_1"]  # type: ignore[call-overload]


def test_headless_result_with_the_servers_tokenizer_is_not_an_estimate(cli: CliEnv) -> None:
    out = _headless(cli, replay_profile(SESSION))
    assert "usage_estimated" not in out
    assert out["usage"]["output_tokens"] == word_count(streamed_text(SESSION, "prompt_max_tokens"))  # type: ignore[index]


async def test_through_the_agent_an_empty_stream_leads_to_compaction(
    server: WireServer, sleeps: RecordingSleep, tmp_path: Path
) -> None:
    for _ in range(11):
        server.chat.enqueue(replay(SESSION, "prompt_max_tokens"))
    agent = Agent(
        provider=provider(server, sleeps), model=MODEL, tools=[], session_store=InMemorySessionStore(), cwd=tmp_path
    )
    session = await agent.session()
    for i in range(11):
        events = [e async for e in session.run(f"question {i}")]
        assert events[-1].type == "result" and events[-1].subtype == "success", events[-1]
    server.chat.enqueue(
        replay(SESSION, "too_long_stream"),
        replay(SESSION, "too_long_plain"),
        replay(SESSION, "prompt_max_tokens"),  # the summary
        replay(SESSION, "tool_auto"),  # the answer after compaction
    )
    events = [e async for e in session.run("question 11")]
    kinds = [e.type for e in events]
    assert "compaction" in kinds and "error" not in kinds, kinds
    assert events[-1].type == "result" and events[-1].subtype == "success"
    assert events[-1].final_text == streamed_text(SESSION, "tool_auto")
    assert sleeps.delays == [0.0]  # the plain probe only: no backoff loop
