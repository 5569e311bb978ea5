"""The lenient Chat Completions dialect against the wire server's compatible-server profiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skawld_core import Agent
from skawld_core.errors import ConfigError, ProviderError
from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock, user_text
from skawld_core.providers.openai_chat import OpenAIChatProvider
from skawld_core.providers.openai_compat import is_local_url, resolve_compat
from skawld_core.sessions.memory import InMemorySessionStore
from skawld_core.tools import default_tools
from tests.support import provider_kit
from tests.support.provider_kit import collect, make_provider, request, texts, tool_json
from tests.support.wire_server import PROFILES, WireServer, http_error, raw_sse, text, thinking, tool_call, turn

pytestmark = pytest.mark.timeout(60)


def lenient(wire: WireServer, **kw: object) -> OpenAIChatProvider:
    p = make_provider("chat", wire, compat="lenient", **kw)
    assert isinstance(p, OpenAIChatProvider)
    return p


# ------------------------------------------------------------------ choosing the dialect


def test_compat_is_chosen_from_the_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert resolve_compat(None, None) == "strict"
    assert resolve_compat(None, "https://api.openai.com/v1") == "strict"
    assert resolve_compat(None, "http://127.0.0.1:11434/v1") == "lenient"
    assert resolve_compat("auto", "https://openrouter.ai/api/v1") == "lenient"
    assert resolve_compat("strict", "http://localhost:8000/v1") == "strict"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://gpu-box:8000/v1")
    assert resolve_compat(None, None) == "lenient"
    assert OpenAIChatProvider(api_key="k", base_url="http://localhost:1234/v1").compat == "lenient"
    with pytest.raises(ConfigError, match="compat must be one of"):
        OpenAIChatProvider(api_key="k", compat="loose")


def test_local_servers_are_recognised() -> None:
    assert is_local_url("http://127.0.0.1:8000/v1") and is_local_url("http://localhost:11434/v1")
    assert is_local_url("http://192.168.1.20:1234/v1") and is_local_url("http://ollama.local/v1")
    assert not is_local_url("https://api.openai.com/v1") and not is_local_url("https://openrouter.ai/api/v1")
    assert OpenAIChatProvider(api_key="k", base_url="http://[::1]:8080/v1").is_local
    assert not OpenAIChatProvider(api_key="k", base_url="https://api.openai.com/v1").is_local


def test_lenient_request_shapes() -> None:
    messages = [
        Message(role="user", content=[TextBlock(text="first"), TextBlock(text="second")]),
        Message(role="assistant", content=[ToolUseBlock(id="c1", name="Read", input={"file_path": "a"})]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="c1", content="A")]),
    ]
    strict = OpenAIChatProvider(api_key="k", compat="strict").build_params(request(messages))
    loose = OpenAIChatProvider(api_key="k", compat="lenient").build_params(request(messages))
    assert strict["messages"][0]["content"] == [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]
    assert loose["messages"][0]["content"] == "first\n\nsecond"
    assert strict["messages"][1]["content"] is None and loose["messages"][1]["content"] == ""


# ------------------------------------------------------------------ learning from a 400


async def test_rejected_parameter_is_dropped_and_remembered(wire: WireServer) -> None:
    wire.chat.profile = PROFILES["litellm"]  # rejects stream_options
    wire.chat.enqueue(turn(text("one")), turn(text("two")))
    p = lenient(wire)
    assert texts(await collect(p, request())) == "one"
    first, retried = wire.chat.requests
    assert "stream_options" in first.body and "stream_options" not in retried.body
    assert texts(await collect(p, request())) == "two"
    assert len(wire.chat.requests) == 3 and "stream_options" not in wire.chat.requests[2].body


async def test_lenient_sends_the_cap_as_max_tokens(wire: WireServer) -> None:
    wire.chat.profile = PROFILES["vllm"]  # older releases reject max_completion_tokens
    wire.chat.enqueue(turn(text("one")))
    assert texts(await collect(lenient(wire), request(max_output_tokens=77))) == "one"
    (only,) = wire.chat.requests
    assert only.body["max_tokens"] == 77 and "max_completion_tokens" not in only.body


async def test_strict_mode_does_not_retry_a_rejected_parameter(wire: WireServer) -> None:
    wire.chat.profile = PROFILES["vllm"]
    p = make_provider("chat", wire)  # strict
    with pytest.raises(ProviderError, match="max_completion_tokens"):
        await collect(p, request(max_output_tokens=5))
    assert len(wire.chat.requests) == 1
    await p.aclose()


async def test_a_400_naming_nothing_we_sent_is_not_retried(wire: WireServer) -> None:
    wire.chat.enqueue(http_error(400, "model 'm' not found"))
    p = lenient(wire)
    with pytest.raises(ProviderError, match="not found"):
        await collect(p)
    assert len(wire.chat.requests) == 1 and not p.rejected_params
    await p.aclose()


async def test_two_rejected_parameters_are_learned_in_one_turn(wire: WireServer) -> None:
    wire.chat.profile = PROFILES["litellm"]  # rejects stream_options (and parallel_tool_calls)
    wire.chat.enqueue(turn(text("ok")))
    p = lenient(wire)
    assert texts(await collect(p)) == "ok"
    assert [("stream_options" in r.body) for r in wire.chat.requests] == [True, False]
    await p.aclose()


# ------------------------------------------------------------------ reading odd streams


async def test_tool_calls_without_index_or_id_with_object_arguments(wire: WireServer) -> None:
    chunk = {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": None}]}

    def delta(d: dict[str, object], finish: str | None = None) -> dict[str, object]:
        return {**chunk, "choices": [{"index": 0, "delta": d, "finish_reason": finish}]}

    calls = [
        {"type": "function", "function": {"name": "Read", "arguments": {"file_path": "a.txt"}}},
        {"type": "function", "function": {"name": "Glob", "arguments": '{"pattern": '}},
    ]
    wire.chat.enqueue(
        raw_sse(
            (None, delta({"tool_calls": calls})),
            (None, delta({"tool_calls": [{"function": {"arguments": '"*.py"}'}}]})),
            (None, delta({}, "stop")),
            (None, "[DONE]"),
        )
    )
    p = lenient(wire)
    events = await collect(p)
    starts = [e for e in events if e.type == "tool_use_start"]
    assert [s.name for s in starts] == ["Read", "Glob"]
    ids = [s.id for s in starts]
    assert len(set(ids)) == 2 and all(i.startswith("call_") for i in ids)
    assert json.loads(tool_json(events, ids[0])) == {"file_path": "a.txt"}
    assert json.loads(tool_json(events, ids[1])) == {"pattern": "*.py"}
    assert [e.id for e in events if e.type == "tool_use_end"] == ids
    end = events[-1]
    assert end.type == "message_end" and end.stop_reason == "tool_use"  # "stop" after tool calls
    await p.aclose()


async def test_reasoning_fields_stream_as_thinking(wire: WireServer) -> None:
    wire.chat.profile = PROFILES["ollama"]  # "reasoning"
    wire.chat.enqueue(turn(thinking(["let me ", "see"]), text("42")))
    p = lenient(wire)
    events = await collect(p)
    assert "".join(e.text for e in events if e.type == "thinking_delta") == "let me see"
    assert texts(events) == "42"
    await p.aclose()


async def test_missing_usage_is_estimated_and_marked(wire: WireServer) -> None:
    wire.chat.profile = PROFILES["lmstudio"]  # never sends usage
    wire.chat.enqueue(turn(text("x" * 400)))
    p = lenient(wire)
    end = (await collect(p, request([user_text("y" * 4000)])))[-1]
    assert end.type == "message_end"
    assert end.usage.output_tokens == 100
    assert 1000 <= end.usage.input_tokens <= 1100
    assert end.provider_metadata == {"openai_chat": {"usage_estimated": True}}
    await p.aclose()


async def test_reported_usage_is_not_marked(wire: WireServer) -> None:
    wire.chat.profile = PROFILES["llamacpp"]  # usage always, even unasked
    wire.chat.enqueue(turn(text("hi")))
    end = (await collect(lenient(wire)))[-1]
    assert end.type == "message_end" and end.usage.output_tokens == 42 and end.provider_metadata is None


# ------------------------------------------------------------------ a full tool session per profile


@pytest.mark.parametrize("profile", ["ollama", "vllm", "llamacpp", "lmstudio", "litellm"])
async def test_full_tool_session(profile: str, wire: WireServer, tmp_path: Path) -> None:
    """Two parallel Reads, then an answer, through `Agent` with the real tools."""
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    wire.chat.profile = PROFILES[profile]
    wire.chat.enqueue(
        turn(
            thinking("I will read both."),
            tool_call("Read", {"file_path": str(tmp_path / "a.txt")}, id="call_a"),
            tool_call("Read", {"file_path": str(tmp_path / "b.txt")}, id="call_b"),
        ),
        turn(text(["Both ", "read."])),
    )
    provider = OpenAIChatProvider(api_key="sk-local", base_url=wire.openai_url, transport=provider_kit.TRANSPORT)
    assert provider.compat == "lenient"  # chosen from the 127.0.0.1 base URL
    agent = Agent(
        provider=provider, model="m", tools=default_tools(), session_store=InMemorySessionStore(), cwd=tmp_path
    )
    async with agent:
        session = await agent.session()
        events = [e async for e in session.run("read a.txt and b.txt")]
    result = events[-1]
    assert result.type == "result" and result.subtype == "success", events
    assert result.final_text == "Both read."
    second = [r for r in wire.chat.requests if r.body and "messages" in r.body][-1].body
    tool_msgs = [m for m in second["messages"] if m["role"] == "tool"]
    assistant = next(m for m in second["messages"] if m["role"] == "assistant")
    call_ids = [c["id"] for c in assistant["tool_calls"]]
    assert [m["tool_call_id"] for m in tool_msgs] == call_ids and len(set(call_ids)) == 2
    assert "alpha" in tool_msgs[0]["content"] and "beta" in tool_msgs[1]["content"]
    assert all(isinstance(m["content"], str) for m in second["messages"])
