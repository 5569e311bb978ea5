"""MCP over streamable HTTP against the fixture server on 127.0.0.1."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from ext_helpers import make_agent
from mcp_support import http_fixture, run_calls

from skawld_core.errors import ConfigError
from skawld_core.messages import ImageBlock
from skawld_core.testing import ScriptedProvider

pytestmark = pytest.mark.timeout(60)


async def test_http_tools_and_results(tmp_path: Path) -> None:
    async with http_fixture() as (url, _proc):
        servers = {"web": {"type": "http", "url": url, "headers": {"X-Test": "1"}}}
        agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers=servers, permission_mode="yolo")
        out = await run_calls(
            agent,
            ("mcp__web__echo", {"text": "over http"}, "e"),
            ("mcp__web__add", {"a": 1, "b": 2}, "a"),
            ("mcp__web__image", {}, "i"),
            ("mcp__web__fail", {}, "f"),
        )
        assert out["e"].content == "echo: over http" and out["a"].content == "3"
        assert isinstance(out["i"].content, list) and isinstance(out["i"].content[0], ImageBlock)
        assert out["f"].is_error
        assert len([n for n in agent.tools.names() if n.startswith("mcp__web__")]) == 17
        await agent.close()


async def test_http_hang_times_out(tmp_path: Path) -> None:
    async with http_fixture() as (url, _proc):
        servers = {"web": {"type": "http", "url": url, "timeoutMs": 700}}
        agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers=servers, permission_mode="yolo")
        out = await run_calls(agent, ("mcp__web__hang", {}, "h"), ("mcp__web__echo", {"text": "x"}, "e"))
        assert out["h"].is_error and "no answer within 700 ms" in str(out["h"].content)
        assert out["e"].content == "echo: x"
        await agent.close()


async def test_http_server_killed_mid_session(tmp_path: Path) -> None:
    async with http_fixture() as (url, _proc):
        servers = {"web": {"type": "http", "url": url, "timeoutMs": 5000}}
        agent = make_agent(
            tmp_path, ScriptedProvider(), mcp_servers=servers, permission_mode="yolo", mcp_fail_fast=False
        )
        out = await run_calls(agent, ("mcp__web__crash", {}, "c"))
        assert out["c"].is_error and str(out["c"].content).startswith("MCP tool failed")
        out = await run_calls(agent, ("mcp__web__echo", {"text": "x"}, "e"))
        assert out["e"].is_error and str(out["e"].content).startswith("MCP server 'web' is unavailable: ")
        await agent.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_http_nothing_listening(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"web": {"type": "http", "url": url}})
    with pytest.raises(ConfigError, match="Failed to connect MCP server"):
        await agent.session()
    await agent.close()


async def test_legacy_sse_transport(tmp_path: Path) -> None:
    async with http_fixture("--sse") as (url, _proc):
        servers = {"old": {"type": "sse", "url": url}}
        agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers=servers, permission_mode="yolo")
        out = await run_calls(agent, ("mcp__old__echo", {"text": "sse"}, "e"), ("mcp__old__add", {"a": 4, "b": 5}, "a"))
        assert out["e"].content == "echo: sse" and out["a"].content == "9"
        assert [s.transport for s in agent.extensions.mcp.status()] == ["sse"]
        await agent.close()
