"""The /rewind dialog (also Esc Esc on an empty prompt): pick a prompt, then
restore the code, the conversation, or both, to the state before it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from skawld_core.sessions.listing import ago
from skawld_core.sessions.meta import PromptPoint, title_from_prompt

RewindAction = Literal["both", "conversation", "code"]

LIMITS = (
    "Rewinding code restores files inside the project from the snapshot taken before that prompt "
    "(ignored files and files over the size cap are left alone). Files outside the project and "
    "effects outside the filesystem (network calls, databases, running processes) are not undone. "
    "Rewinding the conversation starts a fork; the current session is kept."
)

ACTIONS: tuple[tuple[RewindAction, str], ...] = (
    ("both", "Restore code and conversation"),
    ("conversation", "Restore conversation only (fork here, keep the files)"),
    ("code", "Restore code only (keep the conversation)"),
)


@dataclass(frozen=True)
class RewindChoice:
    """The prompt chosen and what to restore."""

    point: PromptPoint
    action: RewindAction


def point_label(point: PromptPoint, number: int) -> Text:
    """One prompt row: its number, text and when, and whether code can be restored."""
    label = Text(f"{number:>2}. ", style="dim")
    label.append(title_from_prompt(point.text, 70) or "(empty prompt)", style="bold")
    facts = [ago(point.at)] if point.at else []
    facts.append("code checkpoint" if point.commit else "no code checkpoint")
    label.append("  " + " · ".join(facts), style="dim")
    return label


class RewindScreen(ModalScreen[RewindChoice | None]):
    """Step 1 lists the prompts (newest first); step 2 asks what to restore."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self, points: list[PromptPoint]) -> None:
        super().__init__(classes="rewind")
        self.points = list(reversed(points))
        self.chosen: PromptPoint | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="rewind-dialog"):
            yield Label(Text("Rewind to before a prompt", style="bold"), id="rewind-title")
            yield OptionList(*self._point_options(), id="rewind-list")
            yield Label(Text(LIMITS, style="dim"), id="rewind-limits")

    def _point_options(self) -> list[Option]:
        total = len(self.points)
        return [Option(point_label(p, total - i), id=f"p{p.index}") for i, p in enumerate(self.points)]

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if self.chosen is None:
            self.chosen = next(p for p in self.points if f"p{p.index}" == option_id)
            self._show_actions(self.chosen)
            return
        self.dismiss(RewindChoice(self.chosen, option_id))  # type: ignore[arg-type]

    def _show_actions(self, point: PromptPoint) -> None:
        title = self.query_one("#rewind-title", Label)
        title.update(Text(f"Rewind to before: {title_from_prompt(point.text, 60)}", style="bold"))
        options = self.query_one(OptionList)
        options.clear_options()
        for action, text in ACTIONS:
            disabled = action != "conversation" and point.commit is None
            suffix = "  (no code checkpoint for this prompt)" if disabled else ""
            options.add_option(Option(text + suffix, id=action, disabled=disabled))
        options.highlighted = 0 if point.commit else 1

    def action_back(self) -> None:
        if self.chosen is None:
            self.dismiss(None)
            return
        self.chosen = None
        self.query_one("#rewind-title", Label).update(Text("Rewind to before a prompt", style="bold"))
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._point_options())
