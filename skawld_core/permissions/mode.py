"""Mode defaults: what happens when no rule decides, and what plan mode refuses."""

from __future__ import annotations

from ..messages import PermissionMode
from ..tools.base import ToolScope
from .types import Decision

__all__ = [
    "ALWAYS_ALLOWED_TOOLS",
    "ASKING_READ_TOOLS",
    "DELEGATING_TOOLS",
    "EXIT_PLAN_MODE_TOOL",
    "PERMISSION_MODES",
    "PLAN_MODE_REFUSAL",
    "PLAN_MODE_TOOLS",
    "mode_default",
    "plan_mode_refusal",
]

PERMISSION_MODES: tuple[PermissionMode, ...] = ("default", "acceptEdits", "plan", "yolo")
ALWAYS_ALLOWED_TOOLS = frozenset({"TaskCreate", "TaskUpdate"})
# Like Claude Code's Task tool, starting a subagent does not ask: each of the
# subagent's own tool calls goes through the permission engine (and asks) itself.
DELEGATING_TOOLS = frozenset({"Subagent"})
EXIT_PLAN_MODE_TOOL = "ExitPlanMode"
# Read-scope tools that still ask outside yolo: they send a request off the machine (per-domain rules allow them).
ASKING_READ_TOOLS = frozenset({"WebFetch"})
# Besides read-scope tools, plan mode runs the to-do list, subagents (their own
# calls meet the same plan-mode refusal) and the tool that presents the plan.
PLAN_MODE_TOOLS = ALWAYS_ALLOWED_TOOLS | {"Subagent", EXIT_PLAN_MODE_TOOL}
PLAN_MODE_REFUSAL = (
    "{tool} is not available in plan mode: you are planning, so do not change files or run commands yet. "
    "Keep researching with read-only tools, then present your plan with the ExitPlanMode tool; "
    "the user approves it before anything is changed."
)


def plan_mode_refusal(scope: ToolScope, tool_name: str) -> str | None:
    """The deny message for `tool_name` in plan mode, or None when it may run while planning."""
    if scope == "read" or tool_name in PLAN_MODE_TOOLS:
        return None
    return PLAN_MODE_REFUSAL.format(tool=tool_name)


def mode_default(mode: PermissionMode, scope: ToolScope, tool_name: str, *, sandboxed: bool = False) -> Decision:
    """The reference's mode table, plus plan mode.

    | scope | default | acceptEdits | plan | yolo |
    | read, and TaskCreate/TaskUpdate/Subagent by name | allow | allow | allow | allow |
    | write | ask | allow (inside the project) | deny | allow |
    | exec | ask | ask | deny | allow |

    WebFetch (`ASKING_READ_TOOLS`) is read scope, so plan mode runs it, but it
    asks in every mode but yolo: a `DomainRule` allows a domain.
    `acceptEdits` allows a write with a path target only inside the project and
    its added directories, and never on a protected path; the engine applies that.
    `ExitPlanMode` asks in plan mode (the host approves the plan). `Subagent` is
    allowed unless a rule says otherwise: its own calls are checked one by one.
    `sandboxed` (Bash under the OS sandbox) makes an exec call allowed in
    acceptEdits, like Claude Code's `autoAllowBashIfSandboxed`.
    """
    if mode == "yolo":
        return "allow"
    if tool_name in ASKING_READ_TOOLS:
        return "ask"
    if scope == "read" or tool_name in ALWAYS_ALLOWED_TOOLS or tool_name in DELEGATING_TOOLS:
        return "allow"
    if sandboxed and mode == "acceptEdits":
        return "allow"
    if mode == "plan":
        return "deny" if plan_mode_refusal(scope, tool_name) else "ask"
    if scope == "write" and mode == "acceptEdits":
        return "allow"
    return "ask"
