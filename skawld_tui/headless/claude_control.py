"""The control protocol of Claude Code's stdin/stdout, seen from the CLI side.

`HostChannel` sends skawld's requests to the SDK host (``control_request`` lines on
stdout) and resolves them from its ``control_response`` lines on stdin. On top of it:

- `host_can_use_tool`: skawld's `can_use_tool` as a ``can_use_tool`` request
  (``--permission-prompt-tool stdio``); ``updatedInput`` replaces the input,
  ``updatedPermissions`` (``addRules``, ``setMode``) change the session's rules/mode
  (allow rules for ``destination: "localSettings"`` are also saved, as the app's "always");
- `host_hooks`: the hook callbacks registered in ``initialize`` as skawld hooks
  (``hook_callback`` requests; Claude's matcher is a regex on the tool name);
- `sdk_mcp_tools`: the tools of in-process SDK MCP servers (``mcp_message`` requests
  carrying JSON-RPC), registered as ``mcp__<server>__<tool>``.
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skawld_core.mcp.connection import TOOL_USE_ID_META

from ..cli.claude_flags import skawld_mode
from .control import warn

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.permissions import CanUseToolRequest


class HostError(Exception):
    """The host answered a request with an error (or went away)."""


class HostChannel:
    """Requests to the SDK host and their answers."""

    def __init__(self, write: Callable[[dict[str, Any]], None]) -> None:
        self._write = write
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.closed = False

    async def request(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send one ``control_request`` and wait for its ``control_response`` body."""
        if self.closed:
            raise HostError("stdin is closed; the host cannot answer")
        request_id = str(uuid.uuid4())
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            self._write({"type": "control_request", "request_id": request_id, "request": body})
            return await future
        finally:
            self._pending.pop(request_id, None)

    def on_response(self, msg: Mapping[str, Any]) -> bool:
        """Resolve the request a ``control_response`` answers; False when no request matches."""
        response = msg.get("response")
        if not isinstance(response, Mapping):
            return False
        future = self._pending.get(str(response.get("request_id")))
        if future is None or future.done():
            return False
        if response.get("subtype") == "error":
            future.set_exception(HostError(str(response.get("error") or "the host reported an error")))
        else:
            body = response.get("response")
            future.set_result(dict(body) if isinstance(body, Mapping) else {})
        return True

    def close(self) -> None:
        """Stdin ended: fail every outstanding request."""
        self.closed = True
        for future in self._pending.values():
            if not future.done():
                future.set_exception(HostError("stdin closed before the host answered"))


# -- permissions -----------------------------------------------------------------


def _remember(agent: Agent, spec: str) -> None:
    """An allow rule the host sent for ``localSettings``: saved like the app's "always"
    (`skawld_core.permissions.remembered`), so later sessions honour it."""
    from skawld_core.errors import ConfigError
    from skawld_core.permissions.remembered import remember_allow_rules

    try:
        remember_allow_rules(agent.permissions.project_root, [spec])
    except (ConfigError, OSError) as exc:
        warn(f"updatedPermissions: could not save {spec} to .claude/settings.local.json: {exc}")


def apply_permission_updates(agent: Agent, updates: object) -> None:
    """Apply ``updatedPermissions`` from a ``can_use_tool`` answer to the running agent."""
    from skawld_core.permissions.claude_rules import parse_claude_rule
    from skawld_core.permissions.updates import ModeUpdate, RuleUpdate, parse_permission_updates

    for update in parse_permission_updates(updates):
        if isinstance(update, RuleUpdate):
            try:
                parsed = parse_claude_rule(update.spec, update.behavior)
            except ValueError as exc:
                warn(f"updatedPermissions: {exc}")
                continue
            for r in parsed.rules:
                agent.permissions.add_rule(r)
            for note in parsed.notes:
                warn(note)
            if update.remember and parsed.rules:
                _remember(agent, update.spec)
        elif isinstance(update, ModeUpdate) and isinstance(update.mode, str):
            try:
                agent.set_permission_mode(skawld_mode(update.mode))  # type: ignore[arg-type]
            except ValueError as exc:
                warn(f"updatedPermissions: {exc}")
        else:
            kind = "setMode" if isinstance(update, ModeUpdate) else update.kind
            warn(f"updatedPermissions of type {kind!r} are not supported by skawld; ignored")


def host_can_use_tool(
    channel: HostChannel, agent_ref: Callable[[], Agent | None], on_interrupt: Callable[[], None]
) -> Any:
    """`can_use_tool` that asks the host with a ``can_use_tool`` control request."""
    from skawld_core.permissions import PermissionAllow, PermissionDeny
    from skawld_core.permissions.domains import claude_permission_suggestions

    async def can_use_tool(req: CanUseToolRequest) -> Any:
        try:
            answer = await channel.request(
                {
                    "subtype": "can_use_tool",
                    "tool_name": req.tool_name,
                    "display_name": req.tool_name,
                    "input": dict(req.input),
                    "description": req.summary,
                    "permission_suggestions": claude_permission_suggestions(req.tool_name, req.input),
                    "tool_use_id": req.tool_use_id,
                }
            )
        except HostError as exc:
            return PermissionDeny(message=f"permission request failed: {exc}")
        if answer.get("behavior") == "allow":
            agent = agent_ref()
            if agent is not None and answer.get("updatedPermissions"):
                apply_permission_updates(agent, answer["updatedPermissions"])
            updated = answer.get("updatedInput")
            return PermissionAllow(updated_input=dict(updated) if isinstance(updated, Mapping) else None)
        if answer.get("interrupt"):
            on_interrupt()
        message = answer.get("message")
        return PermissionDeny(message=message if isinstance(message, str) and message else "denied by the host")

    return can_use_tool


