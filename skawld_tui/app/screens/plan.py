"""The plan dialog: the model's ExitPlanMode plan, approved or sent back for more planning.

Approve (y): leave plan mode for `default` (edits still ask). Approve with
accept-edits (a): leave plan mode for `acceptEdits`. Keep planning (n): the
feedback typed in the box goes back to the model, and plan mode stays on.
Esc keeps planning and interrupts the turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label

from ...plan_feedback import KEEP_PLANNING, keep_planning_message
from ..widgets.blocks import MarkdownChunk

__all__ = ["KEEP_PLANNING", "PlanAnswer", "PlanChoice", "PlanScreen"]

PlanChoice = Literal["approve", "accept_edits", "keep_planning"]


@dataclass(frozen=True)
class PlanAnswer:
    """The user's decision on a plan; `feedback` goes to the model when it keeps planning."""

    choice: PlanChoice
    feedback: str = ""
    interrupt: bool = False

    @property
    def message(self) -> str:
        """The deny message for "keep planning"."""
        return keep_planning_message(self.feedback)


class PlanScreen(ModalScreen[PlanAnswer]):
    """Shows the plan from ExitPlanMode and asks how to go on."""

    DEFAULT_CSS = """
    PlanScreen { align: center middle; }
    #plan-dialog {
        width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    #plan-title { margin-bottom: 1; }
    #plan-body { height: auto; max-height: 20; background: $boost; margin: 0 0 1 0; }
    #plan-buttons { height: auto; margin-top: 1; }
    #plan-buttons Button { margin-right: 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('approve')", "Approve"),
        Binding("a", "answer('accept_edits')", "Approve, accept edits"),
        Binding("n", "answer('keep_planning')", "Keep planning"),
        Binding("escape", "escape", "Keep planning and interrupt"),
    ]

    def __init__(self, plan: str) -> None:
        super().__init__(classes="plan-screen")
        self.plan = plan

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-dialog"):
            yield Label(Text("Ready to code? Here is the plan:", style="bold"), id="plan-title")
            with VerticalScroll(id="plan-body"):
                yield MarkdownChunk(self.plan)  # rendered as the transcript renders answers
            yield Input(
                placeholder="What should change in the plan? (for keep planning), then Enter", id="plan-feedback"
            )
            with Horizontal(id="plan-buttons"):
                yield Button("Approve (y)", id="approve", variant="success")
                yield Button("Approve, accept edits (a)", id="accept_edits", variant="primary")
                yield Button("Keep planning (n)", id="keep_planning", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#approve", Button).focus()

    def action_answer(self, choice: PlanChoice) -> None:
        feedback = self.query_one("#plan-feedback", Input).value.strip() if choice == "keep_planning" else ""
        self.dismiss(PlanAnswer(choice, feedback))

    def action_escape(self) -> None:
        self.dismiss(PlanAnswer("keep_planning", interrupt=True))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id in ("approve", "accept_edits", "keep_planning"):
            self.action_answer(event.button.id)  # type: ignore[arg-type]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer("keep_planning")
