"""Up-arrow history persisted per project under ``~/.skawld/history/``."""

from __future__ import annotations

import os
from pathlib import Path

from textual.widgets import Static

from skawld_core.testing import reply
from skawld_tui.prompt_history import PromptHistory, history_path, search_back, toolkit_history

from .helpers import SIZE, make_app, ready, run_done, send


def test_history_file_lives_under_the_home_and_differs_per_project(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home")}
    a, b = history_path(tmp_path / "a", env), history_path(tmp_path / "b", env)
    assert a.parent == tmp_path / "home" / ".skawld" / "history" and a != b and a.suffix == ".jsonl"


def test_append_load_skips_torn_lines_and_compacts(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    store = PromptHistory(path, cap=3)
    for text in ["one", "two", "two", "  ", "three"]:
        store.append(text)
    assert store.load() == ["one", "two", "three"]  # blanks dropped, adjacent repeats folded
    with open(path, "ab") as fh:
        fh.write(b'{"text": "half')  # a crash mid-write
    assert PromptHistory(path, cap=3).load() == ["one", "two", "three"]
    store = PromptHistory(path, cap=3)
    store.load()
    for text in ["four", "five"]:
        store.append(text)
    # "four" made six lines (twice the cap): the file was rewritten to the newest
    # three, then "five" was appended; no temporary file is left behind.
    assert store.load() == ["three", "four", "five"]
    assert path.read_text().splitlines()[:3] == ['{"text": "two"}', '{"text": "three"}', '{"text": "four"}']
    assert len(path.read_text().splitlines()) == 4
    assert [p.name for p in tmp_path.iterdir()] == ["h.jsonl"]
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"


def test_prompt_toolkit_adapter_reads_newest_first_and_appends(tmp_path: Path) -> None:
    store = PromptHistory(tmp_path / "h.jsonl")
    store.append("old")
    store.append("new")
    adapter = toolkit_history()
    adapter.bind(store)  # type: ignore[attr-defined]
    assert list(adapter.load_history_strings()) == ["new", "old"]
    adapter.store_string("y")  # an answer to a question: not a prompt to remember
    adapter.remember("typed in plain mode")  # type: ignore[attr-defined]
    assert store.load()[-2:] == ["new", "typed in plain mode"]


async def test_history_survives_a_restart_and_up_walks_it(tmp_path: Path) -> None:
    app = make_app([reply("a"), reply("b")], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first prompt")
        await run_done(pilot)
        await send(pilot, "second\nprompt")
        await run_done(pilot, 2)
    again = make_app([], cwd=tmp_path)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("up")
        assert again.prompt.text == "second\nprompt"
        await pilot.press("up")  # the cursor is on the last line: Up first moves inside the text
        await pilot.press("up")
        assert again.prompt.text == "first prompt"
        await pilot.press("down")
        assert again.prompt.text == "second\nprompt"
        await pilot.press("down")  # past the newest: back to an empty prompt
        assert again.prompt.text == ""
    (tmp_path / "elsewhere").mkdir()
    other = make_app([], cwd=tmp_path / "elsewhere")
    async with other.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("up")
        assert other.prompt.text == ""  # another project has its own history


def _seed(cwd: Path, *texts: str) -> None:
    store = PromptHistory.for_project(cwd)
    for text in texts:
        store.append(text)


def test_search_back_finds_the_newest_older_match() -> None:
    entries = ["fix the parser", "add tests", "Fix the lexer", "docs"]
    assert search_back(entries, "fix", 4) == 2  # case folded, newest first
    assert search_back(entries, "fix", 2) == 0
    assert search_back(entries, "fix", 0) is None
    assert search_back(entries, "nothing", 4) is None


async def test_ctrl_r_searches_the_persisted_history(tmp_path: Path) -> None:
    _seed(tmp_path, "fix the parser", "add tests", "fix the lexer", "write docs")
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("d", "r", "a", "f", "t")
        bar = app.query_one("#history-search", Static)
        assert not bar.display
        await pilot.press("ctrl+r", "f", "i", "x")
        assert app.prompt.text == "fix the lexer"  # typed text goes to the search, not the prompt
        assert bar.display and "search prompts: fix" in str(bar.render())
        await pilot.press("ctrl+r")
        assert app.prompt.text == "fix the parser"
        await pilot.press("ctrl+r")  # no older match: the last one stays
        assert app.prompt.text == "fix the parser"
        await pilot.press("z")
        assert app.prompt.text == "fix the parser" and "no match" in str(bar.render())
        await pilot.press("escape")  # gives back what was typed before the search
        assert app.prompt.text == "draft" and not bar.display
        await pilot.press("ctrl+r", "d", "o", "c", "enter")
        assert app.prompt.text == "write docs" and not bar.display
        assert app.test_provider.requests == []  # type: ignore[attr-defined]  # Enter accepted, sent nothing
        await pilot.press("!")  # typing edits the accepted entry
        assert app.prompt.text == "write docs!"


async def test_backslash_enter_adds_a_newline_and_shift_enter_too(tmp_path: Path) -> None:
    app = make_app([reply("ok")], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("a", "\\", "enter", "b", "shift+enter", "c")
        assert app.prompt.text == "a\nb\nc"
        assert app.test_provider.requests == []  # type: ignore[attr-defined]
        await pilot.press("enter")
        await run_done(pilot)
        assert app.test_provider.requests[0].messages[-1].content[-1].text == "a\nb\nc"  # type: ignore[attr-defined]
