"""A tool result with a lone surrogate is stored and sent back, not fatal (issue 26)."""

from __future__ import annotations

from pathlib import Path

from skawld_core import Agent, ResultEvent
from skawld_core.sessions import SqliteSessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import tool


@tool(name="Odd", scope="read")
def odd() -> str:
    """Returns text decoded with surrogateescape."""
    return "bytes \udcff here"


async def test_a_lone_surrogate_in_a_tool_result_is_replaced(tmp_path: Path) -> None:
    store = SqliteSessionStore(tmp_path / "s.db")
    agent = Agent(
        provider=ScriptedProvider([reply(tool_call("Odd", {})), reply("ok")]),
        model="m",
        tools=[odd],
        session_store=store,
        cwd=tmp_path,
        permission_mode="yolo",
    )
    async with agent:
        session = await agent.session()
        async with session.run("go") as run:
            results = [e async for e in run if isinstance(e, ResultEvent)]
        assert results[0].subtype == "success"
        stored = await store.load_messages(session.id)
    texts = [b.content for s in stored for b in s.message.content if getattr(b, "type", "") == "tool_result"]
    assert texts == ["bytes \ufffd here"]
