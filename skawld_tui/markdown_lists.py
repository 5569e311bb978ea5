"""Ordered list items as Claude Code draws them: `1. Fix` (rich draws `1 Fix`).

Shared by the app's transcript (`app/widgets/blocks.py`) and the plain mode.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import ListItem, Markdown, MarkdownElement
from rich.segment import Segment

__all__ = ["NumberedListItem", "PlainMarkdown"]


class NumberedListItem(ListItem):
    """A list item whose number keeps its period."""

    def render_number(self, console: Console, options: ConsoleOptions, number: int, last_number: int) -> RenderResult:
        width = len(str(last_number)) + 3  # a space, the digits, the period, a space
        lines = console.render_lines(self.elements, options.update(width=options.max_width - width), style=self.style)
        style = console.get_style("markdown.item.number", default="none")
        numeral = Segment(f"{number}.".rjust(width - 1) + " ", style)
        padding = Segment(" " * width, style)
        for index, line in enumerate(lines):
            yield numeral if index == 0 else padding
            yield from line
            yield Segment("\n")


class PlainMarkdown(Markdown):
    """rich's Markdown with numbered items that keep their period (the plain mode)."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {**Markdown.elements, "list_item_open": NumberedListItem}
