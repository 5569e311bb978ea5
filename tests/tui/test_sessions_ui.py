"""The session picker (titles, facts, search, children hidden), /rename, /fork,
/rewind and Esc Esc, restored usage — pilot tests and snapshots."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from skawld_core.checkpoints import CheckpointEngine
from skawld_core.messages import Message, TextBlock
from skawld_core.sessions import InMemorySessionStore, newest_conversation
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools.write import WriteTool
from skawld_tui.app.screens.rewind import RewindScreen
from skawld_tui.app.screens.session_picker import SessionPicker
from skawld_tui.app.widgets.blocks import NoteLine, UserMessage

from .helpers import SIZE, make_app, ready, run_done, send, until

pytestmark = pytest.mark.timeout(60)


def prompt(text: str) -> Message:
    return Message(
        role="user", content=[TextBlock(text="<env>\nToday's date: 2026-01-01\n</env>"), TextBlock(text=text)]
    )


def answer(text: str) -> Message:
    return Message(role="assistant", content=[TextBlock(text=text)])


async def seed(store: InMemorySessionStore) -> None:
    """Three conversations, a subagent child and an empty session."""
    rows = [
        ("1111aaaa-retry", "Make the provider retry on 529", "claude-sonnet-4-6", "main", "I added backoff."),
        ("2222bbbb-docs", "Update the README install steps", "gpt-5", "docs", "Done, see README."),
        ("3333cccc-bug", "Fix the off-by-one in totals", "claude-sonnet-4-6", "fix/total", "Fixed the loop bound."),
    ]
    for sid, title, model, branch, reply_text in rows:
        await store.create(id=sid, meta={"title": title, "model": model, "git_branch": branch})
        await store.append_messages(sid, [prompt(title), answer(reply_text)])
    await store.create(id="4444dddd-child", meta={"parent_session_id": "1111aaaa-retry", "title": "child work"})
    await store.append_messages("4444dddd-child", [prompt("child work"), answer("child answer")])
    await store.create(id="5555eeee-empty")
    await store.create(
        id="6666ffff-fork",
        meta={"title": "Make the provider retry on 529", "forked_from": "1111aaaa-retry", "forked_at": 2},
    )
    await store.append_messages("6666ffff-fork", [prompt("Make the provider retry on 529"), answer("I added backoff.")])


def picker_rows(app: Any) -> list[str]:
    options = app.screen.query_one(OptionList)
    return [str(options.get_option_at_index(i).prompt).split("\n")[0] for i in range(options.option_count)]


async def test_picker_lists_titles_hides_children_and_searches_content() -> None:
    store = InMemorySessionStore()
    await seed(store)
    app = make_app([], store=store, resume_id="fresh")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/resume")
        await until(lambda: isinstance(app.screen, SessionPicker), pilot)
        picker = app.screen
        assert isinstance(picker, SessionPicker)
        assert [s.id for s in picker.shown] == ["6666ffff-fork", "3333cccc-bug", "2222bbbb-docs", "1111aaaa-retry"]
        first = str(picker.query_one(OptionList).get_option_at_index(0).prompt)
        assert "fork of 1111aaaa @2" in first and "2 msgs" in first and "just now" in first
        assert "⎇ fix/total" in str(picker.query_one(OptionList).get_option_at_index(1).prompt)
        await pilot.press(*"loop bound")  # only in the assistant's text
        await pilot.pause()
        assert [s.id for s in picker.shown] == ["3333cccc-bug"]
        assert picker_rows(app) == ["Fix the off-by-one in totals"]
        picker.query_one(Input).value = ""
        await pilot.press(*"readme")
        await pilot.pause()
        assert [s.id for s in picker.shown] == ["2222bbbb-docs"]
        await pilot.press("enter")
        await until(lambda: app.session is not None and app.session.id == "2222bbbb-docs", pilot)
        await until(lambda: app.session_ready.is_set(), pilot)
        await pilot.pause()
        assert [u.text for u in app.query(UserMessage)] == ["Update the README install steps"]


async def test_resume_restores_usage_and_says_what_was_restored() -> None:
    store = InMemorySessionStore()
    await store.create(
        id="used-session",
        meta={
            "title": "earlier work",
            "model": "claude-sonnet-4-6",
            "usage": {"input_tokens": 1200, "output_tokens": 300},
        },
    )
    await store.append_messages("used-session", [prompt("earlier work"), answer("ok")])
    app = make_app([], store=store, resume_id="used-session", model="claude-sonnet-4-6")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.pause()
        assert app.status.info.tokens == 1500
        assert app.status.info.cost is not None and app.status.info.cost > 0
        notes = [str(n.render()) for n in app.query(NoteLine)]
        assert "restored 2 messages, last activity just now · session used-ses · earlier work" in notes
        assert app.state.base_usage.input_tokens == 1200  # /usage counts the restored tokens


async def test_rename_fork_and_continue_after_clear() -> None:
    store = InMemorySessionStore()
    app = make_app([reply("one"), reply("two")], store=store, resume_id=None)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first question")
        await run_done(pilot)
        assert app.session is not None
        original = app.session.id
        assert app.session.title == "first question"
        await send(pilot, "/rename Better title")
        await pilot.pause()
        assert (await store.load(original)).meta["title"] == "Better title"  # type: ignore[union-attr]
        await send(pilot, "/fork")
        await until(
            lambda: app.session is not None and app.session.id != original and app.session_ready.is_set(), pilot
        )
        fork = app.session
        assert fork is not None and fork.meta["forked_from"] == original and len(fork.full_history) == 2
        assert len(await store.load_messages(original)) == 2
        await send(pilot, "/clear")
        await until(lambda: app.session is not None and app.session.id != fork.id, pilot)
        cwd = app.agent.cwd  # type: ignore[union-attr]
        assert await newest_conversation(store, cwd) == fork.id  # not the empty session /clear made


async def test_esc_esc_opens_rewind_and_conversation_rewind_forks() -> None:
    store = InMemorySessionStore()
    app = make_app([reply("one"), reply("two")], store=store, resume_id=None)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first question")
        await run_done(pilot)
        await send(pilot, "second question")
        await run_done(pilot, 2)
        assert app.session is not None
        original = app.session.id
        await pilot.press("escape", "escape")
        await until(lambda: isinstance(app.screen, RewindScreen), pilot)
        await pilot.press("enter")  # newest first: "second question"
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        assert options.get_option_at_index(0).disabled  # no checkpoint engine: code can't be restored
        assert options.highlighted == 1
        await pilot.press("enter")
        await until(
            lambda: app.session is not None and app.session.id != original and app.session_ready.is_set(), pilot
        )
        await pilot.pause()
        assert len(app.session.full_history) == 2
        assert app.prompt.text == "second question"
        assert len(await store.load_messages(original)) == 4


async def test_rewind_code_and_conversation_with_checkpoints(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "keep.txt").write_text("kept\n")
    store = InMemorySessionStore()
    provider = ScriptedProvider(
        [reply(tool_call("Write", {"file_path": str(project / "made.txt"), "content": "new\n"})), reply("made")]
    )
    engine = CheckpointEngine(project, root=tmp_path / "cp")
    app = make_app(
        store=store,
        provider=provider,
        resume_id=None,
        cwd=project,
        tools=[WriteTool()],
        mode="yolo",
        checkpoints=engine,
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "make a file")
        await run_done(pilot)
        assert (project / "made.txt").exists()
        original = app.session.id  # type: ignore[union-attr]
        await send(pilot, "/rewind")
        await until(lambda: isinstance(app.screen, RewindScreen), pilot)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one(OptionList).highlighted == 0  # "both"
        await pilot.press("enter")
        await until(
            lambda: app.session is not None and app.session.id != original and app.session_ready.is_set(), pilot
        )
        await pilot.pause()
        assert not (project / "made.txt").exists() and (project / "keep.txt").read_text() == "kept\n"
        assert app.session.full_history == []  # type: ignore[union-attr]
        notes = " ".join(str(n.render()) for n in app.query(NoteLine))
        assert "code restored: 0 files written, 1 removed" in notes


# -- snapshots ----------------------------------------------------------------


def test_picker_snapshot(snap_compare: Any) -> None:
    store = InMemorySessionStore()
    asyncio.run(seed(store))

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "/resume")
        await until(lambda: isinstance(pilot.app.screen, SessionPicker), pilot)
        pilot.app.screen.query_one(Input).cursor_blink = False
        await pilot.pause()

    assert snap_compare(make_app([], store=store, resume_id="fresh"), terminal_size=(100, 36), run_before=run_before)


def test_picker_search_snapshot(snap_compare: Any) -> None:
    store = InMemorySessionStore()
    asyncio.run(seed(store))

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "/resume")
        await until(lambda: isinstance(pilot.app.screen, SessionPicker), pilot)
        pilot.app.screen.query_one(Input).cursor_blink = False
        await pilot.press(*"retry")
        await pilot.pause()

    assert snap_compare(make_app([], store=store, resume_id="fresh"), terminal_size=(100, 36), run_before=run_before)


def test_rewind_list_snapshot(snap_compare: Any) -> None:
    store = InMemorySessionStore()

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        for done, text in enumerate(("add a retry to the client", "now write the tests", "update the docs"), 1):
            await send(pilot, text)
            await run_done(pilot, done)
        await send(pilot, "/rewind")
        await until(lambda: isinstance(pilot.app.screen, RewindScreen), pilot)
        await pilot.pause()

    app = make_app([reply("ok 1"), reply("ok 2"), reply("ok 3")], store=store, resume_id="rewind-session")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_a_checkpoint_that_skips_a_large_file_says_so(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "data.bin").write_bytes(b"z" * 4096)
    provider = ScriptedProvider([reply("one"), reply("two")])
    engine = CheckpointEngine(project, root=tmp_path / "cp", max_file_bytes=1024)
    app = make_app(provider=provider, resume_id=None, cwd=project, checkpoints=engine)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await run_done(pilot)
        notes = [str(n.render()) for n in app.query(NoteLine)]
        assert "checkpoint left out files over the size cap: data.bin" in notes
        await send(pilot, "second")
        await run_done(pilot, 2)
        notes = [str(n.render()) for n in app.query(NoteLine)]
        assert notes.count("checkpoint left out files over the size cap: data.bin") == 1  # said once
