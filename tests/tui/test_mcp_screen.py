"""The app's `/mcp` screen: a snapshot of servers in each state (the list is given; the login
itself runs against a real OAuth server in tests/mcp/test_mcp_app_login.py)."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from skawld_tui.app.screens.mcp_servers import McpServersScreen
from skawld_tui.mcp_status import ServerRow

from .helpers import SIZE, make_app, ready, until

ROWS = [
    ServerRow("tracker", "https://tracker.example/mcp", "needs authorization", True),
    ServerRow("files", "npx -y @modelcontextprotocol/server-filesystem .", "ready, 14 tools", False),
    ServerRow("docs", "https://docs.example/mcp", "failed: connection refused", False),
    ServerRow("old", "python old_server.py", "disabled", False),
]


async def never_called(name: str, show: Any) -> str:
    raise AssertionError("the snapshot presses no key")


def test_mcp_servers_screen(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        pilot.app.push_screen(McpServersScreen(list(ROWS), login=never_called, reload=lambda: list(ROWS)))
        await until(lambda: isinstance(pilot.app.screen, McpServersScreen), pilot)
        await pilot.pause()

    assert snap_compare(make_app([]), terminal_size=SIZE, run_before=run_before)
