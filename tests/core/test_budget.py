"""`Agent(max_budget_usd=...)`: the run stops before the next model call, subagents included."""

from __future__ import annotations

from pathlib import Path

import pytest

from skawld_core.agent import Agent
from skawld_core.errors import ConfigError
from skawld_core.events import ErrorEvent, ResultEvent, UsageEvent
from skawld_core.pricing import PriceTable, parse_price_overrides
from skawld_core.sessions.memory import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from tests.support.nesting import is_child

# $1 per input token: every scripted turn (10 input tokens) costs $10.
PRICES = PriceTable(parse_price_overrides({"m": {"input": 1_000_000, "output": 0}}))


def make(tmp_path: Path, provider: ScriptedProvider, budget: float) -> Agent:
    return Agent(
        provider=provider,
        model="m",
        session_store=InMemorySessionStore(),
        cwd=tmp_path,
        permission_mode="yolo",
        max_budget_usd=budget,
        pricing=PRICES,
    )


async def test_budget_stops_before_the_next_call(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply(tool_call("Glob", {"pattern": "*"}, id="g1")), reply("unreachable")])
    async with make(tmp_path, provider, 5) as agent:
        session = await agent.session()
        events = [e async for e in session.run("go")]
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.error.name for e in errors] == ["BudgetLimitError"] and "$5" in errors[0].error.message
    result = events[-1]
    assert isinstance(result, ResultEvent) and result.subtype == "error" and result.total_cost_usd == 10.0
    assert [e.cost_usd for e in events if isinstance(e, UsageEvent)] == [10.0]
    assert len(provider.requests) == 1


async def test_subagent_turns_count_against_the_parent_budget(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue(reply(tool_call("Subagent", {"description": "d", "prompt": "CHILD go"}, id="s1")))
    provider.enqueue(reply(tool_call("Glob", {"pattern": "*"}, id="c1")), match=is_child("CHILD"))
    provider.enqueue(reply("child never gets here"), match=is_child("CHILD"))
    provider.enqueue(reply("parent never gets here"))
    async with make(tmp_path, provider, 15) as agent:
        session = await agent.session()
        events = [e async for e in session.run("go")]
    # parent turn ($10) + child turn ($10) reach $15: the child stops, then the parent.
    assert len(provider.requests) == 2
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "error"
    assert [e.error.name for e in events if isinstance(e, ErrorEvent)] == ["BudgetLimitError"]


def test_budget_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="max_budget_usd"):
        Agent(provider=ScriptedProvider([]), model="m", cwd=tmp_path, max_budget_usd=0)
