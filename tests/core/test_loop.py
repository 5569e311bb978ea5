"""The run loop, event by event (reference loop.test / engine.integration.test)."""

from __future__ import annotations

import asyncio
import re

import pytest

from skawld_core import (
    AssistantEvent,
    CompactionEvent,
    ConfigError,
    ContextLengthError,
    ErrorEvent,
    Event,
    PartialAssistantEvent,
    ProviderError,
    ResultEvent,
    SystemEvent,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    UsageEvent,
    UserEvent,
)
from skawld_core.providers import ThinkingConfig, ThinkingDelta
from skawld_core.testing import ScriptedProvider, reply, text, thinking, tool_call
from tests.support.mock_tools import types

from .conftest import MakeAgent


async def collect(session, prompt: str = "hi", **kw) -> list[Event]:  # type: ignore[no-untyped-def]
    async with session.run(prompt, **kw) as run:
        return [e async for e in run]


async def test_plain_text_turn_events(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("hello")])
    agent = make_agent(provider)
    session = await agent.session()
    events = await collect(session)
    assert types(events) == ["system", "user", "assistant", "usage", "result"]
    system, user, assistant, usage, result = events
    assert isinstance(system, SystemEvent)
    assert system.session_id == session.id and system.model == "test-model"
    assert isinstance(system.run_id, str) and system.run_id
    assert system.tools == sorted(system.tools)
    assert isinstance(user, UserEvent) and user.subtype == "prompt"
    assert isinstance(assistant, AssistantEvent)
    assert assistant.message.content == [TextBlock(text="hello")]
    assert assistant.stop_reason == "end_turn"
    assert isinstance(usage, UsageEvent)
    assert usage.usage == Usage(input_tokens=10, output_tokens=5)
    assert usage.cumulative.input_tokens == 10
    assert isinstance(result, ResultEvent)
    assert result.subtype == "success" and result.final_text == "hello"
    assert result.total_usage.input_tokens == 10 and result.duration_ms >= 0
    provider.assert_complete()


async def test_first_user_message_has_env_block_and_is_stored(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("ok")])
    agent = make_agent(provider)
    session = await agent.session()
    await collect(session, "do it")
    first = provider.requests[0].messages[0]
    assert isinstance(first.content[0], TextBlock)
    assert re.fullmatch(r"<env>\nToday's date: \d{4}-\d{2}-\d{2}\n</env>", first.content[0].text)
    assert first.content[1] == TextBlock(text="do it")
    stored = await agent.store.load_messages(session.id)
    assert [m.message.role for m in stored] == ["user", "assistant"]
    assert [m.seq for m in stored] == [1, 2]


async def test_provider_metadata_is_kept_and_sent_back(make_agent: MakeAgent) -> None:
    meta = {"openai_responses": {"response_id": "resp_1"}}
    provider = ScriptedProvider([reply("one", provider_metadata=meta), reply("two")])
    agent = make_agent(provider)
    session = await agent.session()
    await collect(session)
    stored = await agent.store.load_messages(session.id)
    assert stored[1].message.provider_metadata == meta
    await collect(session, "again")
    assert provider.requests[1].messages[1].provider_metadata == meta


async def test_thinking_and_partials(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(thinking("hmm"), text("hello", chunk=3))])
    agent = make_agent(provider, include_partial_messages=True)
    session = await agent.session()
    events = await collect(session)
    partials = [e for e in events if isinstance(e, PartialAssistantEvent)]
    assert [p.delta.kind for p in partials] == ["thinking", "text", "text"]
    assert "".join(p.delta.text for p in partials if p.delta.kind == "text") == "hello"
    assistant = next(e for e in events if isinstance(e, AssistantEvent))
    assert assistant.message.content == [ThinkingBlock(thinking="hmm"), TextBlock(text="hello")]
    assert types(events).index("assistant") > types(events).index("partial_assistant")


async def test_no_partials_by_default(make_agent: MakeAgent) -> None:
    agent = make_agent(ScriptedProvider([reply(text("hello", chunk=2))]))
    events = await collect(await agent.session())
    assert "partial_assistant" not in types(events)


async def test_interleaved_text_and_thinking_keep_order_and_signature(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("a", ThinkingDelta(text="t1"), ThinkingDelta(text="t2", signature="sig"), "b")])
    events = await collect(await make_agent(provider).session())
    assistant = next(e for e in events if isinstance(e, AssistantEvent))
    assert assistant.message.content == [
        TextBlock(text="a"),
        ThinkingBlock(thinking="t1t2", signature="sig"),
        TextBlock(text="b"),
    ]


