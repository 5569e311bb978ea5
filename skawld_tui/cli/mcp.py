"""``skawld mcp login|logout NAME``: OAuth for a remote MCP server outside a chat; ``skawld mcp serve``
(`skawld_tui.cli.mcp_serve`): skawld's tools as an MCP server.

``login`` runs the browser step for one configured HTTP server: it prints the authorization URL
(and opens the browser when there is one), waits for the redirect on a loopback port, stores the
tokens under ``~/.skawld/mcp-auth/`` (mode 0600) and lists the server's tools. Headless runs then
use the stored tokens (refreshed when they expire). ``logout`` deletes them.
Exit codes: 0 ok, 1 failure, 2 usage (no such server), 3 config.
"""

from __future__ import annotations

import asyncio
import sys
import webbrowser
from pathlib import Path
from typing import Annotated, Any

import typer

from .mcp_serve import mcp_serve
from .subcommand import new_app

app = new_app("Log in to remote MCP servers (OAuth), or serve skawld's tools over MCP.")
app.command("serve")(mcp_serve)
CwdOpt = Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")]


def _fail(message: str, code: int = 1) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    return typer.Exit(code)


def _server(name: str, cwd: str | None) -> tuple[Any, Path]:
    from skawld_core.errors import ConfigError
    from skawld_core.mcp.config import HttpServerConfig, parse_server_config
    from skawld_core.settings import CliOptions, resolve_settings

    base = Path(cwd).expanduser().resolve() if cwd else Path.cwd()
    try:
        settings = resolve_settings(CliOptions(cwd=str(base)))
        raw = settings.mcp_servers.get(name)
        if raw is None:
            raise _fail(f"no MCP server named {name!r} (configured: {', '.join(settings.mcp_servers) or 'none'})", 2)
        config = parse_server_config(name, raw.model_dump(exclude_none=True), settings.cwd)
    except ConfigError as exc:
        raise _fail(str(exc), 3) from None
    if not isinstance(config, HttpServerConfig) or config.oauth is None:
        raise _fail(f"MCP server {name!r} is not a remote server with OAuth", 2)
    return config, settings.cwd


async def _show(url: str) -> None:
    print(f"Open this URL to authorize skawld:\n  {url}", flush=True)
    await asyncio.to_thread(webbrowser.open, url)


@app.command("login")
def login(name: Annotated[str, typer.Argument(help="The server's name in your config.")], cwd: CwdOpt = None) -> None:
    """Authorize skawld for a remote MCP server in the browser and store the tokens."""
    from skawld_core.mcp.connection import McpConnectError, ServerConnection

    config, work = _server(name, cwd)

    async def go() -> int:
        conn = ServerConnection(name, config, work)
        try:
            tools = await conn.login(_show)
        finally:
            await conn.close()
        return len(tools)

    try:
        count = asyncio.run(go())
    except McpConnectError as exc:
        raise _fail(f"MCP server {name!r}: {exc}") from None
    print(f"Logged in to {name!r}: {count} tools.")


@app.command("logout")
def logout(name: Annotated[str, typer.Argument(help="The server's name in your config.")], cwd: CwdOpt = None) -> None:
    """Delete the stored tokens of a remote MCP server."""
    from skawld_core.mcp.oauth import forget_server

    config, _work = _server(name, cwd)
    print(f"Logged out of {name!r}." if forget_server(name, config.url) else f"No tokens were stored for {name!r}.")
