"""Subagents through a real Agent with ScriptedProvider (§2.16, runner.test,
subagent-e2e.test): envelopes, tool filtering, store linkage, parallel runs,
aborts, nesting."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from ext_helpers import MockExec, make_agent, types, unwrap, write_agent

from skawld_core.events import Event, SubagentEvent, ToolCallEndEvent, ToolCallStartEvent, UserEvent
from skawld_core.messages import ToolResultBlock
from skawld_core.providers.base import ThinkingConfig
from skawld_core.testing import ScriptedProvider, reply, tool_call
from tests.support.nesting import Delegate, is_child

pytestmark = pytest.mark.timeout(30)


def tool_result(events: list[Event], tool_use_id: str) -> ToolResultBlock:
    for e in events:
        if isinstance(e, UserEvent):
            for b in e.message.content:
                if isinstance(b, ToolResultBlock) and b.tool_use_id == tool_use_id:
                    return b
    raise AssertionError(f"no result for {tool_use_id}")


async def test_default_spawn_wraps_every_child_event(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue(reply(tool_call("Subagent", {"description": "look", "prompt": "CHILD find x"}, id="sa")))
    provider.enqueue(reply(tool_call("MockExec", {"path": "p"}, id="c1")), match=is_child("CHILD"))
    provider.enqueue(reply("found ", "it"), match=is_child("CHILD"))
    provider.enqueue(reply("parent done"))
    agent = make_agent(tmp_path, provider, tools=[MockExec()], permission_mode="yolo")
    session = await agent.session()
    events = [e async for e in session.run("go")]
    assert events[-1].final_text == "parent done"

    start = next(i for i, e in enumerate(events) if isinstance(e, ToolCallStartEvent) and e.tool_use_id == "sa")
    end = next(i for i, e in enumerate(events) if isinstance(e, ToolCallEndEvent) and e.tool_use_id == "sa")
    wrapped = [e for e in events if isinstance(e, SubagentEvent)]
    assert all(start < events.index(e) < end for e in wrapped)
    inner = [w.event for w in wrapped]
    assert inner[0].type == "system" and inner[-1].type == "result"
    assert {w.display_name for w in wrapped} == {"Agent #1"}
    assert {w.subagent_type for w in wrapped} == {"_default"}
    assert {w.parent_session_id for w in wrapped} == {session.id}
    run_id = wrapped[0].subagent_run_id
    assert run_id.startswith("sa_") and len(run_id) == 11
    assert tool_result(events, "sa").content == "found it"
    # every non-Subagent tool; the child's own system event lists them
    assert inner[0].tools == ["MockExec"]
    child_req = next(r for r in provider.requests if is_child("CHILD")(r))
    assert [t.name for t in child_req.tools] == ["MockExec"]
    assert "general-purpose subagent" in child_req.system[3].text

    # the child session is persisted in the same store, linked to its parent
    child_id = inner[0].session_id
    record = await agent.store.load(child_id)
    assert record is not None
    assert record.meta["parent_session_id"] == session.id
    assert record.meta["subagent_type"] == "_default"
    assert record.meta["subagent_run_id"] == run_id
    assert record.meta["display_name"] == "Agent #1"
    assert len(await agent.store.load_messages(child_id)) == 4
    listed = {r.id for r in await agent.store.list_sessions()}
    assert {session.id, child_id} <= listed
    await agent.close()


async def test_named_agent_body_allowlist_and_model(tmp_path: Path) -> None:
    write_agent(
        tmp_path / ".skawld",
        "researcher.md",
        "description: digs\ntools: Bash(npm:*), MockExec, Nope\nmodel: small-model\ncolor: red",
        "You research things.",
    )
    provider = ScriptedProvider()
    provider.enqueue(
        reply(tool_call("Subagent", {"description": "d", "prompt": "CHILD", "subagent_type": "Researcher"}, id="s"))
    )
    provider.enqueue(reply(tool_call("Subagent", {"description": "n", "prompt": "x"}, id="n")), match=is_child("CHILD"))
    provider.enqueue(reply("report"), match=is_child("CHILD"))
    provider.enqueue(reply("ok"))
    agent = make_agent(tmp_path, provider, tools=[MockExec()], permission_mode="yolo")
    session = await agent.session()
    assert "- researcher: digs" in agent.tools.get("Subagent").description  # type: ignore[union-attr]
    events = [e async for e in session.run("go")]
    wrapped = [e for e in events if isinstance(e, SubagentEvent)]
    assert {w.display_name for w in wrapped} == {"researcher"}
    child_reqs = [r for r in provider.requests if is_child("CHILD")(r)]
    assert [t.name for t in child_reqs[0].tools] == ["MockExec"]  # Bash absent, Nope dropped
    assert child_reqs[0].system[3].text.endswith("You research things.")
    assert [r.model for r in child_reqs] == ["small-model", "small-model"]
    # SC#9: a child calling Subagent gets the unknown-tool result
    assert tool_result([w.event for w in wrapped], "n").content == "Tool 'Subagent' is not registered"
    assert tool_result(events, "s").content == "report"
    await agent.close()


async def test_unknown_type_and_empty_output(tmp_path: Path) -> None:
    write_agent(tmp_path / ".skawld", "a.md", "description: a")
    provider = ScriptedProvider()
    provider.enqueue(
        reply(
            tool_call("Subagent", {"description": "d", "prompt": "p", "subagent_type": "ghost"}, id="u"),
            tool_call("Subagent", {"description": "d", "prompt": "CHILD"}, id="e"),
        )
    )
    provider.enqueue(reply(tool_call("MockExec", {"path": "x"}), stop_reason="max_tokens"), match=is_child("CHILD"))
    provider.enqueue(reply("ok"))
    agent = make_agent(tmp_path, provider, tools=[MockExec()], permission_mode="yolo")
    session = await agent.session()
    events = [e async for e in session.run("go")]
    unknown = tool_result(events, "u")
    assert unknown.is_error
    assert unknown.content == (
        "Unknown subagent_type 'ghost'. Available: a. Or omit subagent_type to use the built-in default."
    )
    empty = tool_result(events, "e")
    assert (empty.content, empty.is_error) == ("Subagent produced no text output.", True)
    await agent.close()


async def test_child_error_result(tmp_path: Path) -> None:
    from skawld_core.errors import ProviderError

    provider = ScriptedProvider()
    provider.enqueue(reply(tool_call("Subagent", {"description": "d", "prompt": "CHILD"}, id="s")))
    provider.enqueue(reply("x"), raise_before=ProviderError("upstream broke"), match=is_child("CHILD"))
    provider.enqueue(reply("ok"))
    agent = make_agent(tmp_path, provider, permission_mode="yolo")
    session = await agent.session()
    events = [e async for e in session.run("go")]
    result = tool_result(events, "s")
    assert result.is_error
    assert result.content == "Subagent encountered an error: ProviderError: upstream broke."
    await agent.close()


async def test_two_parallel_subagents_interleave(tmp_path: Path) -> None:
    gate_a, gate_b = asyncio.Event(), asyncio.Event()
    provider = ScriptedProvider()
    provider.enqueue(
        reply(
            tool_call("Subagent", {"description": "a", "prompt": "CHILD-A"}, id="a"),
            tool_call("Subagent", {"description": "b", "prompt": "CHILD-B"}, id="b"),
        )
    )
    provider.enqueue(reply("answer A"), hold=gate_a, hold_at=1, match=is_child("CHILD-A"))
    provider.enqueue(reply("answer B"), hold=gate_b, hold_at=1, match=is_child("CHILD-B"))
    provider.enqueue(reply("both done"))
    agent = make_agent(tmp_path, provider, permission_mode="yolo")
    session = await agent.session()
    events: list[Event] = []
    prompts_seen: set[str] = set()
    async with session.run("go") as run:
        async for e in run:
            events.append(e)
            if isinstance(e, SubagentEvent) and e.event.type == "user":
                prompts_seen.add(e.display_name)
                if prompts_seen == {"Agent #1", "Agent #2"}:
                    gate_b.set()  # B finishes first, then A
            if isinstance(e, SubagentEvent) and e.event.type == "result" and e.display_name == "Agent #2":
                gate_a.set()
    assert events[-1].final_text == "both done"
    by_agent = [e.display_name for e in events if isinstance(e, SubagentEvent)]
    first_a, last_a = by_agent.index("Agent #1"), len(by_agent) - 1 - by_agent[::-1].index("Agent #1")
    assert "Agent #2" in by_agent[first_a:last_a]  # interleaved, not one after the other
    results = {tid: tool_result(events, tid).content for tid in ("a", "b")}
    names = {w.subagent_run_id: w.display_name for w in events if isinstance(w, SubagentEvent)}
    assert len(names) == 2
    assert sorted(results.values()) == ["answer A", "answer B"]
    await agent.close()


async def test_abort_in_child_gives_error_result_and_parent_continues(tmp_path: Path) -> None:
    hold = asyncio.Event()
    provider = ScriptedProvider()
    provider.enqueue(reply(tool_call("Subagent", {"description": "d", "prompt": "CHILD"}, id="s")))
    provider.enqueue(reply("never"), hold=hold, hold_at=0, match=is_child("CHILD"))
    provider.enqueue(reply("parent goes on"))
    agent = make_agent(tmp_path, provider, permission_mode="yolo")
    session = await agent.session()
    registry = agent.extensions["subagents"]
    events: list[Event] = []
    async for e in session.run("go"):
        events.append(e)
        if isinstance(e, SubagentEvent) and e.event.type == "user":
            [child] = registry.live.values()
            child.abort()
    result = tool_result(events, "s")
    assert (result.content, result.is_error) == ("Subagent aborted before producing output.", True)
    inner = [e.event for e in events if isinstance(e, SubagentEvent)]
    assert inner[-1].type == "result" and inner[-1].subtype == "aborted"
    assert events[-1].final_text == "parent goes on"
    assert registry.live == {}
    await agent.close()


async def test_parent_abort_cancels_both_children(tmp_path: Path) -> None:
    hold = asyncio.Event()
    provider = ScriptedProvider()
    provider.enqueue(
        reply(
            tool_call("Subagent", {"description": "a", "prompt": "CHILD-A"}, id="a"),
            tool_call("Subagent", {"description": "b", "prompt": "CHILD-B"}, id="b"),
        )
    )
    provider.enqueue(reply("A"), hold=hold, match=is_child("CHILD-A"))
    provider.enqueue(reply("B"), hold=hold, match=is_child("CHILD-B"))
    agent = make_agent(tmp_path, provider, permission_mode="yolo")
    session = await agent.session()
    registry = agent.extensions["subagents"]
    events: list[Event] = []
    seen: set[str] = set()
    async for e in session.run("go"):
        events.append(e)
        if isinstance(e, SubagentEvent) and e.event.type == "user":
            seen.add(e.display_name)
            if len(seen) == 2:
                children = list(registry.live.values())
                session.abort()
    assert events[-1].type == "result" and events[-1].subtype == "aborted"
    starts = {e.tool_use_id for e in events if isinstance(e, ToolCallStartEvent)}
    ends = {e.tool_use_id for e in events if isinstance(e, ToolCallEndEvent)}
    assert starts == ends == {"a", "b"}  # no orphan starts
    assert registry.live == {}
    assert len(children) == 2 and not any(c.is_running for c in children)
    await agent.close()


async def test_nested_envelopes_two_levels(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue(reply(tool_call("Subagent", {"description": "d", "prompt": "OUTER"}, id="s")))
    provider.enqueue(reply(tool_call("Delegate", {"prompt": "INNER"}, id="d")), match=is_child("OUTER"))
    provider.enqueue(reply("inner text"), match=is_child("INNER"))
    provider.enqueue(reply("outer text"), match=is_child("OUTER"))
    provider.enqueue(reply("top"))
    agent = make_agent(tmp_path, provider, tools=[Delegate()], permission_mode="yolo")
    session = await agent.session()
    events = [e async for e in session.run("go")]
    paths = [unwrap(e) for e in events if isinstance(e, SubagentEvent)]
    nested = [(p, inner.type) for p, inner in paths if len(p) == 2]
    assert nested and all(p == ["Agent #1", "Inner"] for p, _ in nested)
    nested_types = [t for _, t in nested]
    assert nested_types[0] == "system" and nested_types[-1] == "result"
    assert tool_result(events, "s").content == "outer text"
    # the nested child links to the outer child
    outer_id = next(inner.session_id for p, inner in paths if p == ["Agent #1"] and inner.type == "system")
    inner_id = next(inner.session_id for p, inner in paths if p == ["Agent #1", "Inner"] and inner.type == "system")
    record = await agent.store.load(inner_id)
    assert record is not None and record.meta["parent_session_id"] == outer_id
    await agent.close()


async def test_thinking_and_effort_inherited(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue(reply(tool_call("Subagent", {"description": "d", "prompt": "CHILD"})))
    provider.enqueue(reply("x"), match=is_child("CHILD"))
    provider.enqueue(reply("ok"))
    agent = make_agent(tmp_path, provider, permission_mode="yolo")
    session = await agent.session()
    [e async for e in session.run("go", thinking=ThinkingConfig(budget_tokens=1024), effort="high", temperature=0.3)]
    child = next(r for r in provider.requests if is_child("CHILD")(r))
    assert child.thinking == ThinkingConfig(budget_tokens=1024) and child.effort == "high"
    assert child.temperature is None
    await agent.close()


async def test_subagent_starts_unasked_but_its_bash_call_asks(tmp_path: Path) -> None:
    """Like Claude Code's Task tool: spawning does not ask, the child's own calls do."""
    from skawld_core.permissions import CanUseToolRequest, PermissionDeny
    from skawld_core.tools.bash import BashTool

    provider = ScriptedProvider()
    provider.enqueue(reply(tool_call("Subagent", {"description": "d", "prompt": "CHILD run it"}, id="s")))
    provider.enqueue(reply(tool_call("Bash", {"command": "touch made"}, id="b")), match=is_child("CHILD"))
    provider.enqueue(reply("child done"), match=is_child("CHILD"))
    provider.enqueue(reply("parent done"))
    asked: list[CanUseToolRequest] = []

    async def can_use_tool(request: CanUseToolRequest) -> PermissionDeny:
        asked.append(request)
        return PermissionDeny(message="not now")

    agent = make_agent(tmp_path, provider, tools=[BashTool()], can_use_tool=can_use_tool)
    session = await agent.session()
    events = [e async for e in session.run("go")]
    assert [(r.tool_name, r.input.get("command")) for r in asked] == [("Bash", "touch made")]
    assert not (tmp_path / "made").exists()
    assert tool_result(events, "s").content == "child done"
    assert events[-1].final_text == "parent done"
    await agent.close()


async def test_a_deny_rule_still_stops_the_subagent_tool(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply(tool_call("Subagent", {"description": "d", "prompt": "p"}, id="s")), reply("k")])
    agent = make_agent(tmp_path, provider, permission_rules=[{"kind": "tool", "tool": "Subagent", "decision": "deny"}])
    session = await agent.session()
    events = [e async for e in session.run("go")]
    assert "permission_request" not in types(events)
    assert tool_result(events, "s").is_error
    await agent.close()
