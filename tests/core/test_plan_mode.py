"""Plan mode (issue 14, point 2, core): writes and commands are refused while planning;
ExitPlanMode asks the host, and its approval leaves plan mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skawld_core import Agent
from skawld_core.permissions import (
    CanUseToolRequest,
    PendingToolCall,
    PermissionAllow,
    PermissionDeny,
    PermissionEngine,
)
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import default_tools
from tests.support.events import tool_results

PLAN = "1. Add greet.py\n2. Test it"


class Host:
    """A `can_use_tool` that answers ExitPlanMode with `answer` and records every request."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.requests: list[CanUseToolRequest] = []

    async def __call__(self, request: CanUseToolRequest) -> Any:
        self.requests.append(request)
        if request.tool_name == "ExitPlanMode":
            return self.answer
        return PermissionDeny(message="not approved")


def make(tmp_path: Path, turns: list[Any], host: Host | None = None, mode: Any = "plan") -> Agent:
    return Agent(
        provider=ScriptedProvider([*turns, reply("done")]),
        model="m",
        tools=default_tools(),
        cwd=tmp_path,
        session_store=InMemorySessionStore(),
        permission_mode=mode,
        can_use_tool=host,
    )


async def run(agent: Agent) -> dict[str, str]:
    session = await agent.session()
    async with session.run("plan the greeting") as r:
        events = [e async for e in r]
    return tool_results(events)


async def test_plan_mode_refuses_writes_and_commands_but_reads(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    host = Host(PermissionDeny(message="keep going"))
    agent = make(
        tmp_path,
        [
            reply(
                tool_call("Read", {"file_path": "a.txt"}, id="r"),
                tool_call("Grep", {"pattern": "alpha"}, id="g"),
                tool_call("Write", {"file_path": "b.txt", "content": "x"}, id="w"),
                tool_call("Edit", {"file_path": "a.txt", "old_string": "alpha", "new_string": "beta"}, id="e"),
                tool_call("Bash", {"command": "touch c.txt"}, id="b"),
                tool_call("TaskCreate", {"subject": "write greet.py", "description": "step 1"}, id="t"),
            )
        ],
        host,
    )
    assert "ExitPlanMode" in agent.tools
    results = await run(agent)
    assert "alpha" in results["r"] and "a.txt" in results["g"]
    for tid, tool in (("w", "Write"), ("e", "Edit"), ("b", "Bash")):
        assert results[tid].startswith(f"Tool call denied: {tool} is not available in plan mode: you are planning")
        assert "ExitPlanMode" in results[tid]
    assert "is_error" not in results["t"] and "denied" not in results["t"]
    assert not (tmp_path / "b.txt").exists() and not (tmp_path / "c.txt").exists()
    assert (tmp_path / "a.txt").read_text() == "alpha\n"
    assert host.requests == []  # refusals never ask
    assert "Plan mode is active" in agent.system_blocks()[2].text


async def test_approved_plan_switches_to_the_requested_mode(tmp_path: Path) -> None:
    host = Host(PermissionAllow(set_mode="acceptEdits"))
    agent = make(
        tmp_path,
        [
            reply(tool_call("ExitPlanMode", {"plan": PLAN}, id="x")),
            reply(tool_call("Write", {"file_path": "greet.py", "content": "print('hi')\n"}, id="w")),
        ],
        host,
    )
    results = await run(agent)
    assert [r.tool_name for r in host.requests] == ["ExitPlanMode"]
    assert host.requests[0].input == {"plan": PLAN} and host.requests[0].mode == "plan"
    assert "approved your plan" in results["x"] and "acceptEdits" in results["x"]
    assert agent.permission_mode == "acceptEdits" and agent.permissions.mode == "acceptEdits"
    assert (tmp_path / "greet.py").read_text() == "print('hi')\n"
    assert "Plan mode is active" not in agent.system_blocks()[2].text


async def test_approval_without_a_mode_goes_to_default(tmp_path: Path) -> None:
    host = Host(PermissionAllow())
    agent = make(
        tmp_path,
        [
            reply(tool_call("ExitPlanMode", {"plan": PLAN}, id="x")),
            reply(tool_call("Write", {"file_path": "greet.py", "content": "x"}, id="w")),
        ],
        host,
    )
    results = await run(agent)
    assert agent.permission_mode == "default"
    assert "permission mode is now default" in results["x"]
    # default mode asks for the write; this host denies it
    assert [r.tool_name for r in host.requests] == ["ExitPlanMode", "Write"]
    assert results["w"] == "Tool call denied: not approved"


async def test_claude_code_shaped_answer_sets_the_mode(tmp_path: Path) -> None:
    answer = {"behavior": "allow", "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits"}]}
    agent = make(tmp_path, [reply(tool_call("ExitPlanMode", {"plan": PLAN}, id="x"))], Host(answer))
    await run(agent)
    assert agent.permission_mode == "acceptEdits"