async def test_tool_input_assembly_and_invalid_json(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider(
        [
            reply(tool_call("MockRead", {"path": "foo.ts"}, id="tu-1", chunks=4)),
            reply(tool_call("MockRead", "{not json", id="tu-2")),
            reply("done"),
        ]
    )
    agent = make_agent(provider)
    events = await collect(await agent.session())
    assistants = [e for e in events if isinstance(e, AssistantEvent)]
    assert assistants[0].message.content == [ToolUseBlock(id="tu-1", name="MockRead", input={"path": "foo.ts"})]
    bad = assistants[1].message.content[0]
    assert isinstance(bad, ToolUseBlock) and bad.input["__invalidJson"] is True
    assert bad.input["raw"] == "{not json"
    results = [e for e in events if isinstance(e, UserEvent) and e.subtype == "tool_result"]
    second = results[1].message.content[0]
    assert isinstance(second, ToolResultBlock) and second.is_error
    assert str(second.content).startswith("Tool input was not valid JSON")


async def test_empty_tool_input_means_empty_object(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(tool_call("MockRead", "", id="tu-1")), reply("done")])
    events = await collect(await make_agent(provider).session())
    assistant = next(e for e in events if isinstance(e, AssistantEvent))
    assert assistant.message.content[0] == ToolUseBlock(id="tu-1", name="MockRead", input={})


async def test_full_tool_round_trip_order(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(tool_call("MockRead", {"path": "x"}, id="tu-rt-1")), reply("done")])
    events = await collect(await make_agent(provider).session())
    assert types(events) == [
        "system",
        "user",
        "assistant",
        "usage",
        "tool_call_start",
        "tool_call_end",
        "user",
        "assistant",
        "usage",
        "result",
    ]
    tool_result = events[6]
    assert isinstance(tool_result, UserEvent) and tool_result.subtype == "tool_result"
    block = tool_result.message.content[0]
    assert isinstance(block, ToolResultBlock) and block.tool_use_id == "tu-rt-1" and block.content == "read x"
    result = events[-1]
    assert isinstance(result, ResultEvent) and result.final_text == "done"
    assert result.total_usage.input_tokens == 20


async def test_final_text_is_first_text_block(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("first", thinking("x"), "second")])
    events = await collect(await make_agent(provider).session())
    assert isinstance(events[-1], ResultEvent) and events[-1].final_text == "first"


async def test_max_turns_gives_turn_limit_error(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(tool_call("MockRead", {"path": str(i)})) for i in range(2)])
    events = await collect(await make_agent(provider, max_turns=2).session())
    error = events[-2]
    assert isinstance(error, ErrorEvent)
    assert error.error.name == "TurnLimitError" and "max turns" in error.error.message
    assert not error.error.retryable
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "error" and events[-1].stop_reason == "error"


async def test_many_tool_turns_without_cap_succeed(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([*(reply(tool_call("MockRead", {"path": str(i)})) for i in range(30)), reply("ok")])
    events = await collect(await make_agent(provider).session())
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "success"


async def test_non_retryable_provider_error(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider()
    provider.fail(ProviderError("bad request", status=400, retryable=False))
    agent = make_agent(provider)
    session = await agent.session()
    events = await collect(session)
    assert types(events) == ["system", "user", "error", "result"]
    error = events[2]
    assert isinstance(error, ErrorEvent)
    assert error.error.name == "ProviderError" and error.error.message == "bad request"
    assert error.error.retryable is False
    result = events[3]
    assert isinstance(result, ResultEvent) and result.subtype == "error" and result.stop_reason == "error"
    # The session stays usable and intact.
    provider.enqueue(reply("fine"))
    again = await collect(session, "retry")
    assert isinstance(again[-1], ResultEvent) and again[-1].subtype == "success"


async def test_request_options_are_passed(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("a"), reply("b")])
    agent = make_agent(provider, cache_ttl="1h", max_retries=3)
    session = await agent.session()
    await collect(session, thinking=ThinkingConfig(budget_tokens=4000), effort="max", temperature=0.2)
    req = provider.requests[0]
    assert req.cache_ttl == "1h" and req.max_retries == 3 and req.cache_prompt is True
    assert req.thinking == ThinkingConfig(budget_tokens=4000) and req.effort == "max" and req.temperature == 0.2
    await collect(session)
    assert provider.requests[1].thinking is None and provider.requests[1].effort is None


async def test_cache_ttl_absent_when_unset(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("a")])
    await collect(await make_agent(provider).session())
    assert provider.requests[0].cache_ttl is None
    assert "cache_ttl" not in provider.requests[0].model_dump(exclude_none=True)


async def test_run_level_max_output_tokens_wins(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("a"), reply("b")])
    session = await make_agent(provider, max_output_tokens=1000).session()
    await collect(session, max_output_tokens=50)
    await collect(session)
    assert [r.max_output_tokens for r in provider.requests] == [50, 1000]


