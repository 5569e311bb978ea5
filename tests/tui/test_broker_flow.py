"""`PermissionBroker` over a real Agent and engine, with a recording `PermissionAsker` (the UI side)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from skawld_core import Agent
from skawld_core.permissions import CanUseToolRequest, PermissionAllow, PermissionDeny
from skawld_core.permissions.suggest import RuleOffer
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider
from skawld_core.tools import BashTool
from skawld_tui.permission_broker import PermissionAnswer, PermissionBroker


@dataclass
class Plan:
    choice: str
    feedback: str = ""
    interrupt: bool = False


@dataclass
class Recorder:
    answers: list[PermissionAnswer]
    asked: list[tuple[str, RuleOffer]] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    interrupted: int = 0
    plan: Plan | None = None

    async def ask_permission(self, req: CanUseToolRequest, offer: RuleOffer) -> PermissionAnswer | None:
        self.asked.append((str(req.input.get("command")), offer))
        return self.answers.pop(0) if self.answers else None

    async def ask_plan(self, req: CanUseToolRequest) -> Plan | None:
        return self.plan

    def interrupt(self) -> None:
        self.interrupted += 1

    def notice(self, text: str, *, warning: bool = False) -> None:
        self.notices.append(text)


def request(command: str, tool: str = "Bash") -> CanUseToolRequest:
    return CanUseToolRequest(
        tool_name=tool, tool_use_id="t", input={"command": command} if tool == "Bash" else {"plan": command},
        summary=command, mode="default",
    )  # fmt: skip


@pytest.fixture
async def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    a = Agent(
        provider=ScriptedProvider([]),
        model="m",
        session_store=InMemorySessionStore(),
        cwd=tmp_path,
        tools=[BashTool()],
        sandbox="off",
        permission_rules=[{"kind": "bash", "pattern": "echo", "decision": "allow"}],
    )
    yield a
    await a.close()


async def test_always_saves_then_covers_and_a_rule_allowed_call_that_still_asks_is_asked(agent: Agent) -> None:
    asker = Recorder([PermissionAnswer("always"), PermissionAnswer("allow")])
    broker = PermissionBroker(asker, lambda: agent)
    assert isinstance(await broker.can_use_tool(request("git status")), PermissionAllow)
    assert asker.asked[0][1].rules == ("Bash(git status:*)",)
    assert asker.notices and "Bash(git status:*)" in asker.notices[0]
    # covered by the saved rule: not asked
    assert isinstance(await broker.can_use_tool(request("git status --short")), PermissionAllow)
    assert len(asker.asked) == 1
    # allowed by a rule all along, yet asked (a hook forced the question): the user is asked
    assert isinstance(await broker.can_use_tool(request("echo hi")), PermissionAllow)
    assert [c for c, _ in asker.asked] == ["git status", "echo hi"]
    saved = json.loads((agent.cwd / ".claude" / "settings.local.json").read_text())
    assert saved == {"permissions": {"allow": ["Bash(git status:*)"]}}


async def test_session_deny_interrupt_and_no_answer(agent: Agent) -> None:
    asker = Recorder([PermissionAnswer("session"), PermissionAnswer("deny", "not that", interrupt=True)])
    broker = PermissionBroker(asker, lambda: agent)
    assert isinstance(await broker.can_use_tool(request("make build")), PermissionAllow)
    assert isinstance(await broker.can_use_tool(request("make build")), PermissionAllow)  # remembered
    assert ("Bash", "make build") in broker.session_allowed
    denied = await broker.can_use_tool(request("make clean"))
    assert isinstance(denied, PermissionDeny) and denied.message == "not that" and asker.interrupted == 1
    unanswered = await broker.can_use_tool(request("make dist"))
    assert isinstance(unanswered, PermissionDeny) and unanswered.message == "The user did not answer."
    assert not (agent.cwd / ".claude").exists()


async def test_plans_are_asked_every_time(agent: Agent) -> None:
    asker = Recorder([])
    broker = PermissionBroker(asker, lambda: agent)
    asker.plan = Plan("accept_edits")
    allowed = await broker.can_use_tool(request("the plan", tool="ExitPlanMode"))
    assert isinstance(allowed, PermissionAllow) and allowed.set_mode == "acceptEdits"
    asker.plan = Plan("keep_planning", "smaller steps")
    kept = await broker.can_use_tool(request("the plan", tool="ExitPlanMode"))
    assert isinstance(kept, PermissionDeny) and "smaller steps" in kept.message
    assert asker.asked == []


async def test_always_with_a_broken_settings_file_allows_once_and_says_why(agent: Agent) -> None:
    settings = agent.cwd / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text("{broken")
    asker = Recorder([PermissionAnswer("always"), PermissionAnswer("deny")])
    broker = PermissionBroker(asker, lambda: agent)
    assert isinstance(await broker.can_use_tool(request("git status")), PermissionAllow)
    assert asker.notices and "could not save Bash(git status:*)" in asker.notices[0]
    assert settings.read_text() == "{broken"
    assert isinstance(await broker.can_use_tool(request("git status")), PermissionDeny)  # nothing stuck
