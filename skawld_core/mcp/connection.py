"""One MCP server connection, owned by its own task.

The `mcp` client is built on anyio task groups, which must be entered and left
by the same task, so each connection runs `async with Client(...)` in a
dedicated owner task that waits for a stop signal; tool calls from any task go
through the connected client. When the server dies (a stdio process exits, an
HTTP transport crashes) the owner task ends and records why; the next call
reconnects (restarting a stdio server). Server stderr is appended to
`<cwd>/.skawld/logs/mcp-<server>.log`, never the terminal.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import logging
import math
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..child_env import child_environment
from ..project_dir import ensure_local_dir
from ..version import package_version
from .config import HttpServerConfig, ServerConfig, StdioServerConfig
from .elicitation import ElicitationHandler, mcp_elicitation_callback
from .naming import normalize
from .oauth import OAuthSettings, build_auth

if TYPE_CHECKING:
    import httpx2
    from mcp import Client
    from mcp.client import ClientRequestContext, IncomingMessage
    from mcp_types import CallToolResult, ErrorData, ListRootsResult
    from mcp_types import Tool as McpToolInfo

    from .oauth import OpenUrl

__all__ = [
    "ClientSide",
    "ConnectionStatus",
    "ListKind",
    "McpConnectError",
    "McpServerDied",
    "McpTimeout",
    "ServerConnection",
    "describe_error",
]

ConnectionStatus = Literal["idle", "connecting", "ready", "dead", "failed", "closed"]
ListKind = Literal["tools", "prompts", "resources"]
MAX_PAGES = 1000
CONNECTION_CLOSED = -32000
REQUEST_TIMEOUT = -32001
STOP_GRACE_SECONDS = 10.0
TOOL_USE_ID_META = "claudecode/toolUseId"
"""The ``_meta`` key of ``tools/call`` that carries the model's tool_use id (Claude Code's)."""

# mcp logs through `logging`; without a handler Python's last-resort handler
# would print its warnings on the terminal (under the TUI). Records still
# propagate to whatever handlers the application configures.
logging.getLogger("mcp").addHandler(logging.NullHandler())


class McpConnectError(Exception):
    """A server could not be started or did not complete the handshake."""


class McpServerDied(Exception):
    """The server went away during a call."""


class McpTimeout(Exception):
    """The server did not answer a call in time."""


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe_error(exc: BaseException) -> str:
    """A one-line reason for a connection failure (exception groups unwrapped). A server that
    refuses without authorization (HTTP 401, a failed OAuth step) "needs authorization"."""
    leaf = _leaf(exc)
    message = getattr(leaf, "message", None)
    status = getattr(getattr(leaf, "response", None), "status_code", None)
    if status == 401:
        return "needs authorization: the server answered 401 Unauthorized"
    if type(leaf).__name__ == "McpAuthorizationRequired":
        return str(leaf)
    if type(leaf).__name__ in ("OAuthFlowError", "OAuthTokenError", "OAuthRegistrationError"):
        return f"needs authorization: {leaf}"
    if isinstance(leaf, FileNotFoundError):
        return f"command not found: {leaf.filename or leaf}"
    if isinstance(leaf, TimeoutError):
        return "timed out"
    if isinstance(message, str) and message:
        return message
    text = str(leaf)
    return f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__


def log_path(cwd: Path, server: str) -> Path:
    """Where a server's stderr goes."""
    return cwd / ".skawld" / "logs" / f"mcp-{normalize(server)}.log"


@dataclass(frozen=True)
class ClientSide:
    """What skawld offers servers as an MCP client: `roots` (the project and added
    directories, read at each request), `elicit` (asks the user; None declines) and
    `on_list_changed(server, kind)` (a server's tools, prompts or resources changed)."""

    roots: Callable[[], Sequence[Path]] = tuple
    elicit: ElicitationHandler | None = None
    on_list_changed: Callable[[str, ListKind], None] | None = None


