"""Titles, model/branch meta, usage totals, prompt records, listing (children
hidden), id prefixes, --continue's choice, fuzzy search and fork — on the
in-memory and the SQLite store."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from skawld_core import Agent
from skawld_core.errors import ConfigError
from skawld_core.messages import Usage
from skawld_core.sessions import InMemorySessionStore, SessionStore, SqliteSessionStore
from skawld_core.sessions.fork import fork_session
from skawld_core.sessions.listing import (
    SessionLookupError,
    fuzzy_score,
    list_conversations,
    newest_conversation,
    resolve_session_id,
    search,
)
from skawld_core.sessions.meta import git_branch, title_from_prompt
from skawld_core.testing import ScriptedProvider, reply


@pytest.fixture(params=["memory", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> SessionStore:
    return InMemorySessionStore() if request.param == "memory" else SqliteSessionStore(tmp_path / "s.db")


def agent_for(store: SessionStore, cwd: Path, replies: list[str]) -> Agent:
    provider = ScriptedProvider([reply(r, usage=Usage(input_tokens=100, output_tokens=7)) for r in replies])
    return Agent(provider=provider, model="test-model", tools=[], session_store=store, cwd=cwd)


async def run(session: object, prompt: str) -> None:
    async with session.run(prompt) as r:  # type: ignore[attr-defined]
        async for _ in r:
            pass


def test_title_from_prompt_shortens_at_a_word() -> None:
    assert title_from_prompt("\n\n  fix   the bug\nsecond line") == "fix the bug"
    long = "refactor the session store so that every backend shares one conformance suite and more"
    title = title_from_prompt(long)
    assert title.endswith("…") and len(title) <= 60 and long.startswith(title[:-1])
    assert " " not in title[-2:]


def test_git_branch_reads_head_without_git(tmp_path: Path) -> None:
    assert git_branch(tmp_path) is None
    subprocess.run(["git", "init", "-q", "-b", "feature/x", str(tmp_path)], check=True)
    (tmp_path / "sub").mkdir()
    assert git_branch(tmp_path / "sub") == "feature/x"


async def test_title_model_branch_and_usage_are_kept_in_meta(store: SessionStore, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "topic", str(tmp_path)], check=True)
    agent = agent_for(store, tmp_path, ["one", "two"])
    session = await agent.session()
    assert session.meta["model"] == "test-model" and session.meta["git_branch"] == "topic"
    assert session.title is None
    await run(session, "Fix the flaky test in CI\nwith details")
    await run(session, "and the docs")
    assert session.title == "Fix the flaky test in CI"
    resumed = await agent.session(session.id)
    assert resumed.title == "Fix the flaky test in CI"
    assert (resumed.usage.input_tokens, resumed.usage.output_tokens) == (200, 14)
    records = resumed.prompt_records
    assert [(r["index"], r["prompt"]) for r in records] == [(0, "Fix the flaky test in CI"), (2, "and the docs")]
    assert all(r["commit"] is None for r in records)  # no checkpoint engine on this agent
    await resumed.rename("  Flaky   CI  ")
    assert (await agent.session(session.id)).title == "Flaky CI"
    with pytest.raises(ConfigError):
        await resumed.rename("   ")
    await agent.close()


async def test_children_hidden_prefixes_and_continue(store: SessionStore, tmp_path: Path) -> None:
    cwd = str(tmp_path)
    await store.create(id="aaaa1111-old", meta={"cwd": cwd, "title": "old work"})
    await store.create(id="aaaa2222-child", meta={"cwd": cwd, "parent_session_id": "aaaa1111-old"})
    await store.create(id="bbbb3333-empty", meta={"cwd": cwd})  # what /clear leaves behind
    await store.create(id="cccc4444-other", meta={"cwd": "/elsewhere", "title": "other project"})
    listed = await list_conversations(store, cwd=tmp_path)
    assert [s.id for s in listed] == ["bbbb3333-empty", "aaaa1111-old"]
    assert [s.id for s in await list_conversations(store, cwd=tmp_path, include_empty=False)] == []
    assert await newest_conversation(store, tmp_path) == "aaaa1111-old"
    assert await resolve_session_id(store, "aaaa1") == "aaaa1111-old"  # the child does not make it ambiguous
    assert await resolve_session_id(store, "aaaa2222-child") == "aaaa2222-child"  # exact ids always work
    await store.create(id="aaaa1999-new", meta={"cwd": cwd})
    with pytest.raises(SessionLookupError) as info:
        await resolve_session_id(store, "aaaa1")
    assert "ambiguous" in str(info.value)
    assert {r.id for r in info.value.candidates} == {"aaaa1111-old", "aaaa1999-new"}
    with pytest.raises(SessionLookupError, match="no session matches"):
        await resolve_session_id(store, "zzzz")
    await store.close()


async def test_fuzzy_search_by_title_and_content(store: SessionStore, tmp_path: Path) -> None:
    agent = agent_for(store, tmp_path, ["I changed the retry policy.", "Docs updated."])
    first = await agent.session()
    await run(first, "make the provider retry on 529")
    second = await agent.session()
    await run(second, "update the README")
    summaries = await list_conversations(store, cwd=tmp_path)
    assert [s.title for s in summaries] == ["update the README", "make the provider retry on 529"]
    assert summaries[0].message_count == 2 and summaries[0].model == "test-model"
    assert [s.id for s in search(summaries, "retry")] == [first.id]
    assert [s.id for s in search(summaries, "rtry plcy")] == [first.id]  # letters in order, in the content
    assert [s.id for s in search(summaries, "docs")] == [second.id]  # the assistant's text
    assert search(summaries, "kubernetes") == []
    assert len(search(summaries, "  ")) == 2
    assert fuzzy_score("abc", "xaxbxc") is not None and fuzzy_score("abc", "cba") is None
    await agent.close()


async def test_fork_copies_up_to_a_message_and_leaves_the_source(store: SessionStore, tmp_path: Path) -> None:
    agent = agent_for(store, tmp_path, ["one", "two"])
    session = await agent.session()
    await run(session, "first")
    await run(session, "second")
    before = await store.load_messages(session.id)
    meta_before = (await store.load(session.id)).meta  # type: ignore[union-attr]
    fork = await session.fork(upto=2)
    assert [m.message for m in await store.load_messages(fork.id)] == [s.message for s in before[:2]]
    assert fork.meta["forked_from"] == session.id and fork.meta["forked_at"] == 2
    assert [p["prompt"] for p in fork.prompt_records] == ["first"]
    assert fork.usage.input_tokens == 0 and "usage" not in fork.meta  # a fork starts its own usage
    assert fork.title == "first"
    assert await store.load_messages(session.id) == before
    assert (await store.load(session.id)).meta == meta_before  # type: ignore[union-attr]
    whole = await fork_session(store, session.id)
    assert len(await store.load_messages(whole.id)) == 4
    summaries = {s.id: s for s in await list_conversations(store, cwd=tmp_path)}
    assert summaries[fork.id].forked_from == session.id and summaries[fork.id].forked_at == 2
    with pytest.raises(SessionLookupError, match="cannot fork at message 9"):
        await fork_session(store, session.id, upto=9)
    with pytest.raises(SessionLookupError, match="no session"):
        await fork_session(store, "missing")
    await agent.close()
