"""Tool scheduling through the loop (reference scheduler.test, engine.integration.test)."""

from __future__ import annotations

import asyncio
from typing import Any

from skawld_core import (
    Event,
    HookErrorEvent,
    PermissionRequestEvent,
    ResultEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolResultBlock,
    UserEvent,
)
from skawld_core.permissions import CanUseToolRequest, PermissionAllow, PermissionDeny
from skawld_core.scheduler import default_tool_concurrency
from skawld_core.testing import ScriptedProvider, reply, tool_call
from tests.support.mock_tools import EmittingTool, MockRead, types

from .conftest import MakeAgent


async def run_all(agent: Any, prompt: str = "go") -> list[Event]:
    session = await agent.session()
    async with session.run(prompt) as run:
        return [e async for e in run]


def tool_results(events: list[Event]) -> list[ToolResultBlock]:
    out: list[ToolResultBlock] = []
    for e in events:
        if isinstance(e, UserEvent) and e.subtype == "tool_result":
            out.extend(b for b in e.message.content if isinstance(b, ToolResultBlock))
    return out


def one_turn(*calls: list[Any]) -> ScriptedProvider:
    return ScriptedProvider([reply(*calls), reply("done")])


async def test_unknown_tool_is_bracketed_error(make_agent: MakeAgent) -> None:
    events = await run_all(make_agent(one_turn(tool_call("Nope", {}, id="t1"))))
    start = next(e for e in events if isinstance(e, ToolCallStartEvent))
    end = next(e for e in events if isinstance(e, ToolCallEndEvent))
    assert start.tool_name == "Nope" and end.is_error
    assert tool_results(events)[0].content == "Tool 'Nope' is not registered"


async def test_invalid_input_never_executes(make_agent: MakeAgent) -> None:
    agent = make_agent(one_turn(tool_call("MockRead", {"wrong": 1}, id="t1")))
    events = await run_all(agent)
    result = tool_results(events)[0]
    assert result.is_error and "path" in str(result.content)
    assert agent.tools.get("MockRead").calls == []  # type: ignore[union-attr]


async def test_rule_deny_is_not_executed(make_agent: MakeAgent) -> None:
    agent = make_agent(
        one_turn(tool_call("MockWrite", {"path": "a"}, id="t1")),
        permission_rules=[{"kind": "tool", "tool": "MockWrite", "decision": "deny"}],
    )
    events = await run_all(agent)
    result = tool_results(events)[0]
    assert result.is_error and str(result.content).startswith("Tool call denied")
    assert agent.tools.get("MockWrite").calls == []  # type: ignore[union-attr]
    assert "permission_request" not in types(events)


async def test_ask_allow_with_updated_input(make_agent: MakeAgent) -> None:
    seen: list[CanUseToolRequest] = []
    order: list[str] = []

    async def can_use_tool(req: CanUseToolRequest) -> PermissionAllow:
        seen.append(req)
        order.append("callback")
        return PermissionAllow(updated_input={"path": "/staged"})

    agent = make_agent(one_turn(tool_call("MockWrite", {"path": "a"}, id="t1")), can_use_tool=can_use_tool)
    session = await agent.session()
    events: list[Event] = []
    async with session.run("go") as run:
        async for e in run:
            events.append(e)
            if isinstance(e, PermissionRequestEvent):
                order.append("event")
    assert order == ["event", "callback"]
    request = next(e for e in events if isinstance(e, PermissionRequestEvent))
    assert [r.tool_use_id for r in request.requests] == ["t1"]
    assert seen[0].tool_name == "MockWrite" and seen[0].mode == "default" and seen[0].input == {"path": "a"}
    start = next(e for e in events if isinstance(e, ToolCallStartEvent))
    assert start.input == {"path": "/staged"}
    assert agent.tools.get("MockWrite").calls == ["/staged"]  # type: ignore[union-attr]
    kinds = types(events)
    assert kinds.index("permission_request") < kinds.index("tool_call_start")
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "success"


