"""Transcript blocks: user prompts, streamed assistant Markdown, thinking, notes, errors."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.markdown import CodeBlock, Heading, Markdown, MarkdownElement
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.containers import VerticalGroup
from textual.geometry import Size
from textual.selection import Selection
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Collapsible, Static
from textual.widgets import Markdown as TextualMarkdown

from ...markdown_lists import NumberedListItem
from .md_chunks import ChunkSplitter


class UserMessage(Static):
    """A prompt the user sent. `history_index` is where it sits in the session history."""

    def __init__(self, text: str, *, history_index: int | None = None, steer: bool = False) -> None:
        label = Text("› " if not steer else "↳ ", style="bold")
        label.append(text)
        super().__init__(label, classes="user-message" + (" -steer" if steer else ""))
        self.text = text
        self.history_index = history_index


class MarkdownFeed:
    """Coalesces streamed text into serialised `append` calls on its target.

    `write()` is synchronous and cheap; one pump task appends whatever piled up
    since the last append (at most one append per frame), so the producer never
    waits on rendering and appends never overlap.
    """

    FRAME = 1 / 30

    def __init__(self, target: AssistantMarkdown) -> None:
        self.target = target
        self.parts: list[str] = []
        self.text = ""
        self.appends = 0
        self._wake = asyncio.Event()
        self._closing = False
        self._closed = asyncio.Event()
        self._task = asyncio.create_task(self._pump())

    def write(self, text: str) -> None:
        self.parts.append(text)
        self.text += text
        self._wake.set()

    async def _pump(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self.parts:
                chunk = "".join(self.parts)
                self.parts.clear()
                self.appends += 1
                started = time.perf_counter()
                await self.target.append(chunk)
                if not self._closing:
                    # At most one append per frame, and rendering gets at most about half
                    # the time (slow appends wait longer); closing cuts the wait short.
                    wait = max(self.FRAME, 1.2 * (time.perf_counter() - started))
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._closed.wait(), wait)
            if self._closing and not self.parts:
                return

    async def close(self) -> None:
        """Flush what is left and stop the pump."""
        self._closing = True
        self._closed.set()
        self._wake.set()
        try:
            await self._task
        except Exception:  # a widget removed mid-append: nothing left to flush
            pass

    def cancel(self) -> None:
        self._task.cancel()


class _LeftHeading(Heading):
    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")


class RichMarkdown(Markdown):
    """rich's Markdown with left-aligned headings and `1.` numbered items."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
        "list_item_open": NumberedListItem,
    }


class _PlainCodeBlock(CodeBlock):
    """A code block without syntax highlighting (cheap to re-render)."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        yield Syntax(code, "text", theme=self.theme, word_wrap=True, padding=1)


class TailMarkdown(RichMarkdown):
    """For the live tail: re-rendered every frame, so code is not highlighted until its chunk is done."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **RichMarkdown.elements,
        "fence": _PlainCodeBlock,
        "code_block": _PlainCodeBlock,
    }


def render_markdown(text: str, *, plain_code: bool = False) -> RichMarkdown:
    cls = TailMarkdown if plain_code else RichMarkdown
    return cls(text, code_theme="monokai", hyperlinks=False)


