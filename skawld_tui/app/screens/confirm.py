"""A small yes/no modal; `/mode yolo` uses it before turning every check off.

`ConfirmScreen` dismisses with True (confirmed) or False (n, Esc, or the
cancel button). Cancel has the focus, so Enter alone never confirms.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

__all__ = ["ConfirmScreen"]


class ConfirmScreen(ModalScreen[bool]):
    """Asks one yes/no question."""

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    #confirm-dialog {
        width: 72; max-width: 100%; height: auto;
        border: thick $error; background: $surface; padding: 1 2;
    }
    #confirm-body { margin: 1 0; }
    #confirm-buttons { height: auto; }
    #confirm-buttons Button { margin-right: 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, body: str, *, confirm: str = "Yes", cancel: str = "Cancel") -> None:
        super().__init__()
        self.title_text = title
        self.body = body
        self.confirm_label = confirm
        self.cancel_label = cancel

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Label(Text(self.title_text, style="bold"), id="confirm-title")
            yield Static(Text(self.body), id="confirm-body")
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.confirm_label} (y)", id="confirm", variant="error")
                yield Button(f"{self.cancel_label} (n)", id="cancel", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()

    def action_answer(self, confirmed: bool) -> None:
        self.dismiss(confirmed)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm")
