"""OAuth through the real `skawld`: headless names the server that needs authorization,
`skawld mcp login` runs the browser step (the test's browser, through $BROWSER), then headless
runs use the stored token; `/mcp` in the plain mode shows the state and logs in too."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from ext_helpers import FIXTURES
from mcp_support import oauth_server
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from skawld_core.testing import ScriptedProvider
from skawld_tui.plain.chat import make_prompt_session, run_plain
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn
from tests.tui.helpers import plain_agent_factory

pytestmark = pytest.mark.timeout(120)
BROWSER = f'"{sys.executable}" "{FIXTURES / "fake_browser.py"}" %s'


async def test_login_command_then_headless_uses_the_stored_token(cli: CliEnv) -> None:
    log = cli.home / "browser.log"
    env = {"BROWSER": BROWSER, "FAKE_BROWSER_LOG": str(log)}
    async with oauth_server() as url:
        cli.write_user_config({"mcpServers": {"tracker": {"type": "http", "url": url}}})
        refused = cli.run(*cli.args("-p", "hi"), env=env)
        assert refused.returncode != 0
        assert "tracker" in refused.stderr and "needs authorization" in refused.stderr
        assert "skawld mcp login tracker" in refused.stderr
        assert not log.exists()  # a headless run never opens a browser

        login = cli.run("mcp", "login", "tracker", env=env)
        assert login.returncode == 0, login.stderr
        assert "Logged in to 'tracker': 1 tools." in login.stdout
        assert "code_challenge=" in log.read_text()

        cli.srv.anthropic.enqueue(turn(tool_call("mcp__tracker__whoami", {}, id="w")), turn(text("done")))
        out = cli.run(*cli.args("-p", "who", "--permission-mode", "yolo"), env=env)
        assert out.returncode == 0, out.stderr
        body = json.dumps(cli.srv.anthropic.wait_for_requests(2)[1].body)
        assert "client " in body
        assert len(log.read_text().splitlines()) == 1  # no second browser step

        assert "Logged out of 'tracker'." in cli.run("mcp", "logout", "tracker", env=env).stdout
        assert cli.run("mcp", "login", "nope", env=env).returncode == 2


async def test_plain_mcp_command_shows_state_and_logs_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("BROWSER", BROWSER)
    async with oauth_server() as url:
        factory = plain_agent_factory(
            ScriptedProvider([]),
            cwd=tmp_path,
            mcp_servers={"secure": {"type": "http", "url": url}},
            mcp_fail_fast=False,
        )
        buf = io.StringIO()
        console = Console(file=buf, width=200, force_terminal=False, color_system=None)
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            pipe.send_text("/mcp\r/mcp login secure\r/exit\r")
            prompt = make_prompt_session(input=pipe, output=DummyOutput())
            assert await run_plain(factory, console=console, prompt_session=prompt) == 0
    out = buf.getvalue()
    assert "needs authorization: type /mcp login secure" in out
    assert "opening the browser to authorize 'secure'" in out
    assert "logged in to 'secure'" in out and "ready, 1 tools" in out
