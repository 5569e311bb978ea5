"""Tools: the `Tool` contract, the registry, and the built-ins."""

from __future__ import annotations

from .base import AnyTool, Tool, ToolContext, ToolResult, ToolScope
from .file_tracker import FileReadTracker, canonical_path
from .registry import ToolRegistry

__all__ = [
    "AnyTool",
    "FileReadTracker",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "ToolScope",
    "canonical_path",
]
