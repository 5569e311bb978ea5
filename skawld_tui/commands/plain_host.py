"""`PlainHost`: the `--plain` line mode as a `CommandHost`, and its prompt completer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from .bashes import end_session_shells, running_shells
from .registry import complete

if TYPE_CHECKING:
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document
    from rich.console import RenderableType

    from skawld_core.agent import Agent
    from skawld_core.messages import Usage
    from skawld_core.session import Session

    from ..file_commands import PromptCommands
    from ..plain.view import PlainView


class PlainHost:
    """Runs commands against the plain chat (a `PlainView`) (output printed to its console)."""

    def __init__(self, chat: PlainView) -> None:
        self.chat = chat
        self.quitting = False

    @property
    def agent(self) -> Agent | None:
        return self.chat.agent

    @property
    def session(self) -> Session | None:
        return self.chat.session

    @property
    def running(self) -> bool:
        return False  # the line mode reads a command only between runs

    @property
    def settings(self) -> Any:
        return self.chat.settings

    @property
    def prompt_commands(self) -> PromptCommands | None:
        return self.chat.commands()

    @property
    def usage(self) -> Usage:
        from skawld_core.messages import Usage

        return self.chat.session.usage if self.chat.session is not None else Usage()

    @property
    def usage_estimated(self) -> bool:
        return self.chat.usage_estimated

    async def markdown(self, text: str) -> None:
        from rich.markdown import Markdown

        self.chat.out("")
        self.chat.console.print(Markdown(text))

    async def note(self, text: str, *, warning: bool = False) -> None:
        self.chat.out(text, style="yellow" if warning else "dim")

    async def error(self, title: str, detail: str) -> None:
        self.chat.out(f"{title}: {detail}", style="bold red")

    async def renderable(self, renderable: RenderableType) -> None:
        self.chat.out("")
        self.chat.console.print(renderable)

    async def divider(self, label: str) -> None:
        self.chat.out(f"── {label} ──", style="dim")

    async def prompt(self, text: str) -> None:
        await self.chat.run_prompt(text)

    async def choose(self, title: str, options: list[tuple[str, str]], then: Callable[[str], Awaitable[None]]) -> None:
        self.chat.out(title, style="bold")
        for number, (_, label) in enumerate(options, 1):
            self.chat.out(f"{number:>2}. {label}")
        answer = await self.chat.ask("number (Enter to cancel): ")
        if answer.isdigit() and 1 <= int(answer) <= len(options):
            await then(options[int(answer) - 1][0])

    async def open_session(self, session_id: str | None) -> None:
        assert self.chat.agent is not None
        await end_session_shells(self)
        self.chat.session = await self.chat.agent.session(session_id)
        if self.chat.session.full_history:
            self.chat.render_history()

    async def pick_session(self) -> None:
        from ..plain.sessions import pick_plain  # lazy: the plain dialogs load when used

        chosen = await pick_plain(self.chat, self.session.id if self.session else None)
        if chosen:
            await self.open_session(chosen)

    async def rewind(self) -> None:
        from ..plain.sessions import rewind_plain  # lazy: the plain dialogs load when used

        await rewind_plain(self.chat)

    async def confirm_yolo(self) -> bool:
        from .builtin import YOLO_WARNING  # lazy: the registry imports commands.builtin to register its commands

        self.chat.out(YOLO_WARNING, style="yellow")
        if (await self.chat.ask("Switch to yolo mode? [y/N] ")).lower() in ("y", "yes"):
            return False
        self.chat.out("yolo mode not turned on", style="dim")
        return True

    def status_changed(self) -> None:
        pass  # no status line: each command prints what changed

    async def quit(self) -> None:
        running = running_shells(self)
        if running:
            self.chat.out(f"ending {running} background shell{'s' if running > 1 else ''}", style="dim")
        self.quitting = True


def slash_completer(source: Callable[[], PromptCommands | None]) -> Completer:
    """A prompt_toolkit completer over the registry (file commands and skills with
    their descriptions); `source` gives the file commands once the agent exists."""
    from prompt_toolkit.completion import Completer, Completion

    class SlashCompleter(Completer):
        def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
            text = document.text_before_cursor
            for c in complete(text, source()):
                yield Completion(
                    f"/{c.name}", start_position=-len(text), display=c.usage_line, display_meta=c.description
                )

    return SlashCompleter()
