"""OAuth for remote MCP servers against a real OAuth-protected MCP server (the `mcp` package as
authorization and resource server, tests/fixtures/mcp_oauth_server.py). The browser step is done by
the test: it GETs the authorization URL, whose consent redirects to skawld's loopback listener."""

from __future__ import annotations

import json
import socket
import stat
from pathlib import Path
from typing import Any

import httpx2
import pytest
from ext_helpers import make_agent
from mcp_support import oauth_server, run_calls

from skawld_core.mcp.oauth import auth_file
from skawld_core.permissions import PermissionAllow
from skawld_core.testing import ScriptedProvider

pytestmark = pytest.mark.timeout(90)


class Browser:
    """Plays the user's browser: opens the authorization URL and follows the consent redirect."""

    def __init__(self) -> None:
        self.opened: list[str] = []

    async def __call__(self, url: str) -> None:
        self.opened.append(url)
        async with httpx2.AsyncClient(follow_redirects=True) as client:
            response = await client.get(url)
        assert response.status_code == 200 and "authorized" in response.text


async def allow(*_args: Any) -> PermissionAllow:
    return PermissionAllow()


def agent_for(tmp_path: Path, url: str, **entry: Any) -> Any:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    server = {"type": "http", "url": url, **entry}
    return make_agent(
        project, ScriptedProvider(), mcp_servers={"secure": server}, mcp_fail_fast=False, can_use_tool=allow
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def text_of(block: Any) -> str:
    return block.content if isinstance(block.content, str) else "".join(b.text for b in block.content)


async def test_needs_authorization_then_login_then_stored_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    async with oauth_server() as url:
        agent = agent_for(tmp_path, url)
        await agent.session()
        manager = agent.extensions.mcp
        [status] = manager.status()
        assert status.status == "failed" and status.error.startswith("needs authorization")
        assert "skawld mcp login secure" in status.error
        assert "mcp__secure__whoami" not in agent.tools.names()

        browser = Browser()
        status = await manager.reconnect("secure", open_url=browser)
        assert status.status == "ready", status.error
        [opened] = browser.opened
        assert "code_challenge_method=S256" in opened and "redirect_uri=http%3A%2F%2F127.0.0.1" in opened
        got = await run_calls(agent, ("mcp__secure__whoami", {}, "w"))
        assert text_of(got["w"]).startswith("client ")  # a dynamically registered client
        await agent.close()

        stored = auth_file("secure", url)
        assert stored.is_file() and stat.S_IMODE(stored.stat().st_mode) == 0o600
        assert stat.S_IMODE(stored.parent.stat().st_mode) == 0o700
        token = json.loads(stored.read_text())["tokens"]["access_token"]
        for path in (tmp_path / "project").rglob("*"):  # never in the project (nor its session files)
            if path.is_file():
                assert token.encode() not in path.read_bytes(), path

        again = agent_for(tmp_path, url)  # a later process: the stored token, no browser
        got = await run_calls(again, ("mcp__secure__whoami", {}, "w"))
        assert text_of(got["w"]).startswith("client ")
        await again.close()

        doc = json.loads(stored.read_text())
        doc["expiresAt"] = 1.0  # the token has expired (1970): the next connection refreshes it
        stored.write_text(json.dumps(doc))
        refreshed = agent_for(tmp_path, url)
        got = await run_calls(refreshed, ("mcp__secure__whoami", {}, "w"))
        assert text_of(got["w"]).startswith("client ")
        await refreshed.close()
        assert json.loads(stored.read_text())["tokens"]["access_token"] != token


async def test_preregistered_client_and_oauth_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    port = free_port()
    async with oauth_server("--preregister", f"team-client:s3cret@http://127.0.0.1:{port}/callback") as url:
        oauth = {"clientId": "team-client", "clientSecret": "s3cret", "callbackPort": port}
        agent = agent_for(tmp_path, url, oauth=oauth)
        await agent.session()
        status = await agent.extensions.mcp.reconnect("secure", open_url=Browser())
        assert status.status == "ready", status.error
        got = await run_calls(agent, ("mcp__secure__whoami", {}, "w"))
        assert text_of(got["w"]) == "client team-client"
        await agent.close()

        off = agent_for(tmp_path, url, oauth=False)
        await off.session()
        [status] = off.extensions.mcp.status()
        assert status.error is not None and status.error.startswith("needs authorization"), status.error
        await off.close()