class MarkdownChunk(Widget):
    """A run of Markdown blocks, rendered to strips once per width.

    A line-API widget: layout and repaint reuse the rendered strips, so a
    finished chunk costs nothing when the screen refreshes for the live tail.
    Text selection works on it: each strip carries the offsets the screen maps
    the mouse to, the selected span is highlighted, and `get_selection` gives
    the text (the Markdown source when the whole chunk is selected).
    """

    DEFAULT_CSS = "MarkdownChunk { height: auto; }"

    def __init__(self, text: str, *, classes: str = "md-chunk", plain_code: bool = False) -> None:
        super().__init__(classes=classes)
        self.text = text
        self.plain_code = plain_code
        self._strips: list[Strip] = []
        self._lines_text: list[str] = []
        self._shown: dict[int, Strip] = {}  # y -> strip with the widget style
        self._shown_style: Style | None = None
        self._width = -1

    def set_text(self, text: str, *, plain_code: bool | None = None) -> None:
        self.text = text
        if plain_code is not None:
            self.plain_code = plain_code
        self._width = -1
        self.refresh(layout=True)

    def _lines(self, width: int) -> list[Strip]:
        if width != self._width:
            self._width = width
            self._shown.clear()
            if not self.text.strip() or width <= 0:
                self._strips = []
            else:
                console = self.app.console
                options = console.options.update(width=width, height=None, highlight=False)
                lines = console.render_lines(render_markdown(self.text, plain_code=self.plain_code), options, pad=False)
                self._strips = [Strip(line).adjust_cell_length(width) for line in lines]
            self._lines_text = [strip.text.rstrip() for strip in self._strips]
        return self._strips

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        lines = self._lines(width)
        style = self.rich_style
        if y >= len(lines):
            return Strip.blank(width, style)
        if style != self._shown_style:
            self._shown.clear()
            self._shown_style = style
        strip = self._shown.get(y)
        if strip is None:
            strip = lines[y].apply_style(style) if style else lines[y]
            self._shown[y] = strip
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            strip = self._highlight(strip, y, *span)
        # Offsets last: a segment cut by the highlight needs its own start offset.
        return strip.apply_offsets(0, y)

    def _highlight(self, strip: Strip, y: int, start: int, end: int) -> Strip:
        """`strip` with characters `start`..`end` (-1: to the end of the text) in the selection style."""
        text = self._lines_text[y]
        end = len(text) if end == -1 else min(end, len(text))
        if end <= start:
            return strip
        left, right = cell_len(text[:start]), cell_len(text[:end])
        selected = self.screen.get_component_rich_style("screen--selection")
        parts = strip.divide([left, right, strip.cell_length])
        middle = Strip([Segment(t, s + selected if s else selected, c) for t, s, c in parts[1]])
        return Strip.join([parts[0], middle, parts[2]])

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text: the source when the whole chunk is selected, else the shown lines."""
        if not self.text.strip():
            return None
        self._lines(self.size.width if self.size.width > 0 else self._width)
        if self._covers_all(selection):
            return self.text.strip("\n"), "\n\n"
        return selection.extract("\n".join(self._lines_text)), "\n"

    def _covers_all(self, selection: Selection) -> bool:
        start, end = selection
        starts_at_top = start is None or (start.y, start.x) <= (0, 0)
        if end is None:
            return starts_at_top
        last = len(self._lines_text) - 1
        while last > 0 and not self._lines_text[last]:
            last -= 1  # trailing blank lines (block margins) need not be reached
        return starts_at_top and (end.y > last or (end.y == last and end.x >= len(self._lines_text[last])))

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()


class AssistantMarkdown(VerticalGroup):
    """One assistant text segment.

    Streamed text is split (`ChunkSplitter`) into finished chunks, each a
    `MarkdownChunk` rendered once (code highlighted), and a live tail
    re-rendered at most once per frame with plain code blocks, so the cost of
    an update does not grow with the message and the widget count stays small
    (one widget per ~1.5 KB). Replaced by the final text if that differs from
    what streamed; the tail is highlighted once the text is complete.
    """

    def __init__(self, text: str = "") -> None:
        super().__init__(classes="assistant-text")
        self.source = ""
        self.feed: MarkdownFeed | None = None
        self._splitter = ChunkSplitter()
        self._tail = MarkdownChunk("", classes="md-chunk md-tail", plain_code=True)
        self._initial = text

    def compose(self):  # type: ignore[no-untyped-def]
        yield self._tail

    async def on_mount(self) -> None:
        if self._initial:
            text, self._initial = self._initial, ""
            await self.append(text)
            self._seal()

    def _seal(self) -> None:
        """The text is complete: render the tail like a finished chunk (code highlighted)."""
        if self._tail.plain_code:
            self._tail.set_text(self._tail.text, plain_code=False)

    def start_stream(self) -> MarkdownFeed:
        self.feed = MarkdownFeed(self)
        return self.feed

    async def append(self, text: str) -> None:
        """Add text: mount newly finished chunks, re-render the tail."""
        self.source += text
        chunks = self._splitter.feed(text)
        if chunks:
            await self.mount_all([MarkdownChunk(c) for c in chunks], before=self._tail)
        tail = self._splitter.tail
        self._tail.set_text(tail)
        self._tail.display = bool(tail.strip())

    async def update(self, text: str) -> None:
        """Replace the whole text."""
        await self.remove_children([c for c in self.children if c is not self._tail])
        self.source = ""
        self._splitter = ChunkSplitter()
        await self.append(text)

    async def finish(self, final: str | None) -> None:
        """Close the stream; when the final text differs from what streamed, show the final text."""
        if self.feed is not None:
            await self.feed.close()
            self.feed = None
        if final is not None and final.strip() != self.source.strip():
            await self.update(final)
        self._seal()


class ThinkingBlock(Collapsible):
    """Model thinking: dimmed, collapsed unless Ctrl+O has opened the panels (as Claude Code
    hides it until Ctrl+O)."""

    def __init__(self, text: str = "", *, collapsed: bool = True) -> None:
        self.body = Static(Text(text, style="dim italic"), classes="thinking-body")
        super().__init__(self.body, title="thinking", collapsed=collapsed, classes="thinking")
        self.text = text

    def append(self, delta: str) -> None:
        self.text += delta
        self.body.update(Text(self.text, style="dim italic"))

    def set_text(self, text: str) -> None:
        self.text = text
        self.body.update(Text(text, style="dim italic"))


class NoteLine(Static):
    """A dim one-line note (hook errors, skills, run footers, command output)."""

    def __init__(self, text: str | Text, *, classes: str = "note") -> None:
        super().__init__(text if isinstance(text, Text) else Text(text), classes=classes, markup=False)


class CommandOutput(TextualMarkdown):
    """Output of a slash command, as Markdown."""

    DEFAULT_CSS = "CommandOutput { margin: 0 0 0 2; background: transparent; }"


class Divider(Static):
    """A horizontal rule with a label (compaction)."""

    def __init__(self, label: str) -> None:
        super().__init__(Text(f"── {label} ──", style="dim"), classes="divider")


class ErrorBlock(Static):
    """An error, shown as a red bordered block."""

    def __init__(self, title: str, message: str) -> None:
        body = Text(f"{title}\n", style="bold")
        body.append(message)
        super().__init__(body, classes="error-block", markup=False)
