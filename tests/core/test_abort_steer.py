"""Abort, interrupt and steering (reference loop.test abort cases, steering.test)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from skawld_core import (
    AbortError,
    AssistantEvent,
    ConfigError,
    Event,
    ResultEvent,
    TextBlock,
    ToolCallEndEvent,
    ToolResultBlock,
    UserEvent,
)
from skawld_core.testing import ScriptedProvider, reply, tool_call
from tests.support.mock_tools import types

from .conftest import MakeAgent


async def consume(run: Any, on_event: Any = None) -> list[Event]:
    events: list[Event] = []
    async with run:
        async for e in run:
            events.append(e)
            if on_event is not None:
                on_event(e)
    return events


async def test_abort_mid_stream_then_run_again(make_agent: MakeAgent) -> None:
    gate = asyncio.Event()
    provider = ScriptedProvider()
    provider.enqueue(reply("never"), hold=gate, hold_at=1)
    session = await make_agent(provider).session()
    run = session.run("go")
    task = asyncio.ensure_future(consume(run))
    while not provider.requests:
        await asyncio.sleep(0)
    session.abort()
    session.abort()  # idempotent
    events = await task
    assert types(events) == ["system", "user", "result"]
    result = events[-1]
    assert isinstance(result, ResultEvent) and result.subtype == "aborted" and result.stop_reason == "error"
    provider.enqueue(reply("fine"))
    again = await consume(session.run("again"))
    assert isinstance(again[-1], ResultEvent) and again[-1].subtype == "success"


async def test_abort_while_idle_does_not_poison_next_run(make_agent: MakeAgent) -> None:
    session = await make_agent(ScriptedProvider([reply("ok")])).session()
    session.abort()
    session.interrupt()
    events = await consume(session.run("x"))
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "success"


async def test_abort_before_first_event(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("never")])
    session = await make_agent(provider).session()
    run = session.run("x")
    session.abort()
    events = await consume(run)
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "aborted"
    assert "error" not in types(events)


async def test_abort_during_serial_tool_keeps_transcript_valid(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider(
        [reply(tool_call("MockExec", {"path": "a"}, id="x1"), tool_call("MockWrite", {"path": "b"}, id="w1"))]
    )
    agent = make_agent(provider, permission_mode="yolo")
    exec_tool: Any = agent.tools.get("MockExec")
    exec_tool.gate = asyncio.Event()
    session = await agent.session()
    task = asyncio.ensure_future(consume(session.run("go")))
    await exec_tool.started.wait()
    session.abort()
    events = await task
    assert exec_tool.cancelled
    assert agent.tools.get("MockWrite").calls == []  # type: ignore[union-attr]
    ends = [e for e in events if isinstance(e, ToolCallEndEvent)]
    assert [(e.tool_use_id, e.is_error, e.duration_ms) for e in ends] == [("x1", True, 0)]
    assert types(events)[-1] == "result" and "error" not in types(events)
    stored = [m.message for m in await agent.store.load_messages(session.id)]
    last = stored[-1]
    assert last.role == "user"
    assert [(b.tool_use_id, b.is_error) for b in last.content if isinstance(b, ToolResultBlock)] == [
        ("x1", True),
        ("w1", True),
    ]


async def test_abort_during_parallel_batch_synthesizes_every_orphan_end(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(*(tool_call("MockRead", {"path": p}, id=p) for p in ("a", "b")))])
    agent = make_agent(provider)
    read: Any = agent.tools.get("MockRead")
    read.gates = {"a": asyncio.Event(), "b": asyncio.Event()}
    session = await agent.session()
    task = asyncio.ensure_future(consume(session.run("go")))
    while read.running < 2:
        await asyncio.sleep(0)
    session.abort()
    events = await task
    ends = {e.tool_use_id: e for e in events if isinstance(e, ToolCallEndEvent)}
    assert set(ends) == {"a", "b"} and all(e.is_error and e.duration_ms == 0 for e in ends.values())
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "aborted"


async def test_steer_after_tool_result_is_injected_before_next_turn(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(tool_call("MockRead", {"path": "a"})), reply("done")])
    session = await make_agent(provider).session()
    futures: list[asyncio.Future[None]] = []

    def on_event(e: Event) -> None:
        if isinstance(e, UserEvent) and e.subtype == "tool_result":
            futures.append(session.steer("also do X"))

    events = await consume(session.run("go"), on_event)
    steering = [e for e in events if isinstance(e, UserEvent) and e.subtype == "steering"]
    assert len(steering) == 1
    assert steering[0].message.content == [TextBlock(text="also do X")]
    kinds = types(events)
    first_assistant = kinds.index("assistant")
    second_assistant = kinds.index("assistant", first_assistant + 1)
    assert first_assistant < events.index(steering[0]) < second_assistant
    await futures[0]
    assert provider.requests[1].messages[-1].content == [TextBlock(text="also do X")]


async def test_steer_at_stop_boundary_continues_the_run(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("first"), reply("second")])
    session = await make_agent(provider).session()

    def on_event(e: Event) -> None:
        if e.type == "usage" and provider.remaining != 0:
            session.steer("keep going")

    events = await consume(session.run("go"), on_event)
    assert [e.message.content[0] for e in events if isinstance(e, AssistantEvent)] == [
        TextBlock(text="first"),
        TextBlock(text="second"),
    ]
    assert isinstance(events[-1], ResultEvent) and events[-1].final_text == "second"


async def test_interrupt_after_tool_result(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(tool_call("MockRead", {"path": "a"}, id="t1")), reply("unused")])
    session = await make_agent(provider).session()

    def on_event(e: Event) -> None:
        if isinstance(e, UserEvent) and e.subtype == "tool_result":
            session.interrupt()

    events = await consume(session.run("go"), on_event)
    result = events[-1]
    assert isinstance(result, ResultEvent) and result.subtype == "interrupted" and result.stop_reason == "error"
    assert types(events).count("assistant") == 1
    assert provider.remaining == 1


async def test_interrupt_at_stop_boundary_is_success(make_agent: MakeAgent) -> None:
    session = await make_agent(ScriptedProvider([reply("all done")])).session()

    def on_event(e: Event) -> None:
        if e.type == "usage":
            session.interrupt()

    events = await consume(session.run("go"), on_event)
    result = events[-1]
    assert isinstance(result, ResultEvent) and result.subtype == "success" and result.final_text == "all done"


async def test_steer_and_interrupt_together(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(tool_call("MockRead", {"path": "a"})), reply("unused")])
    session = await make_agent(provider).session()
    futures: list[asyncio.Future[None]] = []

    def on_event(e: Event) -> None:
        if isinstance(e, UserEvent) and e.subtype == "tool_result":
            futures.append(session.steer("more"))
            session.interrupt()

    events = await consume(session.run("go"), on_event)
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "interrupted"
    assert "steering" not in [getattr(e, "subtype", None) for e in events]
    with pytest.raises(AbortError):
        await futures[0]


async def test_steer_pending_at_turn_limit_is_rejected(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(tool_call("MockRead", {"path": "a"}))])
    session = await make_agent(provider, max_turns=1).session()
    futures: list[asyncio.Future[None]] = []

    def on_event(e: Event) -> None:
        if e.type == "usage":
            futures.append(session.steer("late"))

    events = await consume(session.run("go"), on_event)
    assert types(events)[-2:] == ["error", "result"]
    with pytest.raises(AbortError):
        await futures[0]


async def test_steer_and_interrupt_while_idle(make_agent: MakeAgent) -> None:
    session = await make_agent(ScriptedProvider()).session()
    with pytest.raises(ConfigError):
        session.steer("nobody listens")
    session.interrupt()
    assert not session.interrupt_requested


async def test_abort_racing_the_start_of_the_run_still_ends_with_result(make_agent: MakeAgent) -> None:
    session = await make_agent(ScriptedProvider([reply("never")])).session()
    run = session.run("x")
    first = asyncio.ensure_future(run.__anext__())
    await asyncio.sleep(0)
    assert run._driver is not None and not run._driving  # the driver exists but has not taken a step
    session.abort()
    events = [await first]
    async with run:
        events += [e async for e in run]
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "aborted"


async def test_cancelling_the_consumer_propagates_and_frees_the_session(make_agent: MakeAgent) -> None:
    gate = asyncio.Event()
    provider = ScriptedProvider()
    provider.enqueue(reply("slow"), hold=gate, hold_at=1)
    session = await make_agent(provider).session()

    async def consume() -> None:
        async with session.run("x") as run:
            async for _ in run:
                pass

    task = asyncio.ensure_future(consume())
    while not provider.requests:
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not session.is_running
    provider.enqueue(reply("next"))
    events = await consume_all(session)
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "success"


async def consume_all(session: Any) -> list[Event]:
    async with session.run("again") as run:
        return [e async for e in run]
