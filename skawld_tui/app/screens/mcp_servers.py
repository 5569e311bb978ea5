"""The app's ``/mcp``: every MCP server with its state; `a` logs in to one that needs authorization."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ...mcp_status import ServerRow, login_server, server_rows

if TYPE_CHECKING:
    from ..host import ChatApp

__all__ = ["McpServersScreen", "open_mcp_servers"]

Login = Callable[[str, Callable[[str], Awaitable[None]]], Awaitable[str]]
"""Runs the browser step for a server: (name, show a line) -> what happened."""


def _state_style(row: ServerRow) -> str:
    if row.needs_login:
        return "bold yellow"
    return "green" if row.state.startswith("ready") else "dim" if row.state == "disabled" else "red"


class McpServersScreen(ModalScreen[None]):
    """Lists `rows`; `a` on a server that needs authorization runs `login` (the browser step)
    and lists the servers again with `reload`; Esc closes."""

    DEFAULT_CSS = """
    McpServersScreen { align: center middle; }
    #mcp-dialog {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    #mcp-list { height: auto; max-height: 20; margin: 1 0; }
    #mcp-status { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "login", "Log in"),
        Binding("escape", "close", "Close"),
    ]

    def __init__(self, rows: list[ServerRow], *, login: Login, reload: Callable[[], list[ServerRow]]) -> None:
        super().__init__()
        self.rows = rows
        self._login = login
        self._reload = reload
        self.logging_in: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="mcp-dialog"):
            yield Label(Text("MCP servers", style="bold"), id="mcp-title")
            yield OptionList(id="mcp-list")
            yield Static(self._help(), id="mcp-status")

    def _help(self) -> Text:
        if any(row.needs_login for row in self.rows):
            return Text("a: log in to the highlighted server (opens the browser) · esc: close")
        return Text("esc: close")

    def on_mount(self) -> None:
        self._fill()
        options = self.query_one(OptionList)
        first = next((n for n, row in enumerate(self.rows) if row.needs_login), 0)
        if self.rows:
            options.highlighted = first
        options.focus()

    def _fill(self) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        if not self.rows:
            options.add_option(Option(Text("No MCP servers configured.", style="italic"), disabled=True))
            return
        width = max(len(row.name) for row in self.rows)
        for row in self.rows:
            line = Text(f"{row.name:<{width}}  ", style="bold")
            line.append(row.state, style=_state_style(row))
            if row.needs_login:
                line.append(" · press a to log in", style="yellow")
            line.append(f"\n{' ' * (width + 2)}{row.where}", style="dim")
            options.add_option(Option(line, id=row.name))
        if highlighted is not None:
            options.highlighted = min(highlighted, len(self.rows) - 1)

    def _status(self, text: str, style: str = "") -> None:
        self.query_one("#mcp-status", Static).update(Text(text, style=style))

    def action_login(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.rows) or self.logging_in is not None:
            return
        row = self.rows[index]
        if not row.needs_login:
            self._status(f"{row.name} does not need authorization ({row.state})")
            return
        self.logging_in = row.name
        self._status(f"logging in to {row.name}…")
        self._run_login(row.name)

    @work(exclusive=True, group="mcp-login")
    async def _run_login(self, name: str) -> None:
        async def show(line: str) -> None:
            self._status(line)

        try:
            done = await self._login(name, show)
        except Exception as exc:  # the browser could not open, the listener could not bind…
            done = f"{name!r}: {exc}"
        finally:
            self.logging_in = None
        self.rows = self._reload()
        self._fill()
        self._status(done, "green" if done.startswith("logged in") else "yellow")

    def action_close(self) -> None:
        self.dismiss(None)


async def open_mcp_servers(app: ChatApp) -> None:
    """The app's ``/mcp`` without arguments: the server list screen."""
    agent = app.agent
    if agent is None:
        return

    async def login(name: str, show: Callable[[str], Awaitable[None]]) -> str:
        return await login_server(agent, name, show)

    await app.push_screen(McpServersScreen(server_rows(agent), login=login, reload=lambda: server_rows(agent)))
