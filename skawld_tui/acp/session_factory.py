"""The skawld side of one ACP session: settings for the client's ``cwd`` and MCP servers, an
`Agent` whose permission asks go to the editor, and the session (new or stored)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import acp

from skawld_core.errors import ConfigError

from ..bootstrap import build_agent, session_meta
from ..headless.claude_control import apply_permission_updates
from .client_fs import EditorEditTool, EditorReadTool, EditorWriteTool
from .live_shell import LiveBashTool

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.permissions import CanUseToolRequest
    from skawld_core.session import Session
    from skawld_core.sessions.store import SessionRecord
    from skawld_core.settings import CliOptions, Settings


@dataclass
class AcpSession:
    """One ACP session: skawld's agent and session, and the prompt running now."""

    agent: Agent
    session: Session
    cwd: Path
    running: asyncio.Task[Any] | None = None
    cancelled: bool = False
    models: list[str] = field(default_factory=list)
    cost_usd: float | None = None
    """What this session's prompts cost since it was opened here (None while no price is known)."""


def client_mcp_servers(servers: Any) -> dict[str, Any]:
    """The MCP servers a client sends in ``session/new`` as ``mcpServers`` config entries."""
    out: dict[str, Any] = {}
    for server in servers or []:
        raw = server.model_dump(by_alias=True, exclude_none=True) if hasattr(server, "model_dump") else dict(server)
        name = str(raw.pop("name", f"server{len(out) + 1}"))
        if "command" in raw:
            env = {e["name"]: e["value"] for e in raw.get("env") or []}
            out[name] = {"command": raw["command"], "args": raw.get("args") or [], "env": env}
        elif "url" in raw:
            headers = {h["name"]: h["value"] for h in raw.get("headers") or []}
            out[name] = {"type": raw.get("type") or "http", "url": raw["url"], "headers": headers}
    return out


def _settings(options: CliOptions, cwd: str, mcp_servers: Any) -> Settings:
    from skawld_core.config_model import ConfigFile
    from skawld_core.settings import resolve_settings

    settings = resolve_settings(dataclasses.replace(options, cwd=cwd))
    extra = client_mcp_servers(mcp_servers)
    if extra:
        parsed = ConfigFile.model_validate({"mcpServers": extra}).mcp_servers
        settings = dataclasses.replace(settings, mcp_servers={**settings.mcp_servers, **parsed})
    return settings


async def open_acp_session(
    options: CliOptions,
    cwd: str,
    session_id: str | None,
    mcp_servers: Any,
    *,
    can_use_tool: Callable[[list[str]], Any],
    conn: Any | None,
    editor_reads: bool = False,
    editor_writes: bool = False,
) -> AcpSession:
    """Build the agent for `cwd` and open (or create) the session; a config problem or a missing
    API key is a JSON-RPC error naming it. `can_use_tool` makes the permission callback for the
    session whose id is the list's one item. With `conn` (the client connection), Bash streams its
    output to the editor, and the editor serves Read when `editor_reads`, Write and Edit when
    `editor_writes`."""
    if not Path(cwd).is_absolute():
        raise acp.RequestError.invalid_params({"cwd": f"must be an absolute path (got {cwd!r})"})
    ref: list[str] = [session_id or ""]
    try:
        settings = _settings(options, cwd, mcp_servers)
        agent = build_agent(settings, can_use_tool=can_use_tool(ref), include_partial_messages=True)
    except (ConfigError, ValueError) as exc:
        raise acp.RequestError.internal_error({"reason": str(exc)}) from None
    if conn is not None:
        _serve_through(agent, conn, lambda: ref[0], reads=editor_reads, writes=editor_writes)
    if session_id is not None and await agent.store.load(session_id) is None:
        await agent.close()
        raise acp.RequestError.resource_not_found(session_id)
    session = await agent.session(id=session_id, meta=session_meta(settings))
    ref[0] = session.id
    model = session.model
    return AcpSession(agent=agent, session=session, cwd=settings.cwd, models=[model] if model else [])


def _serve_through(agent: Agent, conn: Any, session_id: Callable[[], str], *, reads: bool, writes: bool) -> None:
    """Swap built-in tools for the ones that show their work in the editor (those the agent has)."""
    tools: list[Any] = [LiveBashTool(conn, session_id)]
    if reads:
        tools.append(EditorReadTool(conn, session_id))
    if writes:
        tools += [EditorWriteTool(conn, session_id), EditorEditTool(conn, session_id, reads=reads)]
    for tool in tools:
        if agent.tools.get(tool.name) is not None:
            agent.tools.unregister(tool.name)
            agent.tools.register(tool)


async def list_sessions(options: CliOptions, cwd: str | None) -> list[SessionRecord]:
    """The stored sessions, newest first (those of `cwd` when given)."""
    from skawld_core.settings import make_store

    settings = _settings(options, cwd or str(Path.cwd()), None)
    store = make_store(settings)
    try:
        rows = await store.list_sessions(limit=200)
    finally:
        await store.close()
    if cwd is None:
        return rows
    return [r for r in rows if r.meta.get("cwd") in (None, cwd)]


def remember_always(agent: Agent, req: CanUseToolRequest) -> None:
    """ "Always allow": the rules the app would save for this call, applied now and saved."""
    from skawld_core.permissions.suggest import suggest_rules

    offer = suggest_rules(req.tool_name, req.input, project_root=agent.permissions.project_root, cwd=agent.cwd)
    rules = [
        {"toolName": spec.partition("(")[0], **({"ruleContent": spec.partition("(")[2][:-1]} if "(" in spec else {})}
        for spec in offer.rules
    ]
    if rules:
        apply_permission_updates(
            agent, [{"type": "addRules", "rules": rules, "behavior": "allow", "destination": "localSettings"}]
        )
