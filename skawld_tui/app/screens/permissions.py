"""The app's ``/permissions`` list: every rule in effect with its source; `d` removes a remembered one."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from ...permissions_view import RuleEntry, remove_entry, rules_in_effect, run_permissions_command
from ..widgets.blocks import NoteLine

if TYPE_CHECKING:
    from ..host import ChatApp

__all__ = ["PermissionsScreen", "open_permissions"]

_STYLE = {"allow": "green", "ask": "yellow", "deny": "red"}


class PermissionsScreen(ModalScreen[None]):
    """Lists `entries`; `d` / Delete removes the highlighted removable one through `remove`
    (which returns what it did) and `reload` (which lists the entries again); Esc closes."""

    DEFAULT_CSS = """
    PermissionsScreen { align: center middle; }
    #permissions-dialog {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    #permissions-list { height: auto; max-height: 20; margin: 1 0; }
    #permissions-status { color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "remove", "Remove"),
        Binding("delete", "remove", "Remove", show=False),
        Binding("escape", "close", "Close"),
    ]

    def __init__(
        self,
        entries: list[RuleEntry],
        *,
        remove: Callable[[RuleEntry], str],
        reload: Callable[[], list[RuleEntry]],
    ) -> None:
        super().__init__()
        self.entries = entries
        self._remove = remove
        self._reload = reload

    def compose(self) -> ComposeResult:
        with Vertical(id="permissions-dialog"):
            yield Label(Text("Permission rules in effect", style="bold"), id="permissions-title")
            yield OptionList(id="permissions-list")
            yield Static(Text("d: remove the highlighted remembered rule · esc: close"), id="permissions-status")

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        if not self.entries:
            options.add_option(Option(Text("No rules: the permission mode decides.", style="italic"), disabled=True))
            return
        width = max(len(e.text) for e in self.entries)
        for n, entry in enumerate(self.entries, start=1):
            line = Text(f"{n:>2}. ")
            line.append(f"{entry.decision:<5}", style=_STYLE[entry.decision])
            line.append(f"  {entry.text:<{width}}  ")
            line.append(entry.source, style="dim")
            if entry.removable:
                line.append("  [removable]", style="cyan")
            options.add_option(Option(line, id=str(n)))
        if highlighted is not None:
            options.highlighted = min(highlighted, len(self.entries) - 1)

    def action_remove(self) -> None:
        index = self.query_one(OptionList).highlighted
        if index is None or not 0 <= index < len(self.entries):
            return
        status = self.query_one("#permissions-status", Static)
        try:
            done = self._remove(self.entries[index])
        except Exception as exc:  # not removable, or the file could not be written: say so
            status.update(Text(str(exc), style="yellow"))
            return
        status.update(Text(done))
        self.entries = self._reload()
        self._fill()

    def action_close(self) -> None:
        self.dismiss(None)


class _NoteHost:
    """`PermissionsHost` over the app: lines go to the transcript."""

    def __init__(self, app: ChatApp) -> None:
        self.app = app
        self.agent = app.agent
        self.broker = app.broker

    def out(self, text: str, *, style: str = "", depth: int = 0) -> None:

        self.app.transcript.mount(NoteLine(text, classes="note -warning" if style == "yellow" else "note"))


async def open_permissions(app: ChatApp, args: str) -> None:
    """The app's ``/permissions``: the list screen, or ``remove <n>`` as in the plain mode."""

    agent = app.agent
    if agent is None:
        return
    if args.strip():
        await run_permissions_command(_NoteHost(app), args, app.settings)
        return

    def reload() -> list[RuleEntry]:
        return rules_in_effect(agent, app.broker, app.settings)

    await app.push_screen(
        PermissionsScreen(reload(), remove=lambda e: remove_entry(e, agent.permissions, app.broker), reload=reload)
    )
