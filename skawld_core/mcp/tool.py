"""`McpTool`: one MCP server tool exposed as `mcp__<server>__<tool>` (§2.14).

The input schema is the server's (passed through); validation only checks the
input is an object. A tool with the read-only hint is scope `read` and
parallel-safe; any other is scope `write`. Transport failures, timeouts and a
dead server become `is_error` results naming the server; cancellation (an
abort) propagates.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict

from ..errors import ToolInputError
from ..model_base import SkawldModel
from ..tools.base import Tool, ToolContext, ToolResult
from .connection import McpConnectError, McpServerDied, McpTimeout, ServerConnection, describe_error
from .results import map_call_result

if TYPE_CHECKING:
    from mcp_types import Tool as McpToolInfo


__all__ = ["McpInput", "McpTool"]

SUMMARY_JSON_LIMIT = 80


class McpInput(SkawldModel):
    """The raw arguments object of an MCP tool call."""

    model_config = ConfigDict(frozen=True)

    arguments: dict[str, Any]


def _schema(info: McpToolInfo) -> dict[str, Any]:
    raw = info.input_schema if isinstance(info.input_schema, dict) else {}
    schema = dict(raw)
    schema["type"] = "object"
    if not isinstance(schema.get("properties"), dict):
        schema["properties"] = {}
    return schema


class McpTool(Tool[McpInput]):
    """A server tool, called through its `ServerConnection`."""

    input_model = McpInput

    def __init__(self, qualified: str, server: str, info: McpToolInfo, connection: ServerConnection) -> None:
        self.name = qualified
        self.server = server
        self.tool_name = info.name
        self.description = info.description or f"Tool '{info.name}' of the MCP server '{server}'."
        read_only = bool(info.annotations and info.annotations.read_only_hint)
        self.scope = "read" if read_only else "write"
        self.parallel_safe = read_only
        self.connection = connection
        self._schema = _schema(info)

    @property
    def input_schema(self) -> dict[str, Any]:
        """The server's JSON schema for the tool's input."""
        return self._schema

    def validate(self, raw: dict[str, Any]) -> McpInput:
        """Only checks the input is an object; the server validates the rest."""
        if not isinstance(raw, dict):
            raise ToolInputError("input must be an object", tool_name=self.name)
        return McpInput.model_construct(arguments=raw)

    def dump_input(self, value: McpInput) -> dict[str, Any]:
        return dict(value.arguments)

    def summarize(self, value: McpInput) -> str:
        if not value.arguments:
            return f"{self.name}()"
        text = json.dumps(value.arguments, ensure_ascii=False, separators=(",", ":"))
        if len(text) > SUMMARY_JSON_LIMIT:
            text = text[: SUMMARY_JSON_LIMIT - 1] + "…"
        return f"{self.name}({text})"

    async def execute(self, value: McpInput, ctx: ToolContext) -> ToolResult:
        """Call the server tool; failures become `is_error` results."""
        server = self.server
        try:
            result = await self.connection.call(
                self.tool_name, value.arguments, self.connection.config.timeout_ms, tool_use_id=ctx.tool_use_id
            )
        except McpConnectError as exc:
            return _error(f"MCP server '{server}' is unavailable: {exc}")
        except McpServerDied as exc:
            again = "restarted" if self.connection.config.transport == "stdio" else "reconnected"
            return _error(
                f"MCP tool failed: server '{server}' went away during the call ({exc}); "
                f"the effects of this call are unknown. The server is {again} on the next call."
            )
        except McpTimeout as exc:
            return _error(f"MCP tool failed: server '{server}' gave {exc} for '{self.tool_name}'.")
        except Exception as exc:
            return _error(f"MCP tool failed: {describe_error(exc)}")
        refreshing = getattr(self.connection, "refreshing", None)  # a host's own connection may have none
        if refreshing is not None:  # the server changed its tools during the call: the next turn sees them
            await asyncio.shield(refreshing)
        return map_call_result(result)


def _error(text: str) -> ToolResult:
    return ToolResult(content=text, summary=f"error: {text[:77]}", is_error=True)
