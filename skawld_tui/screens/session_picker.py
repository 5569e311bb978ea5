"""The /resume session picker."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option


class SessionPicker(ModalScreen[str | None]):
    """Lists stored sessions (newest first); Enter resumes, Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, sessions: list[Any], current: str | None = None) -> None:
        super().__init__(classes="session-picker")
        self.sessions = sessions
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-dialog"):
            yield Label(Text("Resume a session", style="bold"))
            options = []
            for s in self.sessions:
                label = Text(s.id[:8], style="bold")
                title = s.meta.get("title") if isinstance(getattr(s, "meta", None), dict) else None
                label.append(f"  {getattr(s, 'updated_at', '')[:16]}", style="dim")
                if title:
                    label.append(f"  {title}")
                if s.id == self.current:
                    label.append("  (current)", style="dim")
                options.append(Option(label, id=s.id))
            yield OptionList(*options, id="picker-list")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
