"""The /rewind dialog (also Esc Esc on an empty prompt): pick a prompt, then
restore the code, the conversation, or both, to the state before it.

When the code is restored and files changed after that checkpoint but not through
the agent's file tools (the user's edits, new files: `check` finds them), a third
step names them and asks: overwrite them, keep them, or go back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from skawld_core.checkpoints.overwrites import UserChange
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


OVERWRITE_CHOICES = (
    ("overwrite", "Restore, overwriting the files above (the current state is kept as a checkpoint)"),
    ("keep", "Restore, but leave the files above as they are"),
)
ChangeCheck = Callable[[PromptPoint], Awaitable[Sequence[UserChange]]]


@dataclass(frozen=True)
class RewindChoice:
    """The prompt chosen, what to restore, and the paths to leave as they are."""

    point: PromptPoint
    action: RewindAction
    keep: tuple[str, ...] = ()


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

    def __init__(self, points: list[PromptPoint], check: ChangeCheck | None = None) -> None:
        super().__init__(classes="rewind")
        self.points = list(reversed(points))
        self.chosen: PromptPoint | None = None
        self.check = check
        self.action: RewindAction | None = None
        self.changes: list[UserChange] = []

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

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if self.chosen is None:
            self.chosen = next(p for p in self.points if f"p{p.index}" == option_id)
            self._show_actions(self.chosen)
            return
        if self.action is not None:  # step 3: the user's own changes
            keep = tuple(c.path for c in self.changes) if option_id == "keep" else ()
            self.dismiss(RewindChoice(self.chosen, self.action, keep))
            return
        action: RewindAction = option_id  # type: ignore[assignment]
        if action != "conversation" and self.check is not None:
            self.changes = list(await self.check(self.chosen))
            if self.changes:
                self.action = action
                self._show_changes(self.changes)
                return
        self.dismiss(RewindChoice(self.chosen, action))

    def _show_changes(self, changes: list[UserChange]) -> None:
        listing = "\n".join(f"  {c.describe()}" for c in changes)
        self.query_one("#rewind-title", Label).update(
            Text(f"These files changed after that checkpoint, not by the agent:\n{listing}", style="bold")
        )
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(text, id=choice) for choice, text in OVERWRITE_CHOICES])
        options.highlighted = 1

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
        if self.action is not None:
            self.action = None
            self._show_actions(self.chosen)
            return
        self.chosen = None
        self.query_one("#rewind-title", Label).update(Text("Rewind to before a prompt", style="bold"))
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._point_options())