async def test_ask_deny(make_agent: MakeAgent) -> None:
    async def can_use_tool(req: CanUseToolRequest) -> PermissionDeny:
        return PermissionDeny(message="nope")

    agent = make_agent(one_turn(tool_call("MockWrite", {"path": "a"}, id="t1")), can_use_tool=can_use_tool)
    events = await run_all(agent)
    end = next(e for e in events if isinstance(e, ToolCallEndEvent))
    assert end.is_error
    assert tool_results(events)[0].content == "Tool call denied: nope"


async def test_no_callback_means_deny(make_agent: MakeAgent) -> None:
    events = await run_all(make_agent(one_turn(tool_call("MockExec", {"path": "a"}, id="t1"))))
    assert tool_results(events)[0].content == "Tool call denied: canUseTool callback is not configured"


async def test_several_asks_one_request_event(make_agent: MakeAgent) -> None:
    calls: list[str] = []

    async def can_use_tool(req: CanUseToolRequest) -> PermissionAllow:
        calls.append(req.tool_use_id)
        return PermissionAllow()

    agent = make_agent(
        one_turn(
            tool_call("MockWrite", {"path": "a"}, id="w1"),
            tool_call("MockRead", {"path": "r"}, id="r1"),
            tool_call("MockExec", {"path": "b"}, id="x1"),
        ),
        can_use_tool=can_use_tool,
    )
    events = await run_all(agent)
    requests = [e for e in events if isinstance(e, PermissionRequestEvent)]
    assert len(requests) == 1
    assert [r.tool_use_id for r in requests[0].requests] == ["w1", "x1"]
    assert calls == ["w1", "x1"]


async def test_yolo_has_no_permission_request(make_agent: MakeAgent) -> None:
    events = await run_all(make_agent(one_turn(tool_call("MockExec", {"path": "a"})), permission_mode="yolo"))
    assert "permission_request" not in types(events)
    assert not tool_results(events)[0].is_error


async def test_tool_that_raises(make_agent: MakeAgent) -> None:
    events = await run_all(make_agent(one_turn(tool_call("MockAlwaysFail", {"path": "a"})), permission_mode="yolo"))
    assert tool_results(events)[0].content == "Tool failed: kaboom"
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "success"


class BarrierRead(MockRead):
    """Each call waits until all `parties` calls are running at once."""

    def __init__(self, parties: int) -> None:
        super().__init__()
        self.parties = parties
        self.all_in = asyncio.Event()

    async def execute(self, value: Any, ctx: Any) -> Any:
        self.running += 1
        self.max_running = max(self.max_running, self.running)
        if self.running == self.parties:
            self.all_in.set()
        try:
            await asyncio.wait_for(self.all_in.wait(), timeout=5)
        finally:
            self.running -= 1
        return await super().execute(value, ctx)


async def test_parallel_reads_overlap_and_keep_block_order(make_agent: MakeAgent) -> None:
    read = BarrierRead(3)
    agent = make_agent(
        one_turn(*(tool_call("MockRead", {"path": p}, id=f"id-{p}") for p in ("a", "b", "c"))), tools=[read]
    )
    events = await run_all(agent)
    assert read.max_running == 3 and read.all_in.is_set()
    ends = [e.tool_use_id for e in events if isinstance(e, ToolCallEndEvent)]
    assert set(ends) == {"id-a", "id-b", "id-c"}
    assert all(not r.is_error for r in tool_results(events))
    assert [r.tool_use_id for r in tool_results(events)] == ["id-a", "id-b", "id-c"]
    kinds = [(e.type, getattr(e, "tool_use_id", None)) for e in events]
    for tid in ("id-a", "id-b", "id-c"):
        assert kinds.index(("tool_call_start", tid)) < kinds.index(("tool_call_end", tid))
    assert kinds.index(("tool_call_end", "id-c")) < [k for k, _ in kinds].index("user", 2)


