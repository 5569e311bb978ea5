"""Claude Code's project `.mcp.json` as a config layer.

The file is ``{"mcpServers": {name: {type?, command, args, env, url, headers}}}``
with ``type`` one of ``stdio`` (the default), ``http`` or ``sse``. Its servers are
read beside skawld's own ``mcpServers``: a server of the same name in a skawld
config file wins (the loser is reported by ``skawld -v``). The servers run code or
send data, so they need project trust exactly like the project's ``mcpServers``,
and a changed file asks again. ``${VAR}`` / ``${VAR:-default}`` are expanded as in
every MCP entry (`skawld_core.mcp.expand`).

`skawld_core.config.load_config` reads the file (`_read_mcp_json`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import ConfigError

__all__ = ["MCP_JSON_FILE", "mcp_json_document"]

MCP_JSON_FILE = Path(".mcp.json")


def mcp_json_document(doc: object, *, where: str) -> tuple[dict[str, Any], list[str]]:
    """A `.mcp.json` object as a skawld config document (``mcpServers`` only), plus
    notes on keys that are not applied. `where` names the file in errors."""
    if not isinstance(doc, dict):
        raise ConfigError(f"Invalid MCP config in {where}: expected a JSON object")
    servers = doc.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ConfigError(f"Invalid MCP config in {where} (/mcpServers): expected an object of servers")
    notes = [f"{k!r} is not supported by skawld in .mcp.json; ignored" for k in sorted(set(doc) - {"mcpServers"})]
    return ({"mcpServers": dict(servers)} if servers else {}), notes
