"""Snapshot: approving a Write over an existing file shows what it replaces, with context."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from skawld_core.testing import reply, tool_call
from skawld_core.tools.read import ReadTool
from skawld_core.tools.write import WriteTool
from skawld_tui.app.screens.permission import PermissionScreen

from .helpers import SIZE, make_app, ready, send, until

pytestmark = pytest.mark.timeout(60)


def test_write_over_existing_file_approval(snap_compare: Any, tmp_path: Path) -> None:
    (tmp_path / "config.py").write_text(
        "DEBUG = False\nPORT = 8000\nHOST = 'localhost'\nWORKERS = 4\nTIMEOUT = 30\nRETRIES = 3\n"
    )
    new = "DEBUG = False\nPORT = 8080\nHOST = 'localhost'\nWORKERS = 4\nTIMEOUT = 30\nRETRIES = 3\n"
    # Read first: a Write over a file not Read fails before anyone is asked (issue 32).
    app = make_app(
        [
            reply(tool_call("Read", {"file_path": "config.py"}, id="r1")),
            reply(tool_call("Write", {"file_path": "config.py", "content": new}, id="w1")),
        ],
        tools=[ReadTool(), WriteTool()],
        cwd=tmp_path,
    )

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "use port 8080")
        await until(lambda: isinstance(pilot.app.screen, PermissionScreen), pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
