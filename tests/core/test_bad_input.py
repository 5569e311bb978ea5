"""Bad input and failures never lose acknowledged data (issue 2, "Bad input")."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from skawld_core import ErrorEvent, Message, ResultEvent, SessionStoreError, ToolResultBlock, UserEvent
from skawld_core.permissions import CanUseToolRequest, PermissionAllow
from skawld_core.sessions import InMemorySessionStore, StoredMessage
from skawld_core.testing import FunctionProvider, ScriptedProvider, reply, tool_call
from skawld_core.transcript import NOT_RUN_MAX_TOKENS
from tests.support.mock_tools import types

from .conftest import MakeAgent


class FlakyStore(InMemorySessionStore):
    """Fails the n-th append (1-based) and every one after it while `broken`."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at
        self.appends = 0

    async def append_messages(self, id: str, messages: Sequence[Message]) -> list[StoredMessage]:
        self.appends += 1
        if self.appends == self.fail_at:
            raise SessionStoreError("disk full")
        return await super().append_messages(id, messages)


async def test_store_failure_is_error_and_result_without_losing_acknowledged_messages(make_agent: MakeAgent) -> None:
    store = FlakyStore(fail_at=2)  # the assistant message
    provider = ScriptedProvider([reply("never acknowledged"), reply("later")])
    agent = make_agent(provider, session_store=store)
    session = await agent.session()
    async with session.run("hello") as run:
        events = [e async for e in run]
    assert types(events) == ["system", "user", "error", "result"]
    assert isinstance(events[2], ErrorEvent) and events[2].error.name == "SessionStoreError"
    assert isinstance(events[3], ResultEvent) and events[3].subtype == "error"
    stored = [m.message for m in await store.load_messages(session.id)]
    assert stored == [events[1].message]  # type: ignore[union-attr]
    async with session.run("again") as run:
        again = [e async for e in run]
    assert isinstance(again[-1], ResultEvent) and again[-1].subtype == "success"


async def test_max_tokens_with_tool_use_is_answered(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider(
        [reply("partial", tool_call("MockRead", '{"path": "a', id="cut"), stop_reason="max_tokens")]
    )
    agent = make_agent(provider)
    session = await agent.session()
    async with session.run("x") as run:
        events = [e async for e in run]
    assert types(events)[-3:] == ["usage", "user", "result"]
    reply_msg = events[-2]
    assert isinstance(reply_msg, UserEvent) and reply_msg.subtype == "tool_result"
    block = reply_msg.message.content[0]
    assert isinstance(block, ToolResultBlock) and block.tool_use_id == "cut" and block.content == NOT_RUN_MAX_TOKENS
    result = events[-1]
    assert isinstance(result, ResultEvent) and result.stop_reason == "max_tokens" and result.subtype == "success"
    assert agent.tools.get("MockRead").calls == []  # type: ignore[union-attr]


async def test_abort_while_waiting_for_permission(make_agent: MakeAgent) -> None:
    waiting = asyncio.Event()
    cleaned_up: list[bool] = []

    async def slow_user(req: CanUseToolRequest) -> PermissionAllow:
        waiting.set()
        try:
            await asyncio.Event().wait()
        finally:
            cleaned_up.append(True)
        return PermissionAllow()

    provider = ScriptedProvider([reply(tool_call("MockWrite", {"path": "a"}, id="w"))])
    agent = make_agent(provider, can_use_tool=slow_user)
    session = await agent.session()

    async def consume() -> list[Any]:
        async with session.run("go") as run:
            return [e async for e in run]

    task = asyncio.ensure_future(consume())
    await waiting.wait()
    session.abort()
    events = await task
    assert cleaned_up == [True]
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "aborted"
    assert "tool_call_start" not in types(events)
    stored = [m.message for m in await agent.store.load_messages(session.id)]
    last = stored[-1].content[0]
    assert isinstance(last, ToolResultBlock) and last.tool_use_id == "w" and last.is_error


async def test_function_provider_sees_history(make_agent: MakeAgent) -> None:
    def answer(request: Any) -> Any:
        return reply(f"{len(request.messages)} messages so far")

    provider = FunctionProvider(answer)
    session = await make_agent(provider).session()  # type: ignore[arg-type]
    for expected in ("1 messages so far", "3 messages so far"):
        async with session.run("hi") as run:
            events = [e async for e in run]
        assert events[-1].final_text == expected  # type: ignore[union-attr]


async def test_scripted_provider_reports_unused_turns() -> None:
    provider = ScriptedProvider([reply("a")])
    with pytest.raises(AssertionError, match="1 scripted turn\\(s\\) were never requested"):
        provider.assert_complete()


async def test_exhausted_script_is_an_error_result(make_agent: MakeAgent) -> None:
    session = await make_agent(ScriptedProvider()).session()
    async with session.run("x") as run:
        events = [e async for e in run]
    assert isinstance(events[-2], ErrorEvent) and "no script enqueued" in events[-2].error.message
