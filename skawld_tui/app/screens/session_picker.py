"""The /resume session picker: titles, age, size, model, branch, fork origin,
with fuzzy search over titles and content."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from skawld_core.sessions.listing import SessionSummary, ago, search


def summary_label(s: SessionSummary, current: str | None = None) -> Text:
    """One picker row: the title, then a dim line of facts."""
    label = Text(s.title, style="bold", overflow="ellipsis", no_wrap=True)
    if s.id == current:
        label.append("  (current)", style="dim")
    facts = [ago(s.updated_at), f"{s.message_count} msgs"]
    if s.model:
        facts.append(s.model)
    if s.git_branch:
        facts.append(f"⎇ {s.git_branch}")
    if s.forked_from:
        facts.append(f"fork of {s.forked_from[:8]}" + (f" @{s.forked_at}" if s.forked_at is not None else ""))
    facts.append(s.id[:8])
    label.append("\n  " + " · ".join(facts), style="dim")
    return label


class SessionPicker(ModalScreen[str | None]):
    """Lists conversations (newest first); typing filters, Enter resumes, Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
    ]

    def __init__(self, sessions: list[SessionSummary], current: str | None = None, title: str = "") -> None:
        super().__init__(classes="session-picker")
        self.sessions = sessions
        self.current = current
        self.heading = title or "Resume a session"
        self.shown: list[SessionSummary] = list(sessions)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-dialog"):
            yield Label(Text(self.heading, style="bold"))
            yield Input(placeholder="search titles and content…", id="picker-search")
            yield OptionList(*self._options(), id="picker-list")
            yield Label(Text("↑↓ choose · Enter resume · Esc cancel", style="dim"), id="picker-keys")

    def _options(self) -> list[Option]:
        return [Option(summary_label(s, self.current), id=s.id) for s in self.shown]

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        if self.shown:
            self.query_one(OptionList).highlighted = 0

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self.shown = search(self.sessions, event.value)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options())
        if self.shown:
            options.highlighted = 0

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        options = self.query_one(OptionList)
        if options.highlighted is not None and self.shown:
            self.dismiss(self.shown[options.highlighted].id)

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if not self.shown:
            return
        current = options.highlighted if options.highlighted is not None else -1
        options.highlighted = max(0, min(len(self.shown) - 1, current + step))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
