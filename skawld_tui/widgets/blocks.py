"""Transcript blocks: user prompts, streamed assistant Markdown, thinking, notes, errors."""

from __future__ import annotations

import asyncio

from rich.text import Text
from textual.widgets import Collapsible, Markdown, Static


class UserMessage(Static):
    """A prompt the user sent. `history_index` is where it sits in the session history."""

    def __init__(self, text: str, *, history_index: int | None = None, steer: bool = False) -> None:
        label = Text("› " if not steer else "↳ ", style="bold")
        label.append(text)
        super().__init__(label, classes="user-message" + (" -steer" if steer else ""))
        self.text = text
        self.history_index = history_index


class MarkdownFeed:
    """Coalesces streamed text into serialised `Markdown.append` calls.

    `write()` is synchronous and cheap; one pump task appends whatever piled up
    since the last append (at most one append per frame), so the producer never
    waits on rendering and appends never overlap.
    """

    FRAME = 1 / 30

    def __init__(self, md: Markdown) -> None:
        self.md = md
        self.parts: list[str] = []
        self.text = ""
        self.appends = 0
        self._wake = asyncio.Event()
        self._closing = False
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
                await self.md.append(chunk)
                if not self._closing:
                    await asyncio.sleep(self.FRAME)
            if self._closing and not self.parts:
                return

    async def close(self) -> None:
        """Flush what is left and stop the pump."""
        self._closing = True
        self._wake.set()
        try:
            await self._task
        except Exception:  # a widget removed mid-append: nothing left to flush
            pass

    def cancel(self) -> None:
        self._task.cancel()


class AssistantMarkdown(Markdown):
    """One assistant text segment (streamed, then replaced by the final text)."""

    DEFAULT_CSS = "AssistantMarkdown { margin: 0 0 0 2; padding: 0; background: transparent; }"

    def __init__(self, text: str = "") -> None:
        super().__init__(text, classes="assistant-text")
        self.feed: MarkdownFeed | None = None

    def start_stream(self) -> MarkdownFeed:
        self.feed = MarkdownFeed(self)
        return self.feed

    async def finish(self, final: str | None) -> None:
        """Close the stream; when the final text differs from what streamed, show the final text."""
        if self.feed is not None:
            await self.feed.close()
            streamed = self.feed.text
            self.feed = None
        else:
            streamed = self.source
        if final is not None and final.strip() != streamed.strip():
            await self.update(final)


class ThinkingBlock(Collapsible):
    """Model thinking: dimmed and collapsed."""

    def __init__(self, text: str = "") -> None:
        self.body = Static(Text(text, style="dim italic"), classes="thinking-body")
        super().__init__(self.body, title="thinking", collapsed=True, classes="thinking")
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


class CommandOutput(Markdown):
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
