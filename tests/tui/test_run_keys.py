"""Pilot tests of the run keys: one Esc stops, Ctrl+C stops / copies / clears / quits,
Ctrl+S finishes the step, Shift+Tab never reaches yolo, `/mode yolo` asks first, and
typing while focus is elsewhere lands in the prompt."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from skawld_core.sandbox.procs import is_alive
from skawld_core.testing import reply, text, tool_call
from skawld_core.tools.bash import BashTool
from skawld_core.transcript import dangling_tool_uses
from skawld_tui.app.screens.confirm import ConfirmScreen
from skawld_tui.app.widgets.blocks import AssistantMarkdown, NoteLine, UserMessage
from skawld_tui.app.widgets.tool_panel import ToolPanel
from tests.support.mock_tools import MockRead

from .helpers import SIZE, make_app, ready, run_done, send, until

pytestmark = pytest.mark.timeout(60)


def footers(app: Any) -> list[str]:
    return [str(n.render()).strip() for n in app.query(NoteLine) if n.has_class("run-footer")]


def held_stream(body: str = "streaming forever " * 20) -> tuple[Any, asyncio.Event]:
    """A turn that streams a few deltas, then holds until the event is set (never, here)."""
    hold = asyncio.Event()
    turn = reply(text(body, chunk=5))
    turn.hold, turn.hold_at = hold, 6
    return turn, hold


async def test_one_escape_stops_the_stream_and_the_next_prompt_runs() -> None:
    turn, hold = held_stream()
    app = make_app([turn, reply("second answer")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "talk")
        await until(lambda: bool(app.query(AssistantMarkdown)), pilot)
        await pilot.press("escape")
        assert app.status.info.state == ""  # idle at once, not "interrupting"
        await run_done(pilot)
        assert footers(app)[-1].startswith("aborted")
        assert not hold.is_set()
        await send(pilot, "again")
        await run_done(pilot, runs=2)
        assert footers(app)[-1].startswith("success")
        assert app.query(AssistantMarkdown).last().source == "second answer"
        assert app.session is not None
        history = app.session.full_history
        assert dangling_tool_uses(history) == []
        assert [m.text() for m in history if m.role == "user"][-1].endswith("again")


async def test_prompt_typed_right_after_escape_becomes_the_next_run() -> None:
    turn, _ = held_stream()
    app = make_app([turn, reply("queued answer")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "talk")
        await until(lambda: bool(app.query(AssistantMarkdown)), pilot)
        await pilot.press("escape")
        await send(pilot, "next one")  # the stopped run may still be ending: not a steer into it
        await run_done(pilot, runs=2)
        assert [u.text for u in app.query(UserMessage)] == ["talk", "next one"]
        assert app.query(AssistantMarkdown).last().source == "queued answer"
        assert not any("queued:" in str(n.render()) for n in app.query(NoteLine))


async def test_escape_ends_a_running_bash_process_tree(tmp_path: Path) -> None:
    first, second = tmp_path / "first.pid", tmp_path / "second.pid"
    # Two descendants of the tool's shell: a background `sleep` and one behind another shell.
    command = f"sleep 30 & echo $! > {first}; sh -c 'echo $$ > {second}; exec sleep 31' & wait"
    app = make_app(
        [reply(tool_call("Bash", {"command": command}, id="b1")), reply("never")],
        tools=[BashTool()],
        mode="yolo",
        cwd=tmp_path,
    )

    def pids() -> list[int]:
        texts = [p.read_text().strip() if p.exists() else "" for p in (first, second)]
        return [int(t) for t in texts] if all(t.isdigit() for t in texts) else []

    def sleeping(pid: int) -> bool:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep")
        except OSError:
            return False

    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "sleep")
        await until(lambda: len(pids()) == 2 and all(map(sleeping, pids())), pilot, timeout=20)
        started = pids()
        pressed = time.monotonic()
        await pilot.press("escape")
        await until(lambda: not any(map(is_alive, started)), pilot, timeout=5)
        ended_after = time.monotonic() - pressed
        await run_done(pilot)
        assert footers(app)[-1].startswith("aborted")
        assert app.test_provider.remaining == 1  # type: ignore[attr-defined]
        assert app.session is not None and dangling_tool_uses(app.session.full_history) == []
        assert ended_after < 5  # well before the sleeps would have ended by themselves


async def test_ctrl_c_stops_a_run_then_clears_then_quits() -> None:
    turn, _ = held_stream()
    app = make_app([turn])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "talk")
        await until(lambda: bool(app.query(AssistantMarkdown)), pilot)
        await pilot.press("ctrl+c")
        await run_done(pilot)
        assert footers(app)[-1].startswith("aborted")
        app.runs._last_ctrl_c = 0.0  # the quit window of that press has passed
        app.prompt.set_text("half typed")
        await pilot.press("ctrl+c")
        assert app.prompt.text == "" and app.is_running
        await pilot.press("ctrl+c")
        await until(lambda: not app.is_running, pilot)
    assert app.return_code == 0


async def test_ctrl_c_copies_a_selection_instead_of_quitting() -> None:
    app = make_app([reply("an answer worth copying")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "question")
        await run_done(pilot)
        app.prompt.set_text("some prompt text")
        await pilot.press("shift+home")  # select the prompt's line
        assert app.prompt.selected_text == "some prompt text"
        await pilot.press("ctrl+c")
        assert app.clipboard == "some prompt text"
        await pilot.press("ctrl+c")  # still a selection: copy again, never quit
        assert app.is_running
        message = app.query(UserMessage).last()
        await pilot.click(message, times=3)  # triple click selects the widget's text
        assert app.screen.get_selected_text()
        selected = app.screen.get_selected_text()
        await pilot.press("ctrl+c")
        assert app.clipboard == selected and "question" in selected
        assert app.is_running


async def test_shift_tab_cycles_without_yolo_and_mode_yolo_asks() -> None:
    app = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.agent is not None
        seen = []
        for _ in range(6):
            await pilot.press("shift+tab")
            seen.append(app.agent.permission_mode)
        assert seen == ["acceptEdits", "plan", "default"] * 2
        await send(pilot, "/mode yolo")
        await until(lambda: isinstance(app.screen, ConfirmScreen), pilot)
        assert app.agent.permission_mode == "default"
        await pilot.press("enter")  # the focus is on Cancel: Enter alone never confirms
        await until(lambda: not isinstance(app.screen, ConfirmScreen), pilot)
        assert app.agent.permission_mode == "default"
        assert any("stays default" in str(n.render()) for n in app.query(NoteLine))
        await send(pilot, "/mode yolo")
        await until(lambda: isinstance(app.screen, ConfirmScreen), pilot)
        await pilot.press("y")
        await until(lambda: app.agent is not None and app.agent.permission_mode == "yolo", pilot)
        assert app.status.info.mode == "yolo"
        await pilot.press("shift+tab")  # from yolo the cycle starts over
        assert app.agent.permission_mode == "default"


async def test_yolo_flag_needs_no_dialog() -> None:
    app = make_app([], mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/mode yolo")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.agent is not None and app.agent.permission_mode == "yolo"


async def test_typing_with_focus_on_a_panel_goes_to_the_prompt() -> None:
    app = make_app(
        [reply(tool_call("MockRead", {"path": "a"}, id="r1")), reply("done")], tools=[MockRead()], mode="yolo"
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "read")
        await run_done(pilot)
        for _ in range(10):  # Tab walks the focus chain onto the panel's title
            await pilot.press("tab")
            if app.focused is not app.prompt and app.focused is not None:
                break
        focused = app.focused
        assert focused is not app.prompt and focused is not None
        assert any(focused in p.walk_children() for p in app.query(ToolPanel))
        await pilot.press("h", "i")
        assert app.focused is app.prompt
        assert app.prompt.text == "hi"
        panel = app.query_one(ToolPanel)
        was = panel.collapsed
        panel.query_one("CollapsibleTitle").focus()
        await pilot.press("enter")  # a key the panel binds is still the panel's
        assert panel.collapsed is not was and app.prompt.text == "hi"
