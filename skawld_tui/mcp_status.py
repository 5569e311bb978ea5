"""`/mcp`: every MCP server with its state, and `/mcp login NAME` (the OAuth browser step)."""

from __future__ import annotations

import asyncio
import webbrowser
from collections.abc import Awaitable, Callable
from typing import Any

Note = Callable[[str], Awaitable[None]]


def server_lines(agent: Any) -> list[str]:
    """One Markdown line per configured server: transport, state, tools or why it failed."""
    from skawld_core.mcp.manager import mcp_status

    by_name = {s.name: s for s in mcp_status(agent)}
    lines = []
    for name, cfg in agent.mcp_servers.items():
        where = cfg.get("url") or " ".join([str(cfg.get("command", "")), *map(str, cfg.get("args", []))])
        status = by_name.get(name)
        if status is None:
            state = "disabled" if cfg.get("disabled") is True else "not connected"
        elif status.status == "ready":
            state = f"ready, {len(status.tools)} tools"
        elif status.error and status.error.startswith("needs authorization"):
            state = f"**needs authorization**: type `/mcp login {name}`"
        else:
            state = f"{status.status}" + (f": {status.error}" if status.error else "")
        lines.append(f"- **{name}** `{where}` — {state}")
    return lines


async def mcp_command_text(agent: Any, args: str, note: Note) -> str:
    """What `/mcp [login NAME]` shows."""
    if agent is None or not agent.mcp_servers:
        return "no MCP servers configured"
    words = args.split()
    if words[:1] == ["login"]:
        if len(words) != 2 or words[1] not in agent.mcp_servers:
            return f"usage: /mcp login NAME (one of: {', '.join(agent.mcp_servers)})"
        manager = agent.extensions.mcp
        if manager is None:
            return "the MCP servers are not connected yet; try again in a moment"
        name = words[1]

        async def open_browser(url: str) -> None:
            await note(f"opening the browser to authorize {name!r}; waiting up to 5 minutes…\n{url}")
            await asyncio.to_thread(webbrowser.open, url)

        status = await manager.reconnect(name, open_url=open_browser)
        head = f"logged in to {name!r}" if status.status == "ready" else f"{name!r}: {status.error}"
        return "\n".join([head, "", *server_lines(agent)])
    return "\n".join(server_lines(agent))