class ServerConnection:
    """A (re)connectable client for one configured server."""

    def __init__(
        self,
        name: str,
        config: ServerConfig,
        cwd: Path,
        env_passthrough: Sequence[str] = (),
        client_side: ClientSide | None = None,
    ) -> None:
        self.name = name
        self.client_side = client_side or ClientSide(roots=lambda: (cwd,))
        self.config = config
        self.env_passthrough = tuple(env_passthrough)
        self.log_file = log_path(cwd, name)
        self.status: ConnectionStatus = "idle"
        self.error: str | None = None
        self.tools: list[McpToolInfo] = []
        self.refreshing: asyncio.Future[None] | None = None  # a tools/list_changed being applied
        self.login_open_url: OpenUrl | None = None  # set during `login`: the browser step may run
        self.unauthorized = False  # the last connection attempt got an HTTP 401
        self.starts = 0
        self._client: Client | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._dead: asyncio.Event | None = None
        self._lock = asyncio.Lock()

    # -- lifecycle --------------------------------------------------------

    async def connect(self) -> list[McpToolInfo]:
        """Start the server (or open the HTTP session) and list its tools.
        Raises `McpConnectError` with the reason."""
        async with self._lock:
            return await self._connect_locked()

    async def _connect_locked(self) -> list[McpToolInfo]:
        await self._stop_owner()
        self.status = "connecting"
        self.starts += 1
        self.unauthorized = False
        ready: asyncio.Future[list[McpToolInfo]] = asyncio.get_running_loop().create_future()
        self._stop, self._dead = asyncio.Event(), asyncio.Event()
        self._task = asyncio.create_task(self._own(ready, self._stop, self._dead), name=f"skawld-mcp-{self.name}")
        try:
            tools = await asyncio.shield(ready)
        except asyncio.CancelledError:
            await self._stop_owner()
            raise
        except McpConnectError as exc:
            self.status, self.error = "failed", str(exc)
            raise
        self.tools = tools
        self.status, self.error = "ready", None
        return tools

    async def _own(self, ready: asyncio.Future[list[McpToolInfo]], stop: asyncio.Event, dead: asyncio.Event) -> None:
        import anyio

        client: Client | None = None
        try:
            # One scope around the client's whole life (its task groups must
            # nest inside it); its deadline bounds only the connect.
            with anyio.CancelScope() as scope:
                scope.deadline = anyio.current_time() + self.config.connect_timeout_ms / 1000
                async with AsyncExitStack() as stack:
                    client = self._make_client(stack)
                    await stack.enter_async_context(client)
                    tools = await _list_all_tools(client)
                    scope.deadline = math.inf
                    self._client = client
                    ready.set_result(tools)
                    async with anyio.create_task_group() as group:
                        group.start_soon(self._listen, client)  # list changes on 2026-07-28 connections
                        await stop.wait()
                        group.cancel_scope.cancel()
            if scope.cancelled_caught and not ready.done():
                raise TimeoutError
        except BaseException as exc:  # the owner task must never leak an exception
            reason = describe_error(exc)
            if self.unauthorized and not reason.startswith("needs authorization"):
                reason = f"needs authorization: the server answered 401 Unauthorized ({reason})"
            if isinstance(_leaf(exc), TimeoutError) and not ready.done():
                reason = f"no answer within {self.config.connect_timeout_ms} ms while connecting"
            if not ready.done():
                ready.set_exception(McpConnectError(self._with_log_hint(reason)))
            elif not stop.is_set():
                self.error = reason
        finally:
            if not ready.done():
                ready.set_exception(McpConnectError("the connection ended before it was ready"))
            if client is not None and self._client is client:  # a newer owner may have replaced it
                self._client = None
                if self.status == "ready" and not stop.is_set():
                    self.status = "dead"
            dead.set()

    def _with_log_hint(self, reason: str) -> str:
        if isinstance(self.config, StdioServerConfig):
            return f"{reason} (server stderr: {self.log_file})"
        return reason

    def _make_client(self, stack: AsyncExitStack) -> Client:
        from mcp import Client
        from mcp_types import Implementation

        info = Implementation(name="skawld", version=package_version())
        config = self.config
        transport: Any
        if isinstance(config, HttpServerConfig) and config.kind == "sse":
            from mcp.client.sse import sse_client

            transport = sse_client(config.url, headers=config.headers or None, auth=self._auth(config))
        elif isinstance(config, HttpServerConfig):
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = create_mcp_http_client(headers=config.headers or None, auth=self._auth(config))
            http.event_hooks["response"].append(self._note_status)
            stack.push_async_callback(http.aclose)
            transport = streamable_http_client(config.url, http_client=http)
        else:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            env = dict(config.env)
            if config.inherit_env:
                # The inherited part loses its secrets; the entry's own `env` is the user's choice.
                env = child_environment(self.env_passthrough, extra=env)
            params = StdioServerParameters(
                command=config.command, args=list(config.args), env=env or None, cwd=config.cwd
            )
            ensure_local_dir(self.log_file.parent.parent)
            self.log_file.parent.mkdir(parents=True, exist_ok=True)
            errlog = open(self.log_file, "a", encoding="utf-8")  # noqa: SIM115 (closed by the exit stack)
            stack.callback(errlog.close)
            stamp = _dt.datetime.now().isoformat(timespec="seconds")
            errlog.write(f"--- {stamp} starting {config.command} {' '.join(config.args)}\n")
            errlog.flush()
            transport = stdio_client(params, errlog=errlog)
        side = self.client_side
        return Client(
            transport,
            client_info=info,
            cache=None,
            list_roots_callback=self._list_roots,
            elicitation_callback=mcp_elicitation_callback(self.name, side.elicit),
            message_handler=self._on_message,
        )

    async def _note_status(self, response: httpx2.Response) -> None:
        """Remember a 401: the transport reports it only as "Server returned an error response"."""
        if response.status_code == 401:
            self.unauthorized = True

    def _auth(self, config: HttpServerConfig) -> httpx2.Auth | None:
        """OAuth for an HTTP server (`oauth.py`); it runs the browser step only during a login."""
        if config.oauth is None:
            return None
        return build_auth(self.name, config.url, OAuthSettings.parse(config.oauth), open_url=self.login_open_url)

    async def login(self, open_url: OpenUrl) -> list[McpToolInfo]:
        """(Re)connect with the browser step allowed: `open_url` shows the authorization URL; the
        redirect comes back to a loopback listener. Raises `McpConnectError`."""
        self.login_open_url = open_url
        try:
            return await self.connect()
        finally:
            self.login_open_url = None

    async def _list_roots(self, context: ClientRequestContext) -> ListRootsResult | ErrorData:
        from mcp_types import ListRootsResult, Root

        dirs = list(dict.fromkeys(Path(d).resolve() for d in self.client_side.roots()))
        return ListRootsResult(roots=[Root(uri=d.as_uri(), name=d.name or str(d)) for d in dirs])

    async def _listen(self, client: Client) -> None:
        """Follow a modern connection's `subscriptions/listen` stream of list changes; on an
        older connection the same changes arrive as notifications (`_on_message`)."""
        from mcp.client.subscriptions import PromptsListChanged, ResourcesListChanged, ToolsListChanged

        kinds: dict[type[Any], ListKind] = {
            ToolsListChanged: "tools",
            PromptsListChanged: "prompts",
            ResourcesListChanged: "resources",
        }
        try:
            async with client.listen(
                tools_list_changed=True, prompts_list_changed=True, resources_list_changed=True
            ) as subscription:
                async for event in subscription:
                    kind = kinds.get(type(event))
                    if kind is not None and self.client_side.on_list_changed is not None:
                        self.client_side.on_list_changed(self.name, kind)
        except Exception as exc:  # an older protocol, a server without subscriptions, a dropped stream
            logging.getLogger("skawld.mcp").debug("MCP server '%s': no list-change stream: %s", self.name, exc)

    async def _on_message(self, message: IncomingMessage) -> None:
        from mcp_types import (
            PromptListChangedNotification,
            ResourceListChangedNotification,
            ToolListChangedNotification,
        )

        kinds: dict[type[Any], ListKind] = {
            ToolListChangedNotification: "tools",
            PromptListChangedNotification: "prompts",
            ResourceListChangedNotification: "resources",
        }
        kind = kinds.get(type(message))
        if kind is not None and self.client_side.on_list_changed is not None:
            self.client_side.on_list_changed(self.name, kind)

    async def list_prompts(self) -> list[Any]:
        """The server's prompts (every page)."""
        client, _dead = await self._ready_client()
        return await _all_pages(client.list_prompts, "prompts")

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> Any:
        """One prompt's messages with `arguments` filled in."""
        client, _dead = await self._ready_client()
        return await client.get_prompt(name, arguments)

    async def list_resources(self) -> list[Any]:
        """The server's resources (every page)."""
        client, _dead = await self._ready_client()
        return await _all_pages(client.list_resources, "resources")

    async def read_resource(self, uri: str) -> Any:
        """One resource's contents."""
        client, _dead = await self._ready_client()
        return await client.read_resource(uri)

    async def list_tools(self) -> list[McpToolInfo]:
        """The server's tools now (reconnecting first when it died). Raises `McpConnectError`."""
        client, _dead = await self._ready_client()
        tools = await _list_all_tools(client)
        self.tools = tools
        return tools

    async def _stop_owner(self) -> None:
        task, stop = self._task, self._stop
        self._task = None
        if task is None or stop is None:
            return
        stop.set()
        if task.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), STOP_GRACE_SECONDS)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()

    async def close(self) -> None:
        """Stop the server / end the HTTP session (idempotent)."""
        async with self._lock:
            await self._stop_owner()
            self.status = "closed"

    # -- calls ------------------------------------------------------------

    async def _ready_client(self) -> tuple[Client, asyncio.Event]:
        async with self._lock:
            if self.status == "closed":
                raise McpConnectError("the connection is closed")
            client, dead = self._client, self._dead
            if client is not None and _transport_closed(client):
                self._mark_dead("connection closed")  # died while idle: restart before sending
                client = None
            if client is None or dead is None or dead.is_set() or self.status != "ready":
                await self._connect_locked()  # restart after a crash (raises McpConnectError)
                client, dead = self._client, self._dead
            assert client is not None and dead is not None
            return client, dead

    async def call(
        self, tool: str, arguments: dict[str, Any], timeout_ms: int, *, tool_use_id: str | None = None
    ) -> CallToolResult:
        """Call `tool`; reconnects first when the server died earlier. `tool_use_id` (the
        model's call) goes in the request's ``_meta`` as ``claudecode/toolUseId``, as Claude
        Code sends it.

        The timeout is reset whenever the server reports progress. Raises
        `McpConnectError` (cannot (re)connect), `McpServerDied` (gone during the
        call), `McpTimeout`, or `mcp.MCPError` for protocol errors.
        """
        from mcp import MCPError

        client, dead = await self._ready_client()
        loop = asyncio.get_running_loop()
        budget = timeout_ms / 1000
        deadline = loop.time() + budget

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            nonlocal deadline
            deadline = loop.time() + budget  # progress resets the timeout

        meta = {TOOL_USE_ID_META: tool_use_id} if tool_use_id else None
        call = asyncio.ensure_future(
            client.call_tool(tool, arguments, progress_callback=on_progress, meta=meta)  # type: ignore[arg-type]
        )
        watch = asyncio.ensure_future(dead.wait())
        try:
            while not call.done() and not watch.done():
                remaining = deadline - loop.time()
                if remaining <= 0:
                    break
                await asyncio.wait({call, watch}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            call.cancel()
            call.add_done_callback(_retrieve)
            raise
        finally:
            watch.cancel()
        if not call.done():
            call.cancel()  # sends the server a cancellation notice
            call.add_done_callback(_retrieve)
            if watch.done() and not watch.cancelled():
                raise McpServerDied(self.error or "connection closed")
            raise McpTimeout(f"no answer within {timeout_ms} ms")
        try:
            return call.result()
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise McpTimeout(f"no answer within {timeout_ms} ms") from None
            if exc.code == CONNECTION_CLOSED:
                self._mark_dead(exc.message)
                raise McpServerDied(exc.message) from None
            raise
        except BaseExceptionGroup as group:
            self._mark_dead(describe_error(group))
            raise McpServerDied(describe_error(group)) from None

    def _mark_dead(self, reason: str) -> None:
        self.error = reason
        if self.status == "ready":
            self.status = "dead"
        if self._stop is not None:
            self._stop.set()  # let the owner task reap the process


def _transport_closed(client: Client) -> bool:
    """Best effort: has the client's transport already closed (a server that
    died while idle)? Reads the SDK's dispatcher state, which has no public
    accessor in mcp 2.3; an unknown shape counts as open."""
    try:
        dispatcher = getattr(client.session, "_dispatcher", None)
    except RuntimeError:
        return True
    return getattr(dispatcher, "_closed", False) is True


def _retrieve(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def _list_all_tools(client: Client) -> list[McpToolInfo]:
    """Every tool, following pagination cursors (bounded, loop-safe)."""
    return await _all_pages(client.list_tools, "tools")


async def _all_pages(list_page: Any, field: str) -> list[Any]:
    """Every item of a paginated list call (`tools`, `prompts`), bounded and loop-safe."""
    items: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await list_page(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor or cursor in seen:
            break
        seen.add(cursor)
    return items
