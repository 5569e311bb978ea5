"""Mode defaults: what happens when no rule decides."""

from __future__ import annotations

from ..messages import PermissionMode
from ..tools.base import ToolScope
from .types import Decision

__all__ = ["ALWAYS_ALLOWED_TOOLS", "PERMISSION_MODES", "mode_default"]

PERMISSION_MODES: tuple[PermissionMode, ...] = ("default", "acceptEdits", "yolo")
ALWAYS_ALLOWED_TOOLS = frozenset({"TaskCreate", "TaskUpdate"})


def mode_default(mode: PermissionMode, scope: ToolScope, tool_name: str, *, sandboxed: bool = False) -> Decision:
    """The reference's mode table.

    | scope | default | acceptEdits | yolo |
    | read, and TaskCreate/TaskUpdate by name | allow | allow | allow |
    | write | ask | allow | allow |
    | exec | ask | ask | allow |

    `sandboxed` (Bash under the OS sandbox) makes an exec call allowed in
    acceptEdits, like Claude Code's `autoAllowBashIfSandboxed`.
    """
    if scope == "read" or tool_name in ALWAYS_ALLOWED_TOOLS or mode == "yolo":
        return "allow"
    if sandboxed and mode == "acceptEdits":
        return "allow"
    if scope == "write" and mode == "acceptEdits":
        return "allow"
    return "ask"
