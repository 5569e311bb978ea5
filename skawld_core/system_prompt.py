"""The cache-stable system prompt blocks and the per-run `<env>` prefix (§2.12)."""

from __future__ import annotations

import datetime as _dt
import os
import platform
import sys
from collections.abc import Sequence

from .providers.base import SystemBlock
from .version import package_version

IDENTITY = (
    "You are skawld, an autonomous software-engineering agent working in the user's codebase "
    "through file and shell tools. Your job is to finish the task you are given correctly and "
    "minimally.\n\n"
    "Read before you write, and run before you claim something works. Make small, focused "
    "changes. Surface uncertainty instead of guessing. Do not narrate trivial steps and do not "
    "give status reports nobody asked for. When you are genuinely in doubt about what the user "
    "wants, ask one focused question."
)

TOOL_PROTOCOL = """Tool use protocol:
- Read a file before you Edit it; Edit refuses files you have not read in this session.
- Edit's old_string must match the file byte for byte. The line-number prefix Read shows is not part of the file.
- Prefer Edit over Write for existing files.
- Use Glob to find files by name and Grep to search contents; both are read-only.
- Bash runs unsandboxed in the working directory. Its default timeout is 2 minutes; timeout_ms allows up to 30 minutes.
- Make independent calls in parallel: Read, Glob and Grep run concurrently.
- For multi-step work use the Task tools: set a task in_progress when you start it and completed when it is done, and refresh with TaskList."""


PLAN_MODE_INSTRUCTIONS = (
    "Plan mode is active: the user wants a plan before anything changes. Do not edit files, write files or "
    "run commands (those tools are refused). Research with the read-only tools, then present a concrete "
    "step-by-step plan by calling ExitPlanMode with it. If the user declines, keep planning with their feedback."
)


def environment_block(*, cwd: str, permission_mode: str, tool_names: Sequence[str]) -> str:
    """The "Environment:" block. Tool names are listed in the order given."""
    uname = platform.uname()
    lines = [
        "Environment:",
        f"- skawld version: {package_version()}",
        f"- Python version: {platform.python_version()}",
        f"- OS: {sys.platform} {uname.release} ({uname.machine})",
        f"- Shell: {os.environ.get('SHELL') or 'unknown'}",
        f"- Working directory: {cwd}",
        f"- Permission mode: {permission_mode}",
        f"- Tools available: {', '.join(tool_names)}",
    ]
    if permission_mode == "plan":
        lines += ["", PLAN_MODE_INSTRUCTIONS]
    return "\n".join(lines)


def build_system_blocks(
    *,
    cwd: str,
    permission_mode: str,
    tool_names: Sequence[str],
    user_instructions: str | None = None,
) -> list[SystemBlock]:
    """Identity, tool protocol, environment, and optional user instructions;
    all cacheable and byte-stable for the same inputs."""
    blocks = [
        SystemBlock(text=IDENTITY),
        SystemBlock(text=TOOL_PROTOCOL),
        SystemBlock(text=environment_block(cwd=cwd, permission_mode=permission_mode, tool_names=tool_names)),
    ]
    if user_instructions and user_instructions.strip():
        blocks.append(SystemBlock(text=f"User-provided instructions:\n\n{user_instructions.strip()}"))
    return blocks


def env_prefix(today: _dt.date | None = None) -> str:
    """The `<env>` block that opens each run's prompt message (local date)."""
    day = today or _dt.date.today()
    return f"<env>\nToday's date: {day.isoformat()}\n</env>"


def system_reminder(text: str) -> str:
    """Wrap `text` in `<system-reminder>` tags."""
    return f"<system-reminder>\n{text}\n</system-reminder>"
