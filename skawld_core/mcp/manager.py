"""`McpManager`: connects every configured server in parallel, registers their
tools on the agent, reports failures, and closes them all (§2.17).

Fail-fast (the reference, `Agent(mcp_fail_fast=True)`): any failing server,
bad entry or name problem closes everything and raises `ConfigError`
"Failed to connect MCP server(s): name: reason; …". Tolerant
(`mcp_fail_fast=False`, the app's default): failures are recorded in
`manager.failures` / `manager.warnings` (and logged to the `skawld.mcp`
logger), the other servers' tools register, and a server that dies later is
restarted on its next call.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import ConfigError
from .config import ServerConfig, is_disabled, parse_server_config
from .connection import ClientSide, ListKind, McpConnectError, ServerConnection
from .elicitation import decline_all
from .naming import check_server_names, plan_tool_names
from .tool import McpTool

if TYPE_CHECKING:
    from ..host import ExtensionHost
    from .oauth import OpenUrl

__all__ = ["McpManager", "McpServerStatus", "connect_mcp", "mcp_status"]

log = logging.getLogger("skawld.mcp")
log.addHandler(logging.NullHandler())  # never the terminal unless the app configures logging


@dataclass(frozen=True)
class McpServerStatus:
    """What the app can show about one server."""

    name: str
    transport: str
    status: str
    error: str | None
    tools: list[str]
    log_file: str | None


class McpManager:
    """All MCP connections of one Agent."""

    def __init__(self, agent: ExtensionHost) -> None:
        self.agent = agent
        self.fail_fast = agent.mcp_fail_fast
        self.connections: dict[str, ServerConnection] = {}
        self.failures: dict[str, str] = {}
        self.warnings: list[str] = []
        self.tools: list[McpTool] = []
        self.changes: dict[str, int] = {}
        """`server:kind` → how many list-changed notifications arrived (prompts and resources are
        read fresh after one; tools are re-listed at once)."""
        self._closed = False
        self._changed = asyncio.Event()
        self._client_side = ClientSide(
            roots=lambda: [agent.cwd, *getattr(agent, "additional_directories", ())],
            elicit=lambda request: (agent.elicit or decline_all)(request),  # read when asked: a UI may set it later
            on_list_changed=self._list_changed,
        )

    def _connection(self, name: str, config: ServerConfig) -> ServerConnection:
        conn = ServerConnection(name, config, self.agent.cwd, self.agent.env_passthrough, self._client_side)
        self.connections[name] = conn
        return conn

    def _list_changed(self, server: str, kind: ListKind) -> None:
        conn = self.connections.get(server)
        if kind == "tools" and conn is not None and not self._closed:
            # A call that is running waits for this before its result goes back (`McpTool.execute`).
            conn.refreshing = asyncio.ensure_future(self._refresh_then_count(server, kind))
        else:
            self._count_change(f"{server}:{kind}")

    async def _refresh_then_count(self, server: str, kind: ListKind) -> None:
        await self.refresh_tools(server)
        self._count_change(f"{server}:{kind}")

    def _count_change(self, key: str) -> None:
        self.changes[key] = self.changes.get(key, 0) + 1
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for_change(self, key: str, count: int = 1) -> None:
        """Until `changes[key]` reaches `count` (a tools change counts once its tools are re-listed)."""
        while self.changes.get(key, 0) < count:
            await self._changed.wait()

    async def refresh_tools(self, name: str) -> None:
        """Re-list one server's tools and replace its registered ones (tools/list_changed).
        A failure leaves the old tools in place and is logged."""
        conn = self.connections[name]
        try:
            listed = await conn.list_tools()
        except Exception as exc:
            log.warning("MCP server '%s': could not re-list its tools: %s", name, exc)
            return
        for tool in [t for t in self.tools if t.server == name]:
            self.agent.tools.unregister(tool.name)
            self.tools.remove(tool)
        self._register_tools(name, listed, conn)
        self.agent.invalidate_system_prompt()

    def _register_tools(self, name: str, infos: list[Any], conn: ServerConnection) -> None:
        """Register `infos` (server `name`'s listed tools) under names that clash with none
        already taken; a clash is a warning, and that tool is left out."""
        qualified, problems = plan_tool_names({name: [t.name for t in infos]}, self.agent.tools.names())
        self.warnings.extend(problems)
        for info in infos:
            q = qualified.get((name, info.name))
            if q is not None:
                tool = McpTool(q, name, info, conn)
                self.agent.tools.register(tool)
                self.tools.append(tool)

    def _configs(self) -> dict[str, ServerConfig]:
        configs: dict[str, ServerConfig] = {}
        for name, problem in check_server_names(self.agent.mcp_servers).items():
            self.failures[name] = problem
        for name, raw in self.agent.mcp_servers.items():
            if name in self.failures or is_disabled(raw):
                continue
            try:
                configs[name] = parse_server_config(name, raw, self.agent.cwd)
            except ConfigError as exc:
                self.failures[name] = str(exc).removeprefix(f"MCP server '{name}': ")
        return configs

    async def connect(self) -> None:
        """Connect every server in parallel and build the tool wrappers."""
        configs = self._configs()
        for name, config in configs.items():
            self._connection(name, config)
        names = list(self.connections)
        outcomes = await asyncio.gather(*(self.connections[n].connect() for n in names), return_exceptions=True)
        listed: dict[str, list[Any]] = {}
        for name, outcome in zip(names, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                if isinstance(outcome, asyncio.CancelledError):
                    await self.close()
                    raise outcome
                self.failures[name] = str(outcome)
            else:
                listed[name] = outcome
        taken = [n for n in self.agent.tools.names() if not n.startswith("mcp__")]
        qualified, problems = plan_tool_names({n: [t.name for t in tools] for n, tools in listed.items()}, taken)
        self.warnings.extend(problems)
        if self.fail_fast and (self.failures or problems):
            await self.close()
            details = [f"{n}: {why}" for n, why in self.failures.items()] + problems
            raise ConfigError(f"Failed to connect MCP server(s): {'; '.join(details)}")
        for name, tools in listed.items():
            for info in tools:
                q = qualified.get((name, info.name))
                if q is not None:
                    self.tools.append(McpTool(q, name, info, self.connections[name]))
        for name, why in self.failures.items():
            log.warning("MCP server '%s' is unavailable: %s", name, why)
        for problem in problems:
            log.warning("MCP tool skipped: %s", problem)

    def status(self) -> list[McpServerStatus]:
        """One entry per configured server (failed ones included), by name."""
        out: list[McpServerStatus] = []
        for name in self.agent.mcp_servers:
            conn = self.connections.get(name)
            tools = [t.name for t in self.tools if t.server == name]
            if conn is None:
                if name in self.failures:
                    out.append(McpServerStatus(name, "?", "failed", self.failures[name], [], None))
                continue
            log_file = str(conn.log_file) if conn.config.transport == "stdio" else None
            error = conn.error or self.failures.get(name)
            out.append(McpServerStatus(name, conn.config.transport, conn.status, error, tools, log_file))
        return out

    async def reconnect(self, name: str, *, open_url: OpenUrl | None = None) -> McpServerStatus:
        """(Re)connect one configured server, e.g. one that failed at start in
        tolerant mode, and register the tools it did not have yet. Failures are
        recorded, not raised. Adding tools changes the system prompt. With `open_url`
        the OAuth browser step may run (a login: `open_url` shows the URL)."""
        raw = self.agent.mcp_servers.get(name)
        if raw is None:
            raise ConfigError(f"no MCP server named '{name}'")
        conn = self.connections.get(name)
        if conn is None:
            try:
                config = parse_server_config(name, raw, self.agent.cwd)
            except ConfigError as exc:
                self.failures[name] = str(exc).removeprefix(f"MCP server '{name}': ")
                return self._status_of(name)
            conn = self._connection(name, config)
        try:
            listed = await (conn.login(open_url) if open_url is not None else conn.connect())
        except McpConnectError as exc:
            self.failures[name] = str(exc)
            return self._status_of(name)
        self.failures.pop(name, None)
        known = {t.tool_name for t in self.tools if t.server == name}
        fresh = [t for t in listed if t.name not in known]
        self._register_tools(name, fresh, conn)
        if fresh:
            self.agent.invalidate_system_prompt()
        return self._status_of(name)

    def _status_of(self, name: str) -> McpServerStatus:
        return next(s for s in self.status() if s.name == name)

    async def close(self) -> None:
        """Close every connection (idempotent, in parallel)."""
        if self._closed:
            return
        self._closed = True
        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)


async def connect_mcp(agent: ExtensionHost) -> McpManager:
    """Connect the agent's MCP servers and register their tools.

    `connect_extensions` keeps the manager in `agent.extensions.mcp` only on
    success, so a fail-fast error leaves nothing behind and a later `session()`
    retries.
    """
    manager = McpManager(agent)
    await manager.connect()
    registered: list[str] = []
    try:
        for tool in manager.tools:
            agent.tools.register(tool)
            registered.append(tool.name)
    except ConfigError:
        for name in registered:
            agent.tools.unregister(name)
        await manager.close()
        raise
    agent.invalidate_system_prompt()
    return manager


class _McpSlot(Protocol):
    @property
    def mcp(self) -> McpManager | None: ...


class _WithExtensions(Protocol):
    @property
    def extensions(self) -> _McpSlot: ...


def mcp_status(agent: _WithExtensions) -> list[McpServerStatus]:
    """The state of every configured server of `agent` (empty before the first
    `session()` or without servers): for `/mcp`-style displays."""
    manager = agent.extensions.mcp
    return manager.status() if manager is not None else []
