"""MCP client: stdio and streamable-HTTP servers whose tools register as
`mcp__<server>__<tool>` (§2.17). Importing this package does not import `mcp`;
the SDK is imported when the first server connects."""

from __future__ import annotations

from .config import HttpServerConfig, ServerConfig, StdioServerConfig, parse_server_config
from .manager import McpManager, McpServerStatus, mcp_status
from .naming import MAX_TOOL_NAME, normalize, qualified_name

__all__ = [
    "MAX_TOOL_NAME",
    "HttpServerConfig",
    "McpManager",
    "McpServerStatus",
    "ServerConfig",
    "StdioServerConfig",
    "mcp_status",
    "normalize",
    "parse_server_config",
    "qualified_name",
]
