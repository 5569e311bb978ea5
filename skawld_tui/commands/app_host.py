"""`AppHost`: the Textual app as a `CommandHost` (output goes into the transcript)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import RenderableType

    from skawld_core.agent import Agent
    from skawld_core.messages import Usage
    from skawld_core.session import Session

    from ..app.host import ChatApp
    from ..file_commands import PromptCommands


class AppHost:
    """Runs commands against the app (a `ChatApp`)."""

    def __init__(self, app: ChatApp) -> None:
        self.app = app

    @property
    def agent(self) -> Agent | None:
        return self.app.agent

    @property
    def session(self) -> Session | None:
        return self.app.session

    @property
    def running(self) -> bool:
        return self.app.running

    @property
    def settings(self) -> Any:
        return self.app.settings

    @property
    def prompt_commands(self) -> PromptCommands | None:
        return self.app.prompt_commands

    @property
    def usage(self) -> Usage:
        return self.app.state.base_usage

    @property
    def usage_estimated(self) -> bool:
        return self.app.status.info.estimated

    async def _mount(self, widget: Any) -> None:
        await self.app.transcript.mount(widget)
        self.app.transcript.scroll_end(animate=False)

    async def markdown(self, text: str) -> None:
        from ..app.widgets.blocks import CommandOutput  # lazy: Textual; plain and headless use commands/ too

        await self._mount(CommandOutput(text))

    async def note(self, text: str, *, warning: bool = False) -> None:
        from ..app.widgets.blocks import NoteLine  # lazy: Textual; plain and headless use commands/ too

        await self._mount(NoteLine(text, classes="note -warning" if warning else "note"))

    async def error(self, title: str, detail: str) -> None:
        from ..app.widgets.blocks import ErrorBlock  # lazy: Textual; plain and headless use commands/ too

        await self._mount(ErrorBlock(title, detail))

    async def renderable(self, renderable: RenderableType) -> None:
        from textual.widgets import Static

        await self._mount(Static(renderable, classes="command-renderable"))

    async def divider(self, label: str) -> None:
        from ..app.widgets.blocks import Divider  # lazy: Textual; plain and headless use commands/ too

        await self._mount(Divider(label))

    async def prompt(self, text: str) -> None:
        if self.app.running:
            self.app.runs.steer(text)
        else:
            await self.app.start_run(text)

    async def choose(self, title: str, options: list[tuple[str, str]], then: Callable[[str], Awaitable[None]]) -> None:
        from .choice_screen import ChoiceScreen  # lazy: Textual; plain and headless use commands/ too

        async def picked(value: str | None) -> None:
            if value is not None:
                await then(value)

        # A callback, not an awaited result: the app's message loop must keep running for the dialog.
        self.app.push_screen(ChoiceScreen(title, options), callback=picked)

    async def open_session(self, session_id: str | None) -> None:
        from .bashes import end_session_shells  # lazy: the registry imports commands.bashes to register its command

        await end_session_shells(self)
        await self.app.load_session(session_id)
        self.status_changed()

    async def pick_session(self) -> None:
        await self.app.open_picker()

    async def rewind(self) -> None:
        await self.app.open_rewind()

    async def confirm_yolo(self) -> bool:
        self.app.runs.request_yolo()
        return True

    def status_changed(self) -> None:
        from .bashes import running_shells  # lazy: the registry imports commands.bashes to register its command

        agent = self.app.agent
        if agent is not None:
            self.app.status.set(model=agent.model, mode=agent.permission_mode, shells=running_shells(self))

    async def quit(self) -> None:
        await self.app.action_quit_app()
