"""Compaction pieces (reference compaction.test)."""

from __future__ import annotations

from typing import Any

from skawld_core import CompactionEvent, Message, TextBlock, Usage
from skawld_core.compaction import (
    SUMMARY_PREFIX,
    KeepRecentTurns,
    UsageReport,
    last_n_turn_boundaries,
    should_compact,
    strip_response_chaining,
)
from skawld_core.hooks import HookContext, HookEntry, Hooks
from skawld_core.testing import ScriptedProvider, reply

from .conftest import MakeAgent


def convo(turns: int, trailing_user: bool = False) -> list[Message]:
    out: list[Message] = []
    for i in range(turns):
        out.append(Message(role="user", content=[TextBlock(text=f"user {i}")]))
        out.append(Message(role="assistant", content=[TextBlock(text=f"asst {i}")]))
    if trailing_user:
        out.append(Message(role="user", content=[TextBlock(text="tail")]))
    return out


def first_text(m: Message) -> str:
    block = m.content[0]
    assert isinstance(block, TextBlock)
    return block.text


def test_last_n_turn_boundaries() -> None:
    five = convo(5)
    assert last_n_turn_boundaries(five) is five
    ten = last_n_turn_boundaries(convo(10))
    assert len(ten) == 19 and first_text(ten[0]) == "asst 0"
    fifteen = last_n_turn_boundaries(convo(15))
    assert len(fifteen) == 19 and first_text(fifteen[0]) == "asst 5"
    tail = last_n_turn_boundaries(convo(12, trailing_user=True))
    assert len(tail) == 20 and first_text(tail[-1]) == "tail"
    empty: list[Message] = []
    assert last_n_turn_boundaries(empty) is empty


async def test_default_strategy_noop_and_summary() -> None:
    strategy = KeepRecentTurns()
    provider = ScriptedProvider([reply("Summary content here.")])
    for n in (7, 8):
        messages = convo(n)
        assert await strategy.compact(messages, provider=provider, model="m", usage_report=UsageReport()) is messages
    report = UsageReport()
    out = await strategy.compact(convo(15), provider=provider, model="m", usage_report=report)
    assert len(out) == 20
    assert first_text(out[0]) == f"{SUMMARY_PREFIX}\n\nSummary content here."
    assert first_text(out[1]) == "asst 5"
    assert report.usage is not None and report.usage.input_tokens == 10
    request = provider.requests[0]
    assert request.tools == [] and request.max_output_tokens == 4096 and request.cache_prompt is False
    assert request.system[0].cacheable is False


def test_strip_response_chaining_does_not_mutate() -> None:
    keep = Message(
        role="assistant",
        content=[TextBlock(text="a")],
        provider_metadata={"openai_responses": {"response_id": "r1", "output_items": [1]}},
    )
    drop = Message(
        role="assistant", content=[TextBlock(text="b")], provider_metadata={"openai_responses": {"response_id": "r2"}}
    )
    out = strip_response_chaining([keep, drop])
    assert out[0].provider_metadata == {"openai_responses": {"output_items": [1]}}
    assert out[1].provider_metadata is None
    assert keep.provider_metadata == {"openai_responses": {"response_id": "r1", "output_items": [1]}}


def test_should_compact_threshold() -> None:
    assert not should_compact(None, None, 200_000)
    assert not should_compact(Usage(input_tokens=100_000), None, 200_000)
    assert should_compact(Usage(input_tokens=155_000), 8192, 200_000)
    assert should_compact(Usage(input_tokens=161_000, cache_read_tokens=159_000), None, 200_000)


async def test_pre_compact_hook_and_custom_strategy(make_agent: MakeAgent) -> None:
    seen: list[Any] = []

    async def observe(inp: Any, ctx: HookContext) -> None:
        seen.append((inp.trigger, inp.messages_before, inp.tokens_before))
        raise RuntimeError("pc boom")

    class OneMessage:
        id = "just-one"

        async def compact(self, messages: list[Message], **_: Any) -> list[Message]:
            return [Message(role="user", content=[TextBlock(text="all of it")])]

    provider = ScriptedProvider([reply("a", usage=Usage(input_tokens=900)), reply("b")], context_window=1000)
    agent = make_agent(provider, compaction=OneMessage(), hooks=Hooks(pre_compact=[HookEntry(observe)]))
    session = await agent.session()
    async with session.run("one") as run:
        [e async for e in run]
    async with session.run("two") as run:
        events = [e async for e in run]
    compaction = next(e for e in events if isinstance(e, CompactionEvent))
    assert (compaction.messages_before, compaction.messages_after, compaction.strategy) == (3, 1, "just-one")
    assert seen == [("threshold", 3, 900)]
    assert any(e.type == "hook_error" and "pc boom" in e.message for e in events)  # type: ignore[union-attr]
    assert len(session.full_history) == 4 and len(session.provider_view) == 2


async def test_manual_compaction_between_runs(make_agent: MakeAgent) -> None:
    import pytest

    from skawld_core import ConfigError

    provider = ScriptedProvider([*(reply(f"t{i}") for i in range(12)), reply("the summary")])
    agent = make_agent(provider)
    session = await agent.session()
    for i in range(12):
        async with session.run(f"p{i}") as run:
            [e async for e in run]
    event = await session.compact()
    # asked for, it keeps only the last turn (the summary, then the last answer), not ten (issue 32)
    assert event is not None and event.messages_before == 24 and event.messages_after == 2
    assert first_text(session.provider_view[0]).endswith("the summary")
    assert len(session.full_history) == 24
    run = session.run("busy")
    with pytest.raises(ConfigError):
        await session.compact()
    await run.aclose()


async def test_a_lone_surrogate_in_the_summary_is_replaced() -> None:
    """Issue 26: the summary is stored like any message, so it must be well-formed."""
    provider = ScriptedProvider([reply("Summary \udcff here.")])
    out = await KeepRecentTurns().compact(convo(15), provider=provider, model="m", usage_report=UsageReport())
    assert first_text(out[0]) == f"{SUMMARY_PREFIX}\n\nSummary \ufffd here."
    out[0].model_dump_json()  # would raise on a lone surrogate
