"""The project trust modal: what an unaccepted project asks for, grouped by capability.

`TrustScreen` dismisses with True (trust this version of the project's files)
or False. `TrustPromptApp` shows it on its own before the main app starts (the
settings the app needs depend on the answer).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from skawld_core.trust import CHANGED_MARK, TrustRequest, group_requests

__all__ = ["TrustPromptApp", "TrustScreen", "requests_text"]


def requests_text(requests: Sequence[TrustRequest]) -> Text:
    """The grouped list, as rich text (the same content as the terminal prompt)."""
    out = Text()
    for title, items in group_requests(requests):
        out.append(f"{title}:\n", style="bold")
        for item in items:
            out.append("  • ")
            if item.changed:
                out.append(CHANGED_MARK, style="bold yellow")
            out.append(item.what)
            if item.pointer:
                out.append(f"  {item.pointer}", style="dim")
            out.append("\n")
    return out


class TrustScreen(ModalScreen[bool]):
    """Asks whether to trust the project's files as they are now."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Trust"),
        Binding("n", "answer(False)", "Do not trust"),
        Binding("escape", "answer(False)", "Do not trust"),
    ]

    def __init__(self, path: Path, requests: Sequence[TrustRequest]) -> None:
        super().__init__(classes="trust-screen")
        self.path = path
        self.requests = list(requests)

    def compose(self) -> ComposeResult:
        with Vertical(id="trust-dialog"):
            yield Label(Text("Trust this project?", style="bold"), id="trust-title")
            changed = any(r.changed for r in self.requests)
            intro = (
                f"{self.path}: the project changed since you accepted it; what is new is marked. "
                "Review it before you accept:"
                if changed
                else f"{self.path} asks for the following. Review it before you accept:"
            )
            yield Static(Text(intro), id="trust-intro")
            with VerticalScroll(id="trust-requests"):
                yield Static(requests_text(self.requests), markup=False)
            with Horizontal(id="trust-buttons"):
                yield Button("Trust this version (y)", id="trust", variant="warning")
                yield Button("Do not trust (n)", id="distrust", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#distrust", Button).focus()

    def action_answer(self, trusted: bool) -> None:
        self.dismiss(trusted)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "trust")


class TrustPromptApp(App[bool]):
    """Only the trust modal; `run()` returns the answer (False when closed otherwise)."""

    CSS = """
    TrustScreen { align: center middle; }
    #trust-dialog {
        width: 96; max-width: 100%; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    #trust-title { margin-bottom: 1; }
    #trust-requests { height: auto; max-height: 20; background: $boost; margin: 1 0; }
    #trust-buttons { height: auto; }
    #trust-buttons Button { margin-right: 2; }
    """

    def __init__(self, path: Path, requests: Sequence[TrustRequest]) -> None:
        super().__init__()
        self.path = path
        self.requests = list(requests)

    def on_mount(self) -> None:
        self.push_screen(TrustScreen(self.path, self.requests), callback=self.exit)
