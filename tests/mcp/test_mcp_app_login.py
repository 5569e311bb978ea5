"""The app's `/mcp` against a real OAuth-protected MCP server (tests/fixtures/mcp_oauth_server.py):
the server is listed as needing authorization with a key to log in; `a` runs the browser step (the
test plays the browser: it opens the authorization URL and follows the consent redirect back to
skawld's loopback listener) and the server becomes ready with its tools."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import httpx2
import pytest
from mcp_support import oauth_server
from textual.widgets import OptionList, Static

from skawld_tui.app.screens.mcp_servers import McpServersScreen
from skawld_tui.mcp_status import server_rows
from tests.tui.helpers import SIZE, make_app, send, until

pytestmark = pytest.mark.timeout(120)


async def test_a_logs_in_to_a_server_that_needs_authorization(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    opened: list[str] = []

    def browser(url: str) -> bool:  # the user's browser (runs in a thread, as webbrowser.open does)
        opened.append(url)
        response = httpx2.get(url, follow_redirects=True, timeout=30)
        return response.status_code == 200 and "authorized" in response.text

    monkeypatch.setattr(webbrowser, "open", browser)
    async with oauth_server() as url:
        app = make_app([], cwd=tmp_path, mcp_servers={"secure": {"type": "http", "url": url}}, mcp_fail_fast=False)
        async with app.run_test(size=SIZE) as pilot:
            await until(lambda: app.session_ready.is_set(), pilot, timeout=60)
            await until(lambda: server_rows(app.agent)[0].state != "not connected", pilot, timeout=60)
            await send(pilot, "/mcp")
            await until(lambda: isinstance(app.screen, McpServersScreen), pilot)
            screen: McpServersScreen = app.screen  # type: ignore[assignment]
            [row] = screen.rows
            assert (row.name, row.state, row.needs_login) == ("secure", "needs authorization", True)
            shown = str(screen.query_one(OptionList).get_option_at_index(0).prompt)
            assert "needs authorization · press a to log in" in shown and url in shown
            assert "mcp__secure__whoami" not in app.agent.tools.names()

            await pilot.press("a")
            status = screen.query_one("#mcp-status", Static)
            await until(lambda: "logged in to 'secure'" in str(status.render()), pilot, timeout=60)
            [opened_url] = opened
            assert "code_challenge_method=S256" in opened_url
            [row] = screen.rows
            assert row.state.startswith("ready, ") and not row.needs_login
            assert "mcp__secure__whoami" in app.agent.tools.names()

            await pilot.press("a")  # a ready server: nothing to do, and said so
            assert "does not need authorization" in str(status.render())
            assert len(opened) == 1
            await pilot.press("escape")
            await until(lambda: not isinstance(app.screen, McpServersScreen), pilot)
            await app.agent.close()
