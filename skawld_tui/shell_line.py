"""`!cmd` lines: run a shell command yourself, the way Claude Code's `!` does.

The command runs through the real Bash tool (`session.run_tool`): the same
permission decision (an "ask" opens the usual dialog), sandbox and process
containment as a model's call. Its output is shown as a Bash panel and kept
for the next message, which carries it to the model as `<bash-input>` /
`<bash-stdout>` / `<bash-stderr>` blocks (Claude Code's format).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skawld_core.events import Event
    from skawld_core.messages import ToolResultBlock
    from skawld_core.session import Session

_SEP = "\n---\n"
TRAILERS = ("exit: ", "Bash: timed out")


def shell_command(text: str) -> str | None:
    """The command of a `!cmd` line (None when `text` is not one or is only `!`)."""
    if not text.startswith("!"):
        return None
    command = text[1:].strip()
    return command or None


@dataclass(frozen=True)
class ShellOutcome:
    """One `!cmd`: what it printed, how it ended, and what the model will see."""

    command: str
    stdout: str
    stderr: str
    exit_line: str
    denied: bool = False

    def context(self) -> list[str]:
        """The blocks the next user message carries (nothing for a refused command)."""
        if self.denied:
            return []
        stderr = self.stderr
        if self.exit_line and self.exit_line != "exit: 0":
            stderr = f"{stderr}\n{self.exit_line}" if stderr else self.exit_line
        return [
            f"<bash-input>{self.command}</bash-input>",
            f"<bash-stdout>{self.stdout}</bash-stdout><bash-stderr>{stderr}</bash-stderr>",
        ]


def split_output(content: str) -> tuple[str, str, str]:
    """The Bash tool's text as (stdout, stderr, trailer line); the trailer is
    empty when the text has none (the command did not run)."""
    body, _, last = content.rpartition("\n")
    if not last.startswith(TRAILERS):
        body, last = content, ""
    stdout, sep, stderr = body.partition(_SEP)
    return stdout.rstrip("\n"), stderr.rstrip("\n") if sep else "", last


def outcome_of(command: str, block: ToolResultBlock) -> ShellOutcome:
    """Read a Bash tool result; an error without a trailer is a command that never ran."""
    parts = block.content
    content = parts if isinstance(parts, str) else "\n".join(getattr(p, "text", "") for p in parts)
    stdout, stderr, trailer = split_output(content)
    if block.is_error and not trailer:
        return ShellOutcome(command, "", content.strip(), "", denied=True)
    return ShellOutcome(command, stdout, stderr, trailer)


async def run_shell_line(
    session: Session,
    command: str,
    *,
    on_event: Callable[[Event], Awaitable[None]] | None = None,
) -> tuple[ShellOutcome, ToolResultBlock]:
    """Run `command` with the Bash tool (a private Bash when the model has none)."""
    tool = None
    if "Bash" not in session.tools:
        from skawld_core.tools.bash import BashTool

        tool = BashTool()
    block = await session.run_tool(
        "Bash", {"command": command, "description": f"! {command}"[:80]}, on_event=on_event, tool=tool
    )
    return outcome_of(command, block), block
