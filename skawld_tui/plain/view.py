"""`PlainView`: the plain mode's chat as its parts see it (a Protocol).

The plain command host, permission asker, composer and session dialogs are given
the chat; they type it as `PlainView`, never as `PlainChat`, so `skawld_tui.plain.chat`
imports them and none of them imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from skawld_core.agent import Agent
    from skawld_core.events import Event
    from skawld_core.session import Session

    from ..file_commands import PromptCommands
    from ..permission_broker import PermissionBroker


class PlainView(Protocol):
    """The console, the running agent and session, and how the chat prints and asks."""

    console: Console
    agent: Agent | None
    session: Session | None
    settings: Any
    broker: PermissionBroker
    usage_estimated: bool  # a result said some counts are estimates

    def commands(self) -> PromptCommands | None: ...

    def out(self, text: str | Text, *, style: str = "", depth: int = 0) -> None: ...

    def render(self, event: Event, depth: int = 0, path: tuple[str, ...] = ()) -> None: ...

    def show_result(self, text: str, is_error: bool, depth: int) -> None: ...

    def render_history(self) -> None: ...

    async def ask(self, question: str) -> str: ...

    async def run_prompt(self, text: str, *, images: Any = (), context: Any = ()) -> None: ...
