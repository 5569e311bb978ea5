"""The app's rewind names the user's own changes since the checkpoint and asks (issue 26)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label, OptionList

from skawld_core.checkpoints import CheckpointEngine
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools.write import WriteTool
from skawld_tui.app.screens.rewind import RewindScreen
from skawld_tui.app.widgets.blocks import NoteLine

from .helpers import SIZE, make_app, ready, run_done, send, until

pytestmark = pytest.mark.timeout(60)


def _app(tmp_path: Path) -> tuple[Any, Path]:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("v1\n")
    provider = ScriptedProvider(
        [reply(tool_call("Write", {"file_path": str(project / "made.txt"), "content": "agent\n"})), reply("made")]
    )
    engine = CheckpointEngine(project, root=tmp_path / "cp")
    app = make_app(provider=provider, resume_id=None, cwd=project, tools=[WriteTool()], mode="yolo", checkpoints=engine)
    return app, project


@pytest.mark.parametrize("choice", ["overwrite", "keep"])
async def test_rewind_lists_the_users_changes_and_does_what_is_chosen(tmp_path: Path, choice: str) -> None:
    app, project = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "make a file")
        await run_done(pilot)
        (project / "notes.txt").write_text("my own edit\n")  # the user works between prompt and rewind
        (project / "mine.txt").write_text("my new file\n")
        await send(pilot, "/rewind")
        await until(lambda: isinstance(app.screen, RewindScreen), pilot)
        await pilot.press("enter")  # the prompt
        await pilot.pause()
        await pilot.press("down", "down", "enter")  # "code only"
        screen = app.screen
        await until(lambda: screen.action is not None, pilot)
        title = str(screen.query_one("#rewind-title", Label).render())
        assert "not by the agent" in title
        assert "edited since: notes.txt" in title and "created since: mine.txt" in title
        assert "made.txt" not in title
        options = screen.query_one(OptionList)
        assert options.highlighted == 1  # "keep" is the default
        if choice == "overwrite":
            await pilot.press("up")
        await pilot.press("enter")
        await until(lambda: not isinstance(app.screen, RewindScreen), pilot)
        await until(lambda: any("code restored" in str(n.render()) for n in app.query(NoteLine)), pilot)
        notes = " ".join(str(n.render()) for n in app.query(NoteLine))
    assert not (project / "made.txt").exists()
    if choice == "keep":
        assert (project / "notes.txt").read_text() == "my own edit\n"
        assert (project / "mine.txt").read_text() == "my new file\n"
        assert "left as they are (your changes): " in notes and "notes.txt" in notes
    else:
        assert (project / "notes.txt").read_text() == "v1\n"
        assert not (project / "mine.txt").exists()


async def test_escape_from_the_changes_goes_back_without_restoring(tmp_path: Path) -> None:
    app, project = _app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "make a file")
        await run_done(pilot)
        (project / "notes.txt").write_text("my own edit\n")
        await send(pilot, "/rewind")
        await until(lambda: isinstance(app.screen, RewindScreen), pilot)
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter")  # "both"
        screen = app.screen
        await until(lambda: screen.action is not None, pilot)
        await pilot.press("escape", "escape", "escape")
        await until(lambda: not isinstance(app.screen, RewindScreen), pilot)
    assert (project / "notes.txt").read_text() == "my own edit\n" and (project / "made.txt").exists()
