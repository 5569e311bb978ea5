"""The permission dialog says why it asks when the engine knows (protected path, outside the project)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from skawld_core.testing import reply, tool_call
from skawld_core.tools.write import WriteTool
from skawld_tui.app.screens.permission import PermissionScreen

from .helpers import SIZE, make_app, ready, run_done, send, until

pytestmark = pytest.mark.timeout(60)


async def test_dialog_shows_why_a_protected_write_asks(tmp_path: Path) -> None:
    app = make_app(
        [reply(tool_call("Write", {"file_path": ".mcp.json", "content": "{}"}, id="w")), reply("ok")],
        tools=[WriteTool()],
        mode="acceptEdits",
        cwd=tmp_path,
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "configure mcp")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        shown = str(app.screen.query_one("#permission-reason", Static).render())
        assert (
            shown
            == f"Asking because {tmp_path / '.mcp.json'} is a protected path: MCP server configuration (.mcp.json)."
        )
        await pilot.press("n")
        await run_done(pilot)
    assert not (tmp_path / ".mcp.json").exists()
