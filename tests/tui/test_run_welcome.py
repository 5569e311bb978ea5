"""The first screen (the welcome block of a new session) and the yolo confirmation dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

import skawld_core
from skawld_core.testing import reply
from skawld_tui.app.screens.confirm import ConfirmScreen
from skawld_tui.app.widgets.welcome import KEY_HINTS, Welcome, WelcomeInfo, short_path

from .helpers import SIZE, make_app, ready, run_done, send, until

pytestmark = pytest.mark.timeout(60)

# A fixed directory, so the snapshot shows the same cwd on every machine.
FIXED_CWD = Path("/tmp/skawld-welcome-snapshot")


def welcome_app(cwd: Path, *, mode: str = "default") -> Any:
    app = make_app([reply("hello")], cwd=cwd, mode=mode)
    app.SHOW_WELCOME = True
    return app


async def test_new_session_opens_on_the_welcome_block(tmp_path: Path) -> None:
    app = welcome_app(tmp_path, mode="acceptEdits")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        welcome = app.query_one(Welcome)
        shown = str(welcome.render())
        assert welcome.info == WelcomeInfo(
            version=skawld_core.__version__,
            model="test-model",
            provider="scripted",
            cwd=short_path(tmp_path, Path.home()),
            mode="acceptEdits",
        )
        for value in (skawld_core.__version__, "test-model", "scripted", str(tmp_path), "acceptEdits"):
            assert value in shown
        for key, what in KEY_HINTS:
            assert f"{key} {what}" in shown
        await send(pilot, "hi")
        await run_done(pilot)
        assert len(app.query(Welcome)) == 1  # it stays above the conversation


async def test_resumed_session_has_no_welcome_block(tmp_path: Path) -> None:
    app = welcome_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await run_done(pilot)
    again = make_app([], store=app.test_store, cwd=tmp_path)  # type: ignore[attr-defined]
    again.SHOW_WELCOME = True
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert not again.query(Welcome)


def test_short_path() -> None:
    home = Path("/home/ana")
    assert short_path(Path("/home/ana/src/app"), home) == "~/src/app"
    assert short_path(home, home) == "~"
    assert short_path(Path("/srv/app"), home) == "/srv/app"


def test_first_screen_snapshot(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    FIXED_CWD.mkdir(exist_ok=True)
    monkeypatch.setattr(skawld_core, "__version__", "1.2.3", raising=False)  # releases do not move it
    assert snap_compare(welcome_app(FIXED_CWD), terminal_size=SIZE, run_before=ready)


def test_yolo_confirmation_snapshot(snap_compare: Any) -> None:
    app = make_app([])

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "/mode yolo")
        await until(lambda: isinstance(app.screen, ConfirmScreen), pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
