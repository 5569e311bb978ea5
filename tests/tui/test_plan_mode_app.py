"""Plan mode in the app (issue 14, point 2): Shift+Tab cycles default → acceptEdits → plan,
`/mode plan` works, and ExitPlanMode opens the plan dialog."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from skawld_core.testing import reply, tool_call
from skawld_tui.app import slash_commands
from skawld_tui.app.screens.plan import KEEP_PLANNING, PlanScreen
from skawld_tui.app.widgets.blocks import NoteLine
from tests.support.mock_tools import MockWrite

from .helpers import SIZE, make_app, ready, run_done, send, until

pytestmark = pytest.mark.timeout(60)

PLAN = "## Plan\n\n1. Add `greet.py`\n2. Test it with **pytest**"


def plan_app(tmp_path: Path) -> Any:
    return make_app(
        [
            reply("Here is my plan.", tool_call("ExitPlanMode", {"plan": PLAN}, id="x")),
            reply(tool_call("MockWrite", {"path": "greet.py"}, id="w")),
            reply("done"),
        ],
        tools=[MockWrite()],
        mode="plan",
        cwd=tmp_path,
    )


async def tool_result(app: Any, tool_use_id: str) -> str:
    for stored in await app.test_store.load_messages(app.session.id):
        for block in stored.message.content:
            if getattr(block, "tool_use_id", None) == tool_use_id and hasattr(block, "content"):
                return str(block.content)
    raise AssertionError(f"no result for {tool_use_id}")


def test_cycle_never_reaches_yolo() -> None:
    assert slash_commands.next_mode("default") == "acceptEdits"
    assert slash_commands.next_mode("acceptEdits") == "plan"
    assert slash_commands.next_mode("plan") == "default"
    assert slash_commands.next_mode("yolo") == "default"


async def test_shift_tab_cycle_and_mode_command(tmp_path: Path) -> None:
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        seen = []
        for _ in range(4):
            await pilot.press("shift+tab")
            seen.append((app.agent.permission_mode, app.status.info.mode))
        assert seen == [("acceptEdits",) * 2, ("plan",) * 2, ("default",) * 2, ("acceptEdits",) * 2]
        await send(pilot, "/mode plan")
        await pilot.pause()
        assert app.agent.permission_mode == "plan" and app.status.info.mode == "plan"
        assert "ExitPlanMode" in app.agent.tools
        assert any("permission mode: plan" in str(n.render()) for n in app.query(NoteLine))


async def test_approve_with_accept_edits_leaves_plan_mode(tmp_path: Path) -> None:
    app = plan_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "plan the greeting")
        await until(lambda: isinstance(app.screen, PlanScreen), pilot)
        assert app.screen.plan == PLAN
        await pilot.press("a")
        await run_done(pilot)
        assert app.agent.permission_mode == "acceptEdits" and app.status.info.mode == "acceptEdits"
        assert "approved your plan" in await tool_result(app, "x")
        assert await tool_result(app, "w") == "write result"  # acceptEdits: no permission dialog


async def test_keep_planning_sends_feedback(tmp_path: Path) -> None:
    app = plan_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "plan the greeting")
        await until(lambda: isinstance(app.screen, PlanScreen), pilot)
        app.screen.query_one("#plan-feedback").value = "also greet in French"  # type: ignore[attr-defined]
        await pilot.press("n")
        await run_done(pilot)
        assert app.agent.permission_mode == "plan" and app.status.info.mode == "plan"
        assert await tool_result(app, "x") == f"Tool call denied: {KEEP_PLANNING} Their feedback: also greet in French"
        assert "not available in plan mode" in await tool_result(app, "w")


def test_plan_dialog_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "plan the greeting")
        await until(lambda: isinstance(pilot.app.screen, PlanScreen), pilot)
        await pilot.pause()

    assert snap_compare(plan_app(tmp_path), terminal_size=SIZE, run_before=run_before)
