"""Permissions: rules, modes and the `can_use_tool` contract (reference §2.8).

`PermissionEngine.evaluate` is pure and synchronous (rules, first match wins,
then the mode default); `resolve` runs the `can_use_tool` callback for an
"ask" and fails closed.
"""

from __future__ import annotations

from .bash import split_bash_segments
from .engine import PermissionEngine
from .rules import BashRule, PathRule, PermissionRule, RegexPattern, ToolRule, parse_rule
from .types import (
    CanUseTool,
    CanUseToolRequest,
    PendingToolCall,
    PermissionAllow,
    PermissionDecision,
    PermissionDeny,
    PermissionResult,
)

__all__ = [
    "BashRule",
    "CanUseTool",
    "CanUseToolRequest",
    "PathRule",
    "PendingToolCall",
    "PermissionAllow",
    "PermissionDecision",
    "PermissionDeny",
    "PermissionEngine",
    "PermissionResult",
    "PermissionRule",
    "RegexPattern",
    "ToolRule",
    "parse_rule",
    "split_bash_segments",
]