async def test_images_are_appended_to_the_prompt(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("a")])
    session = await make_agent(provider).session()
    await collect(session, images=[{"data": "aGk=", "media_type": "image/png"}, {"url": "https://x/y.png"}])
    content = provider.requests[0].messages[0].content
    assert [b.type for b in content] == ["text", "text", "image", "image"]


async def test_second_run_while_active_raises(make_agent: MakeAgent) -> None:
    gate = asyncio.Event()
    provider = ScriptedProvider()
    provider.enqueue(reply("slow"), hold=gate)
    session = await make_agent(provider).session()
    run = session.run("one")
    with pytest.raises(ConfigError, match="Session already has an active run"):
        session.run("two")
    gate.set()
    async with run:
        assert [e.type async for e in run][-1] == "result"
    provider.enqueue(reply("next"))
    assert (await collect(session))[-1].type == "result"


async def test_break_after_result_frees_session(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("a"), reply("b")])
    session = await make_agent(provider).session()
    async for event in session.run("x"):
        if event.type == "result":
            break
    assert not session.is_running
    assert (await collect(session))[-1].type == "result"


async def test_leaving_async_with_early_frees_session_and_keeps_transcript_valid(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(tool_call("MockExec", {"path": "p"}, id="t1")), reply("after")])
    agent = make_agent(provider, permission_mode="yolo")
    exec_tool = agent.tools.get("MockExec")
    exec_tool.gate = asyncio.Event()  # type: ignore[union-attr]
    session = await agent.session()
    async with session.run("go") as run:
        async for event in run:
            if event.type == "tool_call_start":
                break
    assert not session.is_running
    assert exec_tool.calls == []  # it never started: the loop waits for its consumer
    stored = [m.message for m in await agent.store.load_messages(session.id)]
    last = stored[-1].content[0]
    assert isinstance(last, ToolResultBlock) and last.tool_use_id == "t1" and last.is_error


async def test_compaction_on_threshold_before_assistant(make_agent: MakeAgent) -> None:
    big = Usage(input_tokens=900, output_tokens=5)
    turns = [reply(f"turn {i}") for i in range(10)]
    provider = ScriptedProvider(
        [*turns, reply("turn 10", usage=big), reply("summary text"), reply("after")], context_window=1000
    )
    agent = make_agent(provider, max_output_tokens=100)
    session = await agent.session()
    for i in range(11):
        assert "compaction" not in types(await collect(session, f"p{i}"))
    events = await collect(session, "final")
    kinds = types(events)
    assert kinds.index("compaction") < kinds.index("assistant")
    compaction = next(e for e in events if isinstance(e, CompactionEvent))
    assert compaction.strategy == "default-keep-recent-10"
    assert compaction.tokens_before == 900 and compaction.tokens_after == 0
    assert compaction.summary_usage == Usage(
        input_tokens=10, output_tokens=5, cache_read_tokens=0, cache_creation_tokens=0
    )
    assert len(session.full_history) > len(session.provider_view)
    first = session.provider_view[0].content[0]
    assert isinstance(first, TextBlock) and first.text.startswith("<summary of earlier conversation>\n\nsummary text")
    stored = await agent.store.load_messages(session.id)
    assert len(stored) == len(session.full_history)


async def test_context_length_error_is_recovered_once(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(f"t{i}") for i in range(10)])
    agent = make_agent(provider)
    session = await agent.session()
    for i in range(10):
        await collect(session, f"p{i}")
    provider.fail(ContextLengthError("prompt is too long"))
    provider.enqueue(reply("summary"))
    provider.enqueue(reply("recovered"))
    events = await collect(session, "more")
    kinds = types(events)
    assert kinds[kinds.index("compaction") + 1] == "assistant"
    assert isinstance(events[-1], ResultEvent) and events[-1].final_text == "recovered"


async def test_second_context_length_error_in_a_turn_escapes(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(f"t{i}") for i in range(10)])
    session = await make_agent(provider).session()
    for i in range(10):
        await collect(session, f"p{i}")
    provider.fail(ContextLengthError("prompt is too long"))
    provider.enqueue(reply("summary"))
    provider.fail(ContextLengthError("prompt is too long"))
    events = await collect(session, "more")
    assert types(events)[-3:] == ["compaction", "error", "result"]
    assert isinstance(events[-2], ErrorEvent) and events[-2].error.name == "ContextLengthError"


async def test_context_length_error_without_anything_to_compact_reraises(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider()
    provider.fail(ContextLengthError("prompt is too long"))
    events = await collect(await make_agent(provider).session())
    assert types(events) == ["system", "user", "error", "result"]
