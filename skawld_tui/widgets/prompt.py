"""The prompt: a multi-line `TextArea` with history and completion hooks."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option


class PromptArea(TextArea):
    """Enter sends, Shift+Enter / Ctrl+J insert a newline, Up/Down walk the history
    (at the first/last row), Tab accepts a completion."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "history(-1)", show=False),
        Binding("down", "history(1)", show=False),
    ]
    # Enter, Ctrl+J / Shift+Enter and Tab are handled in `_on_key`, in order with
    # the typed characters: as priority bindings they would jump ahead of keys
    # still queued for this widget, and a fast burst (a paste, typing during
    # start-up) would be sent half-typed.
    _KEY_ACTIONS: ClassVar[dict[str, str]] = {
        "enter": "submit",
        "ctrl+j": "newline",
        "shift+enter": "newline",
        "tab": "accept_completion",
    }

    class Submitted(Message):
        """The user pressed Enter on some text."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class AcceptCompletion(Message):
        """Tab (or Enter) while the completion list is open."""

        def __init__(self, submit: bool) -> None:
            super().__init__()
            self.submit = submit

    class MoveCompletion(Message):
        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    def __init__(self, **kwargs: object) -> None:
        super().__init__(
            soft_wrap=True,
            compact=True,
            highlight_cursor_line=False,
            show_line_numbers=False,
            placeholder="Message skawld — / for commands, @ for files",
            **kwargs,  # type: ignore[arg-type]
        )
        self.prompt_history: list[str] = []
        self.prompt_index = 0
        self.completing = False

    async def _on_key(self, event: events.Key) -> None:
        action = self._KEY_ACTIONS.get(event.key)
        if action is None:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        getattr(self, f"action_{action}")()

    def action_newline(self) -> None:
        self.insert("\n")

    def action_submit(self) -> None:
        if self.completing:
            self.post_message(self.AcceptCompletion(submit=True))
            return
        text = self.text.strip()
        if text:
            if not self.prompt_history or self.prompt_history[-1] != text:
                self.prompt_history.append(text)
            self.prompt_index = len(self.prompt_history)
            self.post_message(self.Submitted(text))
        self.clear()

    def action_accept_completion(self) -> None:
        if self.completing:
            self.post_message(self.AcceptCompletion(submit=False))
        else:
            self.app.action_focus_next()

    def action_history(self, step: int) -> None:
        if self.completing:
            self.post_message(self.MoveCompletion(step))
            return
        row, _ = self.cursor_location
        edge = row == 0 if step < 0 else row == self.document.line_count - 1
        if not edge or not self.prompt_history:
            (self.action_cursor_up if step < 0 else self.action_cursor_down)()
            return
        self.prompt_index = max(0, min(len(self.prompt_history), self.prompt_index + step))
        history = self.prompt_history
        self.load_text(history[self.prompt_index] if self.prompt_index < len(history) else "")
        self.move_cursor(self.document.end)

    def set_text(self, text: str) -> None:
        self.load_text(text)
        self.move_cursor(self.document.end)


class CompletionList(OptionList, can_focus=False):
    """The dropdown above the prompt (slash commands or paths)."""

    def show(self, options: list[tuple[str, str]]) -> None:
        """`options` are (value, label) pairs; an empty list hides the dropdown."""
        self.clear_options()
        if options:
            self.add_options([Option(Text(label), id=value) for value, label in options])
            self.highlighted = 0
        self.display = bool(options)

    def move(self, step: int) -> None:
        if self.option_count:
            self.highlighted = ((self.highlighted or 0) + step) % self.option_count

    @property
    def value(self) -> str | None:
        if not self.display or self.highlighted is None or not self.option_count:
            return None
        return self.get_option_at_index(self.highlighted).id
