"""`BashOutput` and `KillShell`: the tools over a session's background shells.

The shells themselves (buffers, processes, limits) are `skawld_core.sandbox.shells`;
`Bash(run_in_background=true)` starts them.
"""

from __future__ import annotations

import asyncio
import re

from pydantic import ConfigDict, Field

from ..model_base import SkawldModel
from ..sandbox.shells import BackgroundShell
from .base import Tool, ToolContext, ToolResult
from .bash import shell_policy
from .text_format import truncation_marker

__all__ = ["BashOutputTool", "KillShellTool"]


def _shell_output(shell: BackgroundShell, pattern: re.Pattern[str] | None = None) -> str:
    """New output since the last read (stdout, then `---` and stderr; only lines
    matching `pattern` when given), then `status: running` or the exit line."""
    stdout, stderr, dropped = shell.take()
    if pattern is not None:
        stdout, stderr = _grep(stdout, pattern), _grep(stderr, pattern)
    lines = [stdout + ("\n---\n" + stderr if stderr else "")]
    if dropped:
        lines.append(f"{truncation_marker(dropped)} (oldest output dropped)")
    lines.append(shell.status())
    return "\n".join(lines)


def _grep(text: str, pattern: re.Pattern[str]) -> str:
    kept = [line for line in text.splitlines(keepends=True) if pattern.search(line)]
    return "".join(kept)


class BashOutputInput(SkawldModel):
    """Input of the BashOutput tool."""

    model_config = ConfigDict(extra="forbid")

    shell_id: str = Field(min_length=1, description="The id Bash returned for a background shell.")
    filter: str | None = Field(default=None, description="Only return lines matching this regular expression.")


class BashOutputTool(Tool[BashOutputInput]):
    """The output a background shell produced since the last read."""

    name = "BashOutput"
    description = (
        "Read the new output of a background shell started with Bash(run_in_background=true): stdout, then "
        "'---' and stderr, then 'status: running' or 'exit: <code>'. Optional filter: a regular expression "
        "that lines must match (other lines are discarded)."
    )
    scope = "read"
    parallel_safe = True
    input_model = BashOutputInput

    def summarize(self, value: BashOutputInput) -> str:
        return f"BashOutput {value.shell_id}"

    async def execute(self, value: BashOutputInput, ctx: ToolContext) -> ToolResult:
        summary = self.summarize(value)
        pattern = None
        if value.filter is not None:
            try:
                pattern = re.compile(value.filter)
            except re.error as exc:
                return ToolResult(content=f"BashOutput: invalid filter: {exc}", summary=summary, is_error=True)
        shell = shell_policy(ctx).background(ctx.session_id).get(value.shell_id)
        if shell is None:
            return ToolResult(content=f"BashOutput: no shell {value.shell_id!r}", summary=summary, is_error=True)
        await asyncio.sleep(0)  # let pending pipe reads land
        return ToolResult(content=_shell_output(shell, pattern), summary=summary)


class KillShellInput(SkawldModel):
    """Input of the KillShell tool."""

    model_config = ConfigDict(extra="forbid")

    shell_id: str = Field(min_length=1, description="The id of the background shell to end.")


class KillShellTool(Tool[KillShellInput]):
    """End a background shell and everything it started."""

    name = "KillShell"
    description = "End a background shell (and every process it started) by its id."
    scope = "read"
    parallel_safe = False
    input_model = KillShellInput

    def summarize(self, value: KillShellInput) -> str:
        return f"KillShell {value.shell_id}"

    async def execute(self, value: KillShellInput, ctx: ToolContext) -> ToolResult:
        summary = self.summarize(value)
        shell = shell_policy(ctx).background(ctx.session_id).get(value.shell_id)
        if shell is None:
            return ToolResult(content=f"KillShell: no shell {value.shell_id!r}", summary=summary, is_error=True)
        if not shell.running:
            return ToolResult(content=f"Shell {shell.id} had already ended ({shell.status()}).", summary=summary)
        await shell.kill()
        return ToolResult(content=f"Killed shell {shell.id}.", summary=summary)
