"""What a slash command is, and what it runs against.

A `Command` is a name, a description, an argument hint and an async
`run(host, args)`. The `CommandHost` is whichever front end typed it: the
Textual app or the plain line mode implement the same small surface, so a
command is written once and works in both.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.console import RenderableType

    from skawld_core.agent import Agent
    from skawld_core.messages import Usage
    from skawld_core.session import Session

    from ..file_commands import PromptCommands

__all__ = ["BUILTINS", "Command", "CommandHost", "Runner", "command"]


class CommandHost(Protocol):
    """The front end a command runs in (the app or the plain mode)."""

    @property
    def agent(self) -> Agent | None:
        """The agent (None until it is built, or when it could not be)."""

    @property
    def session(self) -> Session | None:
        """The open session."""

    @property
    def running(self) -> bool:
        """True while a run is going (commands marked `idle_only` are refused then)."""

    @property
    def settings(self) -> Any:
        """The resolved CLI settings (None in tests that build the agent directly)."""

    @property
    def prompt_commands(self) -> PromptCommands | None:
        """File commands and skills typed as `/name`."""

    @property
    def usage(self) -> Usage:
        """Tokens used by this session so far."""

    @property
    def usage_estimated(self) -> bool:
        """Some of `usage` is the provider's estimate (the server reported no usage)."""

    async def markdown(self, text: str) -> None:
        """Show command output written in Markdown."""

    async def note(self, text: str, *, warning: bool = False) -> None:
        """A one-line note (a warning when `warning`)."""

    async def error(self, title: str, detail: str) -> None:
        """A failure."""

    async def renderable(self, renderable: RenderableType) -> None:
        """Show a Rich renderable (a diff, a table)."""

    async def divider(self, label: str) -> None:
        """A labelled rule across the transcript (compaction)."""

    async def prompt(self, text: str) -> None:
        """Send `text` to the model as the user's next prompt (steers a run that is going)."""

    async def choose(self, title: str, options: list[tuple[str, str]], then: Callable[[str], Awaitable[None]]) -> None:
        """Offer `options` (value, label); `then(value)` runs once the user picks one
        (never when they cancel). It may run after `choose` returns (the app's dialog)."""

    async def open_session(self, session_id: str | None) -> None:
        """Switch to a stored session (None: a new one) and show its history."""

    async def pick_session(self) -> None:
        """Let the user pick a stored session to resume."""

    async def rewind(self) -> None:
        """Let the user rewind code and/or conversation to before a prompt."""

    async def confirm_yolo(self) -> bool:
        """Before `/mode yolo`, which turns every check off: False to switch at once
        (the user agreed), True when the host took it from here (its dialog sets the
        mode if the user agrees) or the user said no."""

    def status_changed(self) -> None:
        """The agent's model, mode or background shells changed: refresh what shows them."""

    async def quit(self) -> None:
        """Leave skawld."""


Runner = Callable[[CommandHost, str], Awaitable[None]]


@dataclass(frozen=True)
class Command:
    """One `/command`. `run(host, args)` gets what follows the name, stripped."""

    name: str
    description: str
    run: Runner
    args: str = ""
    aliases: tuple[str, ...] = ()
    idle_only: bool = False  # refused while a run is going
    source: str = "built-in"  # or the command file's path, or "skill"

    @property
    def usage_line(self) -> str:
        """`/name <args>`."""
        return f"/{self.name}{' ' + self.args if self.args else ''}"


BUILTINS: list[Command] = []


def command(
    name: str, description: str, *, args: str = "", aliases: tuple[str, ...] = (), idle_only: bool = False
) -> Callable[[Runner], Runner]:
    """Register the decorated `async def run(host, args)` as a built-in command."""

    def register(run: Runner) -> Runner:
        BUILTINS.append(Command(name, description, run, args=args, aliases=aliases, idle_only=idle_only))
        return run

    return register
