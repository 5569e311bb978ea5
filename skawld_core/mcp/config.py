"""MCP server entries: `agent.mcp_servers[name]` (and `mcpServers` in config.json).

The entry's shape is the config schema's (`skawld_core.config_model.McpServer`).

Accepted shapes (camelCase keys as in the reference's config; the snake_case
spellings work too)::

    {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"],
     "env": {"KEY": "value"}, "inheritEnv": false, "cwd": ".", "timeoutMs": 60000,
     "connectTimeoutMs": 30000}                                   # type "stdio" (default)
    {"type": "http", "url": "http://127.0.0.1:8000/mcp",
     "headers": {"Authorization": "Bearer …"}, "timeoutMs": 60000}
    {"type": "sse", "url": "http://127.0.0.1:8000/sse"}          # the older HTTP+SSE transport

A stdio server gets a minimal safe environment (HOME, LOGNAME, PATH, SHELL,
TERM, USER) plus `env`, or the whole parent environment plus `env` with
`inheritEnv: true`. `cwd` defaults to the agent's working directory.
`"disabled": true` leaves an entry out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..config_model import HttpMcpServer, validate_mcp_server
from ..errors import ConfigError

__all__ = [
    "DEFAULT_CONNECT_TIMEOUT_MS",
    "DEFAULT_TIMEOUT_MS",
    "HttpServerConfig",
    "ServerConfig",
    "StdioServerConfig",
    "parse_server_config",
]

DEFAULT_TIMEOUT_MS = 60_000
DEFAULT_CONNECT_TIMEOUT_MS = 30_000


@dataclass(frozen=True, kw_only=True)
class StdioServerConfig:
    """A server started as a subprocess and spoken to over stdin/stdout."""

    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    inherit_env: bool = False
    cwd: Path | None = None
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS

    @property
    def transport(self) -> str:
        """ "stdio"."""
        return "stdio"


@dataclass(frozen=True, kw_only=True)
class HttpServerConfig:
    """A server reached over streamable HTTP (or the legacy SSE transport)."""

    url: str
    kind: Literal["http", "sse"] = "http"
    headers: dict[str, str] = field(default_factory=dict)
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS
    oauth: dict[str, Any] | None = None
    """The entry's ``oauth`` object; None when OAuth is off (``"oauth": false`` or an Authorization header)."""

    @property
    def transport(self) -> str:
        """ "http" or "sse"."""
        return self.kind


ServerConfig = StdioServerConfig | HttpServerConfig


def is_disabled(raw: Mapping[str, Any]) -> bool:
    """True for an entry with `"disabled": true`."""
    return raw.get("disabled") is True


def parse_server_config(name: str, raw: Mapping[str, Any], cwd: Path) -> ServerConfig:
    """Validate one entry (with the config schema's `McpServer` model); raises `ConfigError` naming the server."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"MCP server '{name}': entry must be an object")
    entry = validate_mcp_server(name, dict(raw))
    timeout = entry.timeoutMs or DEFAULT_TIMEOUT_MS
    connect = entry.connectTimeoutMs or DEFAULT_CONNECT_TIMEOUT_MS
    if isinstance(entry, HttpMcpServer):
        headers = dict(entry.headers or {})
        own_auth = entry.oauth is False or any(k.lower() == "authorization" for k in headers)
        oauth = None if own_auth else (entry.oauth.model_dump(exclude_none=True) if entry.oauth else {})
        return HttpServerConfig(
            url=entry.url,
            kind="sse" if entry.type == "sse" else "http",
            headers=headers,
            timeout_ms=timeout,
            connect_timeout_ms=connect,
            oauth=oauth,
        )
    return StdioServerConfig(
        command=entry.command,
        args=tuple(entry.args or ()),
        env=dict(entry.env or {}),
        inherit_env=bool(entry.inheritEnv),
        cwd=(cwd / Path(entry.cwd).expanduser()).resolve() if entry.cwd else cwd,
        timeout_ms=timeout,
        connect_timeout_ms=connect,
    )
