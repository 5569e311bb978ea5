"""The prompt: a multi-line `TextArea` with history and completion hooks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from ...prompt_history import search_back

if TYPE_CHECKING:
    from ...prompt_history import PromptHistory


@dataclass
class _Search:
    """A Ctrl+R search in progress: what is typed, the entry shown, the text before it."""

    query: str = ""
    index: int | None = None
    original: str = ""
    failed: bool = False


class PromptArea(TextArea):
    """Enter sends, `\\`+Enter, Shift+Enter and Ctrl+J insert a newline, Up/Down walk the
    history (at the first/last row), Ctrl+R searches it, Tab accepts a completion."""

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
        "ctrl+r": "search_history",
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

    class PasteRequested(Message):
        """Ctrl+V: the composer looks for an image on the clipboard first."""

    class ImagesPasted(Message):
        """A paste that was only the paths of image files."""

        def __init__(self, paths: list[Path]) -> None:
            super().__init__()
            self.paths = paths

    class RemoveLastAttachment(Message):
        """Backspace on an empty prompt while attachments are pending."""

    class HistorySearchChanged(Message):
        """The Ctrl+R search line to show above the prompt (None: the search ended)."""

        def __init__(self, view: Text | None) -> None:
            super().__init__()
            self.view = view

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
        self.history_store: PromptHistory | None = None
        # Set by the composer: pending attachments (an empty prompt may then be sent),
        # and the image files a pasted text names (empty when it is ordinary text).
        self.has_attachments: Callable[[], bool] = lambda: False
        self.image_paths: Callable[[str], list[Path]] = lambda _: []
        # Set by the composer: Esc first stops a running `!cmd` (True when it did).
        self.cancel_shell: Callable[[], bool] = lambda: False
        self.search: _Search | None = None

    def load_history(self, store: PromptHistory) -> None:
        """Walk `store`'s entries with Up/Down and add each sent prompt to it."""
        early = self.prompt_history  # sent before the agent (and so the project) was known
        for text in early:
            store.append(text)
        self.history_store = store
        self.prompt_history = store.load()
        self.prompt_index = len(self.prompt_history)

    async def _on_key(self, event: events.Key) -> None:
        if self.search is not None and self._search_key(event):
            event.stop()
            event.prevent_default()
            return
        action = self._KEY_ACTIONS.get(event.key)
        if action is None and event.key == "backspace" and not self.text and self.has_attachments():
            action = "remove_attachment"
        if action is None and event.key == "escape" and self.cancel_shell():
            event.stop()
            event.prevent_default()
            return
        if action is None:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        getattr(self, f"action_{action}")()

    def action_newline(self) -> None:
        self.insert("\n")

    def _ends_in_backslash(self) -> bool:
        row, col = self.cursor_location
        return col > 0 and self.document.get_line(row)[col - 1] == "\\"

    # -- Ctrl+R: reverse search over the persisted history ---------------------

    def action_search_history(self) -> None:
        """Start a search (the text typed so far comes back on Esc)."""
        if self.completing:
            return
        self.search = _Search(original=self.text)
        self._show_search()

    def _search_key(self, event: events.Key) -> bool:
        """A key while searching; False when it ends the search and acts as usual."""
        search = self.search
        assert search is not None
        if event.key == "ctrl+r":
            self._find(search.query, search.index if search.index is not None else len(self.prompt_history))
        elif event.key == "backspace":
            self._find(search.query[:-1], len(self.prompt_history))
        elif event.key in ("escape", "ctrl+g", "ctrl+c"):
            self.search = None
            self.set_text(search.original)
            self._show_search()
        elif event.key in ("enter", "tab"):
            self._end_search()
        elif event.is_printable and event.character:
            self._find(search.query + event.character, len(self.prompt_history))
        else:
            self._end_search()
            return False
        return True

    def _find(self, query: str, before: int) -> None:
        search = self.search
        assert search is not None
        search.query = query
        found = search_back(self.prompt_history, query, before) if query else None
        search.failed = found is None and bool(query)
        if not search.failed:
            search.index = found
        if search.index is not None:
            self.set_text(self.prompt_history[search.index])
        self._show_search()

    def _end_search(self) -> None:
        """Keep the entry found in the prompt, to edit or send."""
        self.search = None
        self._show_search()

    def _show_search(self) -> None:
        self.post_message(self.HistorySearchChanged(self._search_view()))

    def _search_view(self) -> Text | None:
        search = self.search
        if search is None:
            return None
        view = Text.assemble(("search prompts: ", "dim"), (search.query, "bold"))
        if search.failed:
            view.append("  no match", style="dim italic")
        if search.failed or search.index is None:
            return view
        entry = self.prompt_history[search.index].splitlines()[0] if self.prompt_history[search.index] else ""
        shown = Text(entry, no_wrap=True, overflow="ellipsis")
        start = entry.casefold().find(search.query.casefold())
        if start >= 0 and search.query:
            shown.stylize("reverse bold", start, start + len(search.query))
        return view + Text("  ") + shown

    def action_remove_attachment(self) -> None:
        self.post_message(self.RemoveLastAttachment())

    def action_paste(self) -> None:
        self.post_message(self.PasteRequested())

    def paste_text(self, text: str) -> None:
        """Insert `text` at the cursor (the text half of Ctrl+V)."""
        if text and (result := self._replace_via_keyboard(text, *self.selection)):
            self.move_cursor(result.end_location)

    async def _on_paste(self, event: events.Paste) -> None:
        paths = self.image_paths(event.text)
        if paths:
            event.stop()
            event.prevent_default()
            self.post_message(self.ImagesPasted(paths))
            return
        await super()._on_paste(event)

    def action_submit(self) -> None:
        if self.completing:
            self.post_message(self.AcceptCompletion(submit=True))
            return
        if self._ends_in_backslash():  # `\\`+Enter: a newline in place of the backslash
            row, col = self.cursor_location
            self.move_cursor(self.replace("\n", (row, col - 1), (row, col)).end_location)
            return
        text = self.text.strip()
        if text:
            if not self.prompt_history or self.prompt_history[-1] != text:
                self.prompt_history.append(text)
                if self.history_store is not None:
                    self.history_store.append(text)
            self.prompt_index = len(self.prompt_history)
            self.post_message(self.Submitted(text))
        elif self.has_attachments():
            self.post_message(self.Submitted(""))
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


class AttachmentChip(Static):
    """One pending attachment above the prompt; a click removes it."""

    class Remove(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, label: str, index: int) -> None:
        super().__init__(Text(f"{label} ✕"), classes="attachment-chip")
        self.index = index

    def on_click(self) -> None:
        self.post_message(self.Remove(self.index))


class AttachmentBar(Horizontal):
    """The chips of the images the next prompt will carry (hidden when none)."""

    DEFAULT_CSS = """
    AttachmentBar { height: auto; display: none; padding: 0 1; }
    AttachmentBar.-active { display: block; }
    AttachmentChip { width: auto; margin-right: 1; background: $boost; color: $text; }
    """

    async def show(self, labels: list[str]) -> None:
        """Replace the chips with one per label."""
        await self.remove_children()
        if labels:
            await self.mount_all([AttachmentChip(label, i) for i, label in enumerate(labels)])
        self.set_class(bool(labels), "-active")
