"""Agent options and defaults, Session API, resume (reference agent.test, session.test)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from skawld_core import Agent, ConfigError, InvokedSkillRecord, ResultEvent, SkillInvokedEvent
from skawld_core.sessions import InMemorySessionStore, SqliteSessionStore
from skawld_core.system_prompt import build_system_blocks, env_prefix
from skawld_core.testing import ScriptedProvider, reply, tool_call
from tests.support.mock_tools import MockRead, types

from .conftest import MakeAgent


@pytest.mark.parametrize(
    "kwargs",
    [
        {"model": ""},
        {"max_retries": -1},
        {"max_retries": 1.5},
        {"max_turns": 0},
        {"max_output_tokens": 0},
        {"permission_mode": "sometimes"},
        {"cache_ttl": "2h"},
    ],
)
def test_invalid_options_raise_config_error(kwargs: dict[str, Any]) -> None:
    options: dict[str, Any] = {"provider": ScriptedProvider(), "model": "m", "tools": []} | kwargs
    with pytest.raises(ConfigError):
        Agent(**options)


def test_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SKAWLD_MAX_TOOL_CONCURRENCY", raising=False)
    agent = Agent(provider=ScriptedProvider(), model="m", tools=[])
    assert agent.max_retries == 5 and agent.max_output_tokens is None and agent.max_turns is None
    assert agent.tool_concurrency == 10 and agent.include_partial_messages is False
    assert agent.cwd == tmp_path.resolve() and agent.compaction.id == "default-keep-recent-10"
    assert agent.config_dir == tmp_path.resolve() / ".skawld"
    assert not (tmp_path / ".skawld").exists()  # constructing an Agent never touches disk


def test_system_prompt_blocks() -> None:
    blocks = build_system_blocks(cwd="/w", permission_mode="default", tool_names=["B", "A"])
    assert len(blocks) == 3 and all(b.cacheable for b in blocks)
    assert "Tools available: B, A" in blocks[2].text
    assert re.search(r"skawld version: \d+\.\d+\.\d+", blocks[2].text)
    with_user = build_system_blocks(cwd="/w", permission_mode="default", tool_names=[], user_instructions="  be brief ")
    assert with_user[3].text == "User-provided instructions:\n\nbe brief"
    assert build_system_blocks(cwd="/w", permission_mode="yolo", tool_names=["A"]) == build_system_blocks(
        cwd="/w", permission_mode="yolo", tool_names=["A"]
    )
    assert re.fullmatch(r"<env>\nToday's date: \d{4}-\d{2}-\d{2}\n</env>", env_prefix())


async def test_agent_system_prompt_lists_sorted_tools_and_instructions(tmp_path: Path) -> None:
    agent = Agent(
        provider=ScriptedProvider(), model="m", tools=[MockRead("Zed"), MockRead("Alpha")], system_prompt="Be terse."
    )
    text = "\n".join(b.text for b in agent.system_blocks())
    assert "Tools available: Alpha, Zed" in text and text.endswith("Be terse.")


async def test_default_store_is_lazy_sqlite_and_closed(tmp_path: Path) -> None:
    agent = Agent(provider=ScriptedProvider([reply("hi")]), model="m", tools=[], cwd=tmp_path)
    assert not (tmp_path / ".skawld").exists()
    session = await agent.session(meta={"title": "t"})
    assert isinstance(agent.store, SqliteSessionStore)
    async with session.run("x") as run:
        assert [e.type async for e in run][-1] == "result"
    await agent.close()
    assert (tmp_path / ".skawld" / "sessions.db").exists()


async def test_close_without_store_is_fine() -> None:
    async with Agent(provider=ScriptedProvider(), model="m", tools=[]) as agent:
        assert agent.model == "m"


async def test_close_closes_a_given_store() -> None:
    closed: list[bool] = []

    class Store(InMemorySessionStore):
        async def close(self) -> None:
            closed.append(True)

    agent = Agent(provider=ScriptedProvider(), model="m", tools=[], session_store=Store())
    await agent.close()
    assert closed == [True]


async def test_resume_restores_history_meta_and_skills(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply(tool_call("MockRead", {"path": "a"})), reply("one"), reply("two")])
    agent = make_agent(provider)
    session = await agent.session(meta={"title": "first"})
    async with session.run("go") as run:
        [e async for e in run]
    await session.record_invoked_skill(InvokedSkillRecord(name="commit", args="fix", body="do it"))
    assert session.message_count == 4
    await session.update_meta({"branch": "main"})

    resumed = await agent.session(id=session.id, meta={"ignored": True})
    assert resumed is not session
    assert resumed.message_count == 4 and resumed.provider_view == session.provider_view
    assert {k: resumed.meta[k] for k in ("title", "branch", "model")} == {
        "title": "first",
        "branch": "main",
        "model": "test-model",
    }
    assert [p["prompt"] for p in resumed.meta["prompts"]] == ["go"]
    assert not resumed.file_read_tracker.has_read("a")
    async with resumed.run("again") as run:
        events = [e async for e in run]
    assert types(events)[:2] == ["system", "skill_invoked"]
    invoked = events[1]
    assert isinstance(invoked, SkillInvokedEvent) and (invoked.name, invoked.args) == ("commit", "fix")
    assert provider.requests[-1].messages[:4] == session.provider_view[:4]
    assert isinstance(events[-1], ResultEvent) and events[-1].final_text == "two"


async def test_unknown_id_starts_a_new_session_with_that_id(make_agent: MakeAgent) -> None:
    agent = make_agent(ScriptedProvider())
    session = await agent.session(id="ops-help-2026-05-28")
    assert session.id == "ops-help-2026-05-28" and session.message_count == 0


async def test_sessions_are_isolated(make_agent: MakeAgent) -> None:
    provider = ScriptedProvider([reply("a"), reply("b")])
    agent = make_agent(provider)
    s1, s2 = await agent.session(), await agent.session()
    async with s1.run("one") as run:
        [e async for e in run]
    assert s2.message_count == 0 and s1.message_count == 2
    assert agent.get_session(s1.id) is s1


async def test_closed_agent_refuses_new_sessions(make_agent: MakeAgent) -> None:
    agent = make_agent(ScriptedProvider())
    await agent.close()
    with pytest.raises(ConfigError):
        await agent.session()