async def test_adjacent_batches_follow_model_order(make_agent: MakeAgent) -> None:
    agent = make_agent(
        one_turn(
            tool_call("MockRead", {"path": "1"}, id="r1"),
            tool_call("MockRead", {"path": "2"}, id="r2"),
            tool_call("MockWrite", {"path": "w"}, id="w1"),
            tool_call("MockRead", {"path": "3"}, id="r3"),
        ),
        permission_mode="yolo",
    )
    events = await run_all(agent)
    seq = [(e.type, e.tool_use_id) for e in events if isinstance(e, ToolCallStartEvent | ToolCallEndEvent)]
    w_start = seq.index(("tool_call_start", "w1"))
    assert ("tool_call_end", "r1") in seq[:w_start] and ("tool_call_end", "r2") in seq[:w_start]
    assert seq.index(("tool_call_end", "w1")) < seq.index(("tool_call_start", "r3"))


async def test_concurrency_cap(make_agent: MakeAgent, monkeypatch: Any) -> None:
    monkeypatch.setenv("SKAWLD_MAX_TOOL_CONCURRENCY", "2")
    read = MockRead()
    agent = make_agent(one_turn(*(tool_call("MockRead", {"path": str(i)}) for i in range(6))), tools=[read])
    assert agent.tool_concurrency == 2
    await run_all(agent)
    assert read.max_running <= 2 and len(read.calls) == 6


def test_default_tool_concurrency_parsing() -> None:
    assert default_tool_concurrency({}) == 10
    assert default_tool_concurrency({"SKAWLD_MAX_TOOL_CONCURRENCY": "3"}) == 3
    assert default_tool_concurrency({"SKAWLD_MAX_TOOL_CONCURRENCY": "abc"}) == 10
    assert default_tool_concurrency({"SKAWLD_MAX_TOOL_CONCURRENCY": "0"}) == 10
    assert default_tool_concurrency({"SKAWLD_MAX_TOOL_CONCURRENCY": "-4"}) == 10


async def test_tool_emitted_events_sit_between_start_and_end(make_agent: MakeAgent) -> None:
    agent = make_agent(
        one_turn(tool_call("Emitter", {"path": "a"}, id="e1"), tool_call("Emitter", {"path": "b"}, id="e2")),
        tools=[EmittingTool()],
    )
    events = await run_all(agent)
    for tid, path in (("e1", "a"), ("e2", "b")):
        idx = [i for i, e in enumerate(events) if getattr(e, "tool_use_id", None) == tid]
        kinds = [events[i].type for i in idx]
        assert kinds[0] == "tool_call_start" and kinds[-1] == "tool_call_end"
        messages = [e.message for e in (events[i] for i in idx) if isinstance(e, HookErrorEvent)]
        assert messages == [f"{path} 1", f"{path} 2"]


async def test_callback_that_raises_or_returns_garbage_fails_closed(make_agent: MakeAgent) -> None:
    async def raising(req: CanUseToolRequest) -> PermissionAllow:
        raise RuntimeError("ui crashed")

    events = await run_all(make_agent(one_turn(tool_call("MockWrite", {"path": "a"})), can_use_tool=raising))
    assert tool_results(events)[0].content == "Tool call denied: permission callback failed or aborted"

    async def garbage(req: CanUseToolRequest) -> Any:
        return {"behavior": "maybe"}

    events = await run_all(make_agent(one_turn(tool_call("MockWrite", {"path": "a"})), can_use_tool=garbage))
    assert tool_results(events)[0].content == "Tool call denied: permission callback returned an invalid response"

    async def bad_update(req: CanUseToolRequest) -> PermissionAllow:
        return PermissionAllow(updated_input={"path": 5, "extra": True})

    events = await run_all(make_agent(one_turn(tool_call("MockWrite", {"path": "a"})), can_use_tool=bad_update))
    assert tool_results(events)[0].content == "Tool call denied: updated input is invalid"
