"""MCP server entries: `agent.mcp_servers[name]` (and `mcpServers` in config.json).

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
_HTTP_TYPES = {"http", "streamable-http", "streamable_http", "streamablehttp"}


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

    @property
    def transport(self) -> str:
        """ "http" or "sse"."""
        return self.kind


ServerConfig = StdioServerConfig | HttpServerConfig


def _get(raw: Mapping[str, Any], camel: str, snake: str) -> Any:
    return raw[camel] if camel in raw else raw.get(snake)


def _str_map(name: str, key: str, value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ConfigError(f"MCP server '{name}': {key} must be an object of strings")
    return {k: str(v) for k, v in value.items()}


def _ms(name: str, key: str, value: Any, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"MCP server '{name}': {key} must be a positive number of milliseconds")
    return int(value)


def is_disabled(raw: Mapping[str, Any]) -> bool:
    """True for an entry with `"disabled": true`."""
    return raw.get("disabled") is True


def parse_server_config(name: str, raw: Mapping[str, Any], cwd: Path) -> ServerConfig:
    """Validate one entry; raises `ConfigError` naming the server."""
    if not isinstance(raw, Mapping):
        raise ConfigError(f"MCP server '{name}': entry must be an object")
    kind = str(raw.get("type") or ("http" if "url" in raw and "command" not in raw else "stdio")).lower()
    timeout = _ms(name, "timeoutMs", _get(raw, "timeoutMs", "timeout_ms"), DEFAULT_TIMEOUT_MS)
    connect = _ms(
        name, "connectTimeoutMs", _get(raw, "connectTimeoutMs", "connect_timeout_ms"), DEFAULT_CONNECT_TIMEOUT_MS
    )
    if kind in _HTTP_TYPES or kind == "sse":
        url = raw.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ConfigError(f"MCP server '{name}': url must be an http(s) URL")
        return HttpServerConfig(
            url=url,
            kind="sse" if kind == "sse" else "http",
            headers=_str_map(name, "headers", raw.get("headers")),
            timeout_ms=timeout,
            connect_timeout_ms=connect,
        )
    if kind != "stdio":
        raise ConfigError(f"MCP server '{name}': unsupported type {kind!r} (use 'stdio', 'http' or 'sse')")
    command = raw.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"MCP server '{name}': command must be a non-empty string")
    args = raw.get("args") or []
    if not isinstance(args, list | tuple) or not all(isinstance(a, str | int | float) for a in args):
        raise ConfigError(f"MCP server '{name}': args must be a list of strings")
    inherit = _get(raw, "inheritEnv", "inherit_env")
    if inherit is not None and not isinstance(inherit, bool):
        raise ConfigError(f"MCP server '{name}': inheritEnv must be a boolean")
    raw_cwd = raw.get("cwd")
    if raw_cwd is not None and not isinstance(raw_cwd, str):
        raise ConfigError(f"MCP server '{name}': cwd must be a string")
    return StdioServerConfig(
        command=command,
        args=tuple(str(a) for a in args),
        env=_str_map(name, "env", raw.get("env")),
        inherit_env=bool(inherit),
        cwd=(cwd / Path(raw_cwd).expanduser()).resolve() if raw_cwd else cwd,
        timeout_ms=timeout,
        connect_timeout_ms=connect,
    )