async def test_an_invalid_mode_in_the_answer_is_denied(tmp_path: Path) -> None:
    agent = make(
        tmp_path,
        [reply(tool_call("ExitPlanMode", {"plan": PLAN}, id="x"))],
        Host({"behavior": "allow", "set_mode": "bogus"}),
    )
    results = await run(agent)
    assert results["x"] == "Tool call denied: permission callback returned an invalid response"
    assert agent.permission_mode == "plan"


async def test_declined_plan_keeps_planning(tmp_path: Path) -> None:
    host = Host(PermissionDeny(message="Also handle names with spaces."))
    agent = make(
        tmp_path,
        [
            reply(tool_call("ExitPlanMode", {"plan": PLAN}, id="x")),
            reply(tool_call("Write", {"file_path": "greet.py", "content": "x"}, id="w")),
        ],
        host,
    )
    results = await run(agent)
    assert results["x"] == "Tool call denied: Also handle names with spaces."
    assert agent.permission_mode == "plan"
    assert "not available in plan mode" in results["w"]


async def test_exit_plan_mode_outside_plan_mode_is_refused(tmp_path: Path) -> None:
    host = Host(PermissionAllow())
    agent = make(tmp_path, [reply(tool_call("ExitPlanMode", {"plan": PLAN}, id="x"))], host, mode="default")
    assert "ExitPlanMode" not in agent.tools  # only registered once the agent plans
    agent.set_permission_mode("plan")
    assert "ExitPlanMode" in agent.tools
    agent.set_permission_mode("yolo")
    results = await run(agent)
    assert results["x"].startswith("Tool call denied: ExitPlanMode is only for plan mode")
    assert host.requests == [] and agent.permission_mode == "yolo"


def test_plan_mode_table() -> None:
    engine = PermissionEngine(
        mode="plan", rules=[{"kind": "tool", "tool": "Bash", "decision": "allow"}], project_root=Path("/repo")
    )

    def decide(tool: str, scope: Any) -> str:
        call = PendingToolCall(tool_name=tool, tool_use_id="t", input={}, summary="", scope=scope, cwd=Path("/repo"))
        return engine.evaluate(call).behavior

    assert decide("Bash", "exec") == "deny"  # an allow rule does not run commands while planning
    assert decide("Read", "read") == "allow"
    assert decide("TaskUpdate", "write") == "allow"
    assert decide("ExitPlanMode", "exec") == "ask"
    assert decide("Subagent", "exec") == "allow"  # its own calls meet the plan-mode refusal
    assert decide("mcp__db__drop", "exec") == "deny"


def test_agent_accepts_plan_mode_and_rejects_unknown() -> None:
    from skawld_core.errors import ConfigError

    with pytest.raises(ConfigError, match="permission_mode must be one of default, acceptEdits, plan, yolo"):
        Agent(provider=ScriptedProvider([]), model="m", permission_mode="bogus")  # type: ignore[arg-type]


@pytest.mark.parametrize("hook_answer", ["allow", "ask"])
async def test_plan_mode_holds_against_a_pre_tool_use_hook(tmp_path: Path, hook_answer: str) -> None:
    from skawld_core.hooks import HookAllow, HookAsk, HookEntry, Hooks

    async def hook(inp: Any, ctx: Any) -> Any:
        return HookAllow() if hook_answer == "allow" else HookAsk()

    host = Host(PermissionAllow())
    agent = Agent(
        provider=ScriptedProvider(
            [reply(tool_call("Write", {"file_path": "x.txt", "content": "x"}, id="w")), reply("done")]
        ),
        model="m",
        tools=default_tools(),
        cwd=tmp_path,
        session_store=InMemorySessionStore(),
        permission_mode="plan",
        can_use_tool=host,
        hooks=Hooks(pre_tool_use=[HookEntry(hook)]),
    )
    results = await run(agent)
    assert "not available in plan mode" in results["w"]
    assert host.requests == [] and not (tmp_path / "x.txt").exists()
