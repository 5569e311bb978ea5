"""`ChoiceScreen`: the app's modal for `CommandHost.choose` (a list; Enter picks, Esc cancels)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option


class ChoiceScreen(ModalScreen[str | None]):
    """`options` are (value, label); dismissed with the chosen value or None."""

    DEFAULT_CSS = """
    ChoiceScreen { align: center middle; }
    ChoiceScreen > Vertical {
        width: 80%; height: auto; max-height: 80%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    ChoiceScreen OptionList { height: auto; max-height: 20; border: none; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, options: list[tuple[str, str]]) -> None:
        super().__init__()
        self.heading = title
        self.choices = options

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text(self.heading, style="bold"))
            yield OptionList(*(Option(label, id=value) for value, label in self.choices))
            yield Label(Text("↑↓ choose · Enter pick · Esc cancel", style="dim"))

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