# -- hooks -------------------------------------------------------------------------


def host_hooks(channel: HostChannel, registrations: object, mode: Callable[[], str]) -> dict[str, list[Any]]:
    """Hook entries for the callbacks the host registered in ``initialize``.

    The input and the answer are Claude Code's hook JSON (`skawld_core.hooks.claude_format`),
    as for command hooks, except that ``continue: false`` on Stop keeps the run going.
    """
    from skawld_core.hooks import HookEntry
    from skawld_core.hooks.claude_format import SUPPORTED_EVENTS

    out: dict[str, list[Any]] = {}
    if not isinstance(registrations, Mapping):
        return out
    for event, matchers in registrations.items():
        if event not in SUPPORTED_EVENTS:
            warn(f"{event} hooks are not supported by skawld; those callbacks will not be called")
            continue
        for matcher in matchers or []:
            if not isinstance(matcher, Mapping):
                continue
            pattern = matcher.get("matcher")
            timeout = matcher.get("timeout")
            matches = _tool_matcher(pattern if isinstance(pattern, str) else None)
            for callback_id in matcher.get("hookCallbackIds") or []:
                hook = _callback(channel, str(event), str(callback_id), matches, mode)
                ms = float(timeout) * 1000 if isinstance(timeout, int | float) and timeout > 0 else 60000.0
                out.setdefault(str(event), []).append(HookEntry(hook=hook, timeout_ms=ms))
    return out


def _tool_matcher(pattern: str | None) -> Callable[[str], bool]:
    """Claude Code's matcher (`claude_matcher`); a pattern that is no valid regex matches its own name."""
    from skawld_core.hooks.claude_format import claude_matcher

    try:
        return claude_matcher(pattern)
    except re.error:
        return lambda name: name == pattern


def _callback(
    channel: HostChannel, event: str, callback_id: str, matches: Callable[[str], bool], mode: Callable[[], str]
) -> Any:
    from skawld_core.hooks.claude_format import claude_hook_input, claude_hook_outcome

    async def hook(data: Any, ctx: Any) -> Any:
        tool_name = getattr(data, "tool_name", None)
        if tool_name is not None and not matches(tool_name):
            return None
        payload = claude_hook_input(event, data, ctx.session_id, str(ctx.cwd), mode())
        out = await channel.request(
            {
                "subtype": "hook_callback",
                "callback_id": callback_id,
                "input": payload,
                "tool_use_id": payload.get("tool_use_id"),
            }
        )
        return claude_hook_outcome(event, out, keep_going_on_stop=True)

    return hook


# -- SDK MCP servers ---------------------------------------------------------------


@dataclass(frozen=True)
class _SdkConfig:
    timeout_ms: int = 60000
    transport: str = "sdk"


class SdkMcpConnection:
    """Speaks JSON-RPC to one in-process SDK MCP server through ``mcp_message`` requests."""

    def __init__(self, channel: HostChannel, name: str) -> None:
        self.channel = channel
        self.name = name
        self.config = _SdkConfig()
        self._next_id = 0

    async def rpc(self, method: str, params: dict[str, Any] | None = None, *, notify: bool = False) -> dict[str, Any]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notify:
            message["id"] = self._next_id
            self._next_id += 1
        answer = await self.channel.request({"subtype": "mcp_message", "server_name": self.name, "message": message})
        response = answer.get("mcp_response")
        if notify:
            return {}
        if not isinstance(response, Mapping):
            raise HostError(f"SDK MCP server {self.name!r} sent no response to {method}")
        if "error" in response:
            error = response["error"]
            raise HostError(str(error.get("message") if isinstance(error, Mapping) else error))
        result = response.get("result")
        return dict(result) if isinstance(result, Mapping) else {}

    async def call(
        self, tool: str, arguments: dict[str, Any], timeout_ms: int, *, tool_use_id: str | None = None
    ) -> Any:
        """``tools/call``, as `McpTool` expects of a connection (with the tool_use id in ``_meta``)."""
        from mcp_types import CallToolResult

        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if tool_use_id:
            params["_meta"] = {TOOL_USE_ID_META: tool_use_id}
        result = await asyncio.wait_for(self.rpc("tools/call", params), timeout_ms / 1000)
        return CallToolResult.model_validate(result)


async def sdk_mcp_tools(channel: HostChannel, names: list[str], version: str) -> tuple[list[Any], list[dict[str, str]]]:
    """Connect each SDK server (handshake, ``tools/list``); its tools and a status list for init."""
    from mcp_types import Tool as McpToolInfo

    from skawld_core.mcp.naming import qualified_name
    from skawld_core.mcp.tool import McpTool

    tools: list[Any] = []
    status: list[dict[str, str]] = []
    for name in names:
        conn = SdkMcpConnection(channel, name)
        try:
            await conn.rpc(
                "initialize",
                {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "skawld", "version": version},
                },
            )
            await conn.rpc("notifications/initialized", notify=True)
            listed = await conn.rpc("tools/list", {})
        except HostError as exc:
            warn(f"SDK MCP server {name!r} failed to start: {exc}")
            status.append({"name": name, "status": "failed"})
            continue
        for raw in listed.get("tools") or []:
            info = McpToolInfo.model_validate(raw)
            tools.append(McpTool(qualified_name(name, info.name), name, info, conn))  # type: ignore[arg-type]
        status.append({"name": name, "status": "connected"})
    return tools, status
