"""The permission modal: Allow once (y), Allow always for this session (a), Deny (n)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static

from ..file_diff import proposed_change, render_diff

Choice = Literal["allow", "always", "deny"]


@dataclass(frozen=True)
class PermissionAnswer:
    """What the user decided; `reason` goes to the model on deny."""

    choice: Choice
    reason: str = ""
    interrupt: bool = False


class PermissionScreen(ModalScreen[PermissionAnswer]):
    """Asks whether one tool call may run."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('allow')", "Allow once"),
        Binding("a", "answer('always')", "Allow always"),
        Binding("n", "answer('deny')", "Deny"),
        Binding("escape", "escape", "Deny and interrupt"),
    ]

    def __init__(
        self, tool_name: str, summary: str, input: dict[str, Any], *, position: str = "", cwd: Path | None = None
    ) -> None:
        super().__init__(classes="permission-screen")
        self.tool_name = tool_name
        self.summary = summary
        self.tool_input = input
        self.position = position
        self.cwd = cwd

    def compose(self) -> ComposeResult:
        with Vertical(id="permission-dialog"):
            title = f"Allow {self.tool_name}?"
            if self.position:
                title += f"  ({self.position})"
            yield Label(Text(title, style="bold"), id="permission-title")
            yield Static(Text(self.summary), id="permission-summary", markup=False)
            with VerticalScroll(id="permission-input"):
                yield Static(self._input_renderable(), markup=False)
            yield Input(placeholder="Reason for denying (optional), then Enter", id="deny-reason")
            with Horizontal(id="permission-buttons"):
                yield Button("Allow once (y)", id="allow", variant="success")
                yield Button("Always allow this session (a)", id="always", variant="primary")
                yield Button("Deny (n)", id="deny", variant="error")

    def _input_renderable(self) -> Any:
        change = proposed_change(self.tool_name, self.tool_input, self.cwd)
        if change is not None:
            return render_diff(change)
        if self.tool_name == "Bash" and "command" in self.tool_input:
            return Syntax(str(self.tool_input["command"]), "bash", theme="ansi_dark", word_wrap=True)
        return Text(json.dumps(self.tool_input, indent=2, ensure_ascii=False))

    def on_mount(self) -> None:
        self.query_one("#allow", Button).focus()

    def action_answer(self, choice: Choice) -> None:
        reason = self.query_one("#deny-reason", Input).value.strip() if choice == "deny" else ""
        self.dismiss(PermissionAnswer(choice, reason))

    def action_escape(self) -> None:
        self.dismiss(PermissionAnswer("deny", "interrupted by the user", interrupt=True))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id in ("allow", "always", "deny"):
            self.action_answer(event.button.id)  # type: ignore[arg-type]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer("deny")
