"""The AskUser modal: one question at a time, options by number key or click,
free text allowed, Esc declines."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option


class AskUserScreen(ModalScreen[dict[str, Any]]):
    """Shows `questions` (AskUserQuestion models) and dismisses with the answers dict
    (`{"answers": [{"selected": [...]}, ...]}`) or `{"declined": True}`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "decline", "Decline"),
        Binding("space", "toggle_option", "Toggle", show=False),
    ]

    def __init__(self, questions: list[Any]) -> None:
        super().__init__(classes="ask-user-screen")
        self.questions = questions
        self.index = 0
        self.answers: list[dict[str, list[str]]] = []
        self.picked: set[str] = set()

    def compose(self) -> ComposeResult:
        with Vertical(id="ask-dialog"):
            yield Label("", id="ask-header")
            yield Static("", id="ask-question", markup=False)
            yield OptionList(id="ask-options")
            yield Input(placeholder="Or type an answer and press Enter", id="ask-free")
            yield Static(Text("enter: choose · space: toggle (multi) · esc: decline", style="dim"), id="ask-help")

    def on_mount(self) -> None:
        self._show()

    @property
    def question(self) -> Any:
        return self.questions[self.index]

    def _show(self) -> None:
        q = self.question
        self.picked = set()
        count = f" ({self.index + 1}/{len(self.questions)})" if len(self.questions) > 1 else ""
        self.query_one("#ask-header", Label).update(Text(f"{q.header}{count}", style="bold"))
        self.query_one("#ask-question", Static).update(q.question)
        options = self.query_one("#ask-options", OptionList)
        options.clear_options()
        for n, opt in enumerate(q.options, start=1):
            options.add_option(Option(self._label(n, opt), id=opt.label))
        options.highlighted = 0
        options.focus()
        self.query_one("#ask-free", Input).value = ""

    def _label(self, n: int, opt: Any) -> Text:
        mark = ("[x] " if opt.label in self.picked else "[ ] ") if self.question.multi_select else ""
        label = Text(f"{n}. {mark}{opt.label}")
        if opt.description:
            label.append(f" — {opt.description}", style="dim")
        return label

    def action_toggle_option(self) -> None:
        if not self.question.multi_select:
            return
        options = self.query_one("#ask-options", OptionList)
        if options.highlighted is None:
            return
        label = self.question.options[options.highlighted].label
        self.picked ^= {label}
        for n, opt in enumerate(self.question.options, start=1):
            options.replace_option_prompt_at_index(n - 1, self._label(n, opt))

    def on_key(self, event: Any) -> None:
        if event.character and event.character.isdigit() and not isinstance(self.focused, Input):
            n = int(event.character)
            if 1 <= n <= len(self.question.options):
                event.stop()
                self._answer([self.question.options[n - 1].label])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.question.multi_select and self.picked:
            self._answer(sorted(self.picked, key=[o.label for o in self.question.options].index))
        else:
            self._answer([str(event.option.id)])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.value.strip():
            self._answer([event.value.strip()])

    def _answer(self, selected: list[str]) -> None:
        self.answers.append({"selected": selected})
        self.index += 1
        if self.index >= len(self.questions):
            self.dismiss({"answers": self.answers})
        else:
            self._show()

    def action_decline(self) -> None:
        self.dismiss({"declined": True})
