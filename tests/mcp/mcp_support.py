"""Helpers for the MCP tests: fixture server entries and an HTTP fixture process."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from ext_helpers import FIXTURES

from skawld_core.events import Event, UserEvent
from skawld_core.messages import ToolResultBlock
from skawld_core.testing import reply, tool_call

SERVER = str(FIXTURES / "mcp_fixture_server.py")


def fixture_entry(*args: str, **extra: Any) -> dict[str, Any]:
    """A stdio entry that runs the fixture server."""
    return {"command": sys.executable, "args": [SERVER, *args], **extra}


@asynccontextmanager
async def http_fixture(*args: str) -> AsyncIterator[tuple[str, asyncio.subprocess.Process]]:
    """Start the fixture over streamable HTTP on 127.0.0.1; yields (url, process)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        SERVER,
        *(args if "--sse" in args else ("--http", *args)),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        assert line.startswith("PORT "), line
        path = "/sse" if "--sse" in args else "/mcp"
        yield f"http://127.0.0.1:{int(line.split()[1])}{path}", proc
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()


def results(events: list[Event]) -> dict[str, ToolResultBlock]:
    out: dict[str, ToolResultBlock] = {}
    for e in events:
        if isinstance(e, UserEvent):
            for b in e.message.content:
                if isinstance(b, ToolResultBlock):
                    out[b.tool_use_id] = b
    return out


async def run_calls(agent: Any, *calls: tuple[str, dict[str, Any], str]) -> dict[str, ToolResultBlock]:
    """One scripted turn calling every `(tool, input, id)`, then "done"."""
    provider = agent.provider
    provider.enqueue(reply(*(tool_call(name, args, id=i) for name, args, i in calls)))
    provider.enqueue(reply("done"))
    session = await agent.session()
    events = [e async for e in session.run("go")]
    assert events[-1].type == "result", events[-1]
    return results(events)


@asynccontextmanager
async def oauth_server(*args: str) -> AsyncIterator[str]:
    """Start the OAuth-protected fixture (tests/fixtures/mcp_oauth_server.py); yields its MCP URL."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(FIXTURES / "mcp_oauth_server.py"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        assert line.startswith("PORT "), line
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        proc.kill()
        await proc.wait()
