"""`/mcp`: every MCP server with its state, and `/mcp login NAME` (the OAuth browser step)."""

from __future__ import annotations

import asyncio
import webbrowser
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

Note = Callable[[str], Awaitable[None]]


@dataclass(frozen=True)
class ServerRow:
    """One configured server as `/mcp` shows it."""

    name: str
    where: str  # its URL, or its command line
    state: str  # "ready, 3 tools", "needs authorization", "failed: …", "disabled"…
    needs_login: bool  # the server needs the OAuth browser step (`/mcp login NAME`, `a` in the app)


def server_rows(agent: Any) -> list[ServerRow]:
    """Every configured server with its state, in configuration order."""
    from skawld_core.mcp.manager import mcp_status

    by_name = {s.name: s for s in mcp_status(agent)}
    rows = []
    for name, cfg in agent.mcp_servers.items():
        where = cfg.get("url") or " ".join([str(cfg.get("command", "")), *map(str, cfg.get("args", []))])
        status = by_name.get(name)
        needs_login = bool(status and status.error and status.error.startswith("needs authorization"))
        if status is None:
            state = "disabled" if cfg.get("disabled") is True else "not connected"
        elif status.status == "ready":
            state = f"ready, {len(status.tools)} tools"
        elif needs_login:
            state = "needs authorization"
        else:
            state = f"{status.status}" + (f": {status.error}" if status.error else "")
        rows.append(ServerRow(name, where, state, needs_login))
    return rows


def server_lines(agent: Any) -> list[str]:
    """One Markdown line per configured server: transport, state, tools or why it failed."""
    lines = []
    for row in server_rows(agent):
        state = f"**needs authorization**: type `/mcp login {row.name}`" if row.needs_login else row.state
        lines.append(f"- **{row.name}** `{row.where}` — {state}")
    return lines


async def login_server(agent: Any, name: str, show: Note) -> str:
    """The OAuth browser step for one server (`show` gets the URL, the browser opens): what happened."""
    manager = agent.extensions.mcp
    if manager is None:
        return "the MCP servers are not connected yet; try again in a moment"

    async def open_browser(url: str) -> None:
        await show(f"opening the browser to authorize {name!r}; waiting up to 5 minutes…\n{url}")
        await asyncio.to_thread(webbrowser.open, url)

    status = await manager.reconnect(name, open_url=open_browser)
    return f"logged in to {name!r}" if status.status == "ready" else f"{name!r}: {status.error}"


async def mcp_command_text(agent: Any, args: str, note: Note) -> str:
    """What `/mcp [login NAME]` shows."""
    if agent is None or not agent.mcp_servers:
        return "no MCP servers configured"
    words = args.split()
    if words[:1] == ["login"]:
        if len(words) != 2 or words[1] not in agent.mcp_servers:
            return f"usage: /mcp login NAME (one of: {', '.join(agent.mcp_servers)})"
        head = await login_server(agent, words[1], note)
        return "\n".join([head, "", *server_lines(agent)])
    return "\n".join(server_lines(agent))
