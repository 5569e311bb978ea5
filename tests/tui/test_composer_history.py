"""Up-arrow history persisted per project under ``~/.skawld/history/``."""

from __future__ import annotations

import os
from pathlib import Path

from skawld_core.testing import reply
from skawld_tui.prompt_history import PromptHistory, history_path, toolkit_history

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
