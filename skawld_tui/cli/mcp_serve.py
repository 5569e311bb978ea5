"""``skawld mcp serve``: skawld's built-in tools as an MCP server on stdio (like ``claude mcp serve``).

Every call goes through `Session.run_tool`, the path a model's call takes: input validation,
PreToolUse hooks, the permission engine with the project's rules and mode, the Bash sandbox and
PostToolUse hooks. An MCP client cannot answer a permission prompt, so a call that would ask is
refused with the reason (allow it with a rule or ``--permission-mode``). No model is called and
nothing is stored: the server keeps its session in memory.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from mcp_types import CallToolResult

    from skawld_core.permissions import CanUseToolRequest
    from skawld_core.providers.base import ProviderRequest, ProviderStreamEvent
    from skawld_core.session import Session

SERVED_STORE = {"sessionStore": {"kind": "memory"}}
NEEDS_A_MODEL = frozenset({"Subagent", "Skill"})
"""Tools that run a model: not served (the server has none)."""


def _refuse_asks(req: CanUseToolRequest) -> Any:
    from skawld_core.permissions import PermissionDeny

    why = f" ({req.reason})" if req.reason else ""
    return PermissionDeny(
        message=f"{req.tool_name} needs approval{why}, and an MCP client cannot be asked: "
        "allow it with a rule (skawld permissions add …) or --permission-mode"
    )


async def _ask(req: CanUseToolRequest) -> Any:
    return _refuse_asks(req)


def _no_model_provider() -> Any:
    from skawld_core.providers.base import BaseProvider

    class NoModel(BaseProvider):
        """The served agent never calls a model."""

        id = "none"

        async def stream(self, request: ProviderRequest) -> AsyncGenerator[ProviderStreamEvent, None]:
            raise RuntimeError("skawld mcp serve calls no model")
            yield  # pragma: no cover - makes this an async generator

    return NoModel()


def _result(block: Any) -> CallToolResult:
    from mcp_types import CallToolResult, ImageContent, TextContent

    content: list[Any] = []
    if isinstance(block.content, str):
        content.append(TextContent(type="text", text=block.content))
    else:
        for part in block.content:
            if part.type == "text":
                content.append(TextContent(type="text", text=part.text))
            elif part.type == "image" and getattr(part.source, "data", None):
                content.append(ImageContent(type="image", data=part.source.data, mime_type=part.source.media_type))
    return CallToolResult(content=content, is_error=bool(block.is_error))


async def serve(session: Session) -> None:
    """Answer ``tools/list`` and ``tools/call`` on stdin/stdout until stdin ends."""
    from mcp.server.lowlevel import Server
    from mcp.server.stdio import stdio_server
    from mcp_types import CallToolResult, ListToolsResult, TextContent, Tool

    from skawld_core import __version__

    agent = session.agent

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult(
            tools=[
                Tool(name=t.name, description=t.description, input_schema=t.input_schema)
                for t in agent.tools
                if not t.name.startswith("mcp__") and t.name not in NEEDS_A_MODEL
            ]
        )

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        if params.name in NEEDS_A_MODEL or params.name.startswith("mcp__"):
            return CallToolResult(
                content=[TextContent(type="text", text=f"{params.name} is not served")], is_error=True
            )
        block = await session.run_tool(params.name, dict(params.arguments or {}))
        return _result(block)

    server: Server[Any] = Server("skawld", version=__version__, on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


async def _main(options: Any) -> None:
    from skawld_core.settings import resolve_settings

    from ..bootstrap import build_agent  # lazy: the agent machinery loads once the command runs

    settings = resolve_settings(options)
    settings = dataclasses.replace(settings, model=settings.model or "none")
    agent = build_agent(settings, can_use_tool=_ask, provider=_no_model_provider())
    async with agent:
        session = await agent.session(meta={"title": "skawld mcp serve"})
        await serve(session)


def mcp_serve(
    cwd: Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")] = None,
    permission_mode: Annotated[
        str | None, typer.Option("--permission-mode", help="default | acceptEdits | plan | yolo.")
    ] = None,
    allowed_tools: Annotated[
        list[str] | None, typer.Option("--allowedTools", "--allowed-tools", help="Allow rules (repeatable).")
    ] = None,
) -> None:
    """Serve skawld's tools over MCP on stdio, with the project's permission rules and sandbox."""
    import anyio

    from skawld_core.errors import ConfigError
    from skawld_core.settings import CliOptions

    options = CliOptions(
        cwd=cwd,
        permission_mode=permission_mode,
        allowed_tools=tuple(allowed_tools or ()),
        extra_config=SERVED_STORE,
    )
    try:
        anyio.run(_main, options)
    except ConfigError as exc:
        sys.stderr.write(f"skawld: {exc}\n")
        raise typer.Exit(3) from None
    except ValueError as exc:
        sys.stderr.write(f"skawld: {exc}\n")
        raise typer.Exit(2) from None
