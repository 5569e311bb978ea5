"""The two example flows of the spec pages, reproduced event by event."""

from __future__ import annotations

from typing import Any

from skawld_core import Event, Usage
from skawld_core.permissions import CanUseToolRequest, PermissionAllow
from skawld_core.testing import ScriptedProvider, reply, text, tool_call
from tests.support.mock_tools import EmittingTool, MockRead, MockWrite

from .conftest import MakeAgent


def shape(events: list[Event]) -> list[tuple[str, Any]]:
    return [(e.type, getattr(e, "tool_use_id", None)) for e in events]


async def test_core_concepts_flow_two_parallel_tools(make_agent: MakeAgent) -> None:
    """Core concepts, "Event flow for one turn (with two parallel tools)"."""
    provider = ScriptedProvider(
        [
            reply(
                "Reading both.",
                tool_call("MockRead", {"path": "a"}, id="A"),
                tool_call("MockRead", {"path": "b"}, id="B"),
            ),
            reply("Both read."),
        ]
    )
    session = await make_agent(provider, tools=[MockRead()]).session()
    async with session.run("read a and b") as run:
        events = [e async for e in run]
    got = shape(events)
    assert got[:4] == [("system", None), ("user", None), ("assistant", None), ("usage", None)]
    tool_part = got[4:8]
    assert sorted(tool_part, key=str) == sorted(
        [("tool_call_start", "A"), ("tool_call_start", "B"), ("tool_call_end", "A"), ("tool_call_end", "B")], key=str
    )
    for tid in ("A", "B"):
        assert tool_part.index(("tool_call_start", tid)) < tool_part.index(("tool_call_end", tid))
    assert got[8:] == [("user", None), ("assistant", None), ("usage", None), ("result", None)]
    assistant = events[2]
    assert assistant.stop_reason == "tool_use"  # type: ignore[union-attr]
    assert [b.type for b in assistant.message.content] == ["text", "tool_use", "tool_use"]  # type: ignore[union-attr]
    result = events[-1]
    assert (result.subtype, result.stop_reason, result.final_text) == ("success", "end_turn", "Both read.")  # type: ignore[union-attr]


async def test_events_page_order_in_one_turn(make_agent: MakeAgent) -> None:
    """Events page, "Order in one turn": partials, assistant, usage, one permission_request,
    per-call start → tool-emitted events → end, the tool_result user message, then a
    compaction at the top of the next turn, and the terminal result."""

    async def allow(req: CanUseToolRequest) -> PermissionAllow:
        return PermissionAllow()

    big = Usage(input_tokens=950, output_tokens=5)
    history = [reply(f"turn {i}") for i in range(10)]
    provider = ScriptedProvider(
        [
            *history,
            reply(
                text("Writing.", chunk=4),
                tool_call("MockWrite", {"path": "w"}, id="W"),
                tool_call("Emitter", {"path": "e"}, id="E"),
                usage=big,
            ),
            reply("summary of the old turns"),
            reply(text("Done.", chunk=2)),
        ],
        context_window=1000,
    )
    agent = make_agent(
        provider,
        tools=[MockWrite(), EmittingTool()],
        can_use_tool=allow,
        include_partial_messages=True,
        max_output_tokens=10,
    )
    session = await agent.session()
    for i in range(10):
        async with session.run(f"warm-up {i}") as run:
            [e async for e in run]
    async with session.run("write and emit") as run:
        events = [e async for e in run]
    kinds = [e.type for e in events]
    assert kinds[:2] == ["system", "user"]
    first_assistant = kinds.index("assistant")
    assert set(kinds[2:first_assistant]) == {"partial_assistant"}
    assert kinds[first_assistant + 1] == "usage"
    assert kinds[first_assistant + 2] == "permission_request"
    write_part = shape(events)[first_assistant + 3 :]
    assert write_part[0] == ("tool_call_start", "W") and write_part[1] == ("tool_call_end", "W")
    assert write_part[2] == ("tool_call_start", "E")
    assert [k for k, _ in write_part[3:5]] == ["hook_error", "hook_error"]  # the tool's own events
    assert write_part[5] == ("tool_call_end", "E")
    rest = kinds[first_assistant + 3 + 6 :]
    assert rest[0] == "user" and rest[1] == "compaction"
    assert set(rest[2 : rest.index("assistant")]) == {"partial_assistant"}
    assert rest[-3:] == ["assistant", "usage", "result"]
    assert kinds.count("result") == 1 and kinds.count("permission_request") == 1
