from __future__ import annotations

from skawld_core import Agent
from skawld_core.sessions.memory import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from tests.support.mock_tools import MockRead, types


async def test_plain_text_turn() -> None:
    provider = ScriptedProvider([reply("hello")])
    agent = Agent(provider=provider, model="test-model", tools=[], session_store=InMemorySessionStore())
    session = await agent.session()
    events = [e async for e in session.run("hi")]
    assert types(events) == ["system", "user", "assistant", "usage", "result"]


async def test_tool_round_trip() -> None:
    provider = ScriptedProvider(
        [
            reply(tool_call("MockRead", {"path": "a"}, id="t1"), tool_call("MockRead", {"path": "b"}, id="t2")),
            reply("done"),
        ]
    )
    agent = Agent(provider=provider, model="m", tools=[MockRead()], session_store=InMemorySessionStore())
    session = await agent.session()
    async with session.run("go") as run:
        events = [e async for e in run]
    print(types(events))
    assert events[-1].type == "result"
    assert events[-1].final_text == "done"
