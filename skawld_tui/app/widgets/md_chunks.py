"""Split streamed Markdown into finished chunks and a live tail (pure logic).

A chunk ends at a blank line outside a fenced code block, once the pending
text is at least `target` characters, so each chunk is a run of complete
top-level blocks that can be rendered once and never again. A fenced block
longer than `max_fence` is cut at a line boundary and the fence is closed
and reopened, so no chunk (and no tail) grows without bound.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


class ChunkSplitter:
    """Feed text; take completed chunks; `tail` is the unfinished rest."""

    def __init__(self, target: int = 800, max_fence: int = 2500) -> None:
        self.target = target
        self.max_fence = max_fence
        self.tail = ""
        self._scanned = 0  # tail[:_scanned] is whole lines already classified
        self._fence: str | None = None  # the open fence marker, e.g. "```"
        self._fence_open_line = ""  # the line that opened it (to reopen after a cut)
        self._safe = 0  # end of the last blank line outside a fence, in tail

    def feed(self, text: str) -> list[str]:
        """Add streamed text; returns the chunks completed by it."""
        self.tail += text
        out: list[str] = []
        while True:
            newline = self.tail.find("\n", self._scanned)
            if newline < 0:
                break
            line = self.tail[self._scanned : newline]
            self._scanned = newline + 1
            self._classify(line)
            if self._fence is None and self._safe >= self.target:
                out.append(self._cut(self._safe))
            elif self._fence is not None and self._scanned >= self.max_fence:
                out.append(self._cut_fence())
        return out

    def _classify(self, line: str) -> None:
        m = _FENCE.match(line)
        if self._fence is None:
            if m:
                self._fence, self._fence_open_line = m.group(1), line
            elif not line.strip():
                self._safe = self._scanned
        elif (
            m
            and m.group(1).startswith(self._fence[0])
            and len(m.group(1)) >= len(self._fence)
            and not m.group(2).strip()
        ):
            self._fence = None

    def _cut(self, at: int) -> str:
        chunk, self.tail = self.tail[:at], self.tail[at:]
        self._scanned -= at
        self._safe = 0
        return chunk

    def _cut_fence(self) -> str:
        assert self._fence is not None
        chunk = self.tail[: self._scanned] + self._fence + "\n"
        reopen = self._fence_open_line + "\n"
        self.tail = reopen + self.tail[self._scanned :]
        self._scanned = len(reopen)
        self._safe = 0
        return chunk
