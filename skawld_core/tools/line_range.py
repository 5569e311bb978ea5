"""Read a range of lines from a file in bounded memory, cutting long lines while reading.

The file is read in chunks of `CHUNK_BYTES`; a line that fits in a chunk is decoded whole, a
line that spans chunks goes through an incremental UTF-8 decoder that keeps only its first
`max_chars` characters and counts the rest. So a 1 GB file with no newline costs one chunk of
memory, not the whole line, and the text is the same as decoding each line whole
(`errors="replace"`, a trailing `\\r` dropped) and cutting it after.

Counting what is cut stops `LINE_SCAN_BYTES` into a line: a longer line ends the range with a
marker saying how much was cut at least and that the rest was not read, so a page costs the
same whatever the file's size.
"""

from __future__ import annotations

import codecs
from typing import BinaryIO

from .text_format import truncation_marker, unmeasured_marker

CHUNK_BYTES = 256 * 1024
LINE_SCAN_BYTES = 8 * 1024 * 1024  # of one line, read to count what is cut
_NEWLINE = 0x0A


def decode_line(raw: bytes) -> str:
    """One line's bytes (without its newline) as text, without a trailing carriage return."""
    text = raw.decode("utf-8", errors="replace")
    return text[:-1] if text.endswith("\r") else text


def clip_line(line: str, max_chars: int) -> str:
    """`line` unchanged when within `max_chars`, else its head and the truncation marker."""
    if len(line) <= max_chars:
        return line
    return line[:max_chars] + truncation_marker(len(line) - max_chars)


class _LongLine:
    """A line spanning chunks: its first `max_chars` characters and a count of all of them."""

    def __init__(self, max_chars: int) -> None:
        self._max = max_chars
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._kept: list[str] = []
        self._kept_chars = 0
        self._chars = 0
        self._last = ""
        self.bytes = 0

    def feed(self, raw: bytes) -> None:
        if not raw:
            return
        self.bytes += len(raw)
        if self._kept_chars >= self._max and not self._decoder.getstate()[0] and raw.isascii():
            self._chars += len(raw)  # ASCII past the head: count without decoding
            self._last = chr(raw[-1])
            return
        self._take(self._decoder.decode(raw))

    def _take(self, text: str) -> None:
        if not text:
            return
        self._chars += len(text)
        self._last = text[-1]
        room = self._max - self._kept_chars
        if room > 0:
            head = text[:room]
            self._kept.append(head)
            self._kept_chars += len(head)

    def finish(self) -> str:
        self._take(self._decoder.decode(b"", final=True))
        chars = self._chars - (1 if self._last == "\r" else 0)
        kept = "".join(self._kept)
        if chars <= self._max:
            return kept[:chars]
        return kept + truncation_marker(chars - self._max)

    def finish_unread(self) -> str:
        """The head and a marker for a line whose end was not read."""
        self._take(self._decoder.decode(b"", final=True))
        return "".join(self._kept) + unmeasured_marker(max(self._chars - self._max, 0))


def read_line_range(
    fh: BinaryIO,
    offset: int,
    limit: int,
    max_chars: int,
    chunk_bytes: int = CHUNK_BYTES,
    line_scan_bytes: int = LINE_SCAN_BYTES,
) -> tuple[list[str], int]:
    """Lines `offset..offset+limit-1` (1-based) of `fh`, each cut to `max_chars` characters.

    Returns the lines and the number of lines read through: the file's total line count when
    the range reaches past the end, else the number of the last line returned. A line with
    no end within `line_scan_bytes` is the range's last (see `unmeasured_marker`).
    """
    picked: list[str] = []
    done = 0  # lines finished so far
    started = False  # the current line has bytes
    long_line: _LongLine | None = None
    while chunk := fh.read(chunk_bytes):
        pos = 0
        size = len(chunk)
        while pos < size:
            if done + 1 < offset:
                pos, done = _skip_lines(chunk, pos, offset - 1 - done, done)
                started = pos == size and chunk[-1] != _NEWLINE
                continue
            nl = chunk.find(b"\n", pos)
            if nl < 0:
                long_line = long_line or _LongLine(max_chars)
                long_line.feed(chunk[pos:])
                started = True
                if long_line.bytes > line_scan_bytes:
                    picked.append(long_line.finish_unread())
                    return picked, done + 1
                break
            if long_line is None:
                picked.append(clip_line(decode_line(chunk[pos:nl]), max_chars))
            else:
                long_line.feed(chunk[pos:nl])
                picked.append(long_line.finish())
                long_line = None
            done += 1
            started = False
            pos = nl + 1
            if len(picked) == limit:
                return picked, done
    if started:
        done += 1
        if long_line is not None:
            picked.append(long_line.finish())
    return picked, done


def _skip_lines(chunk: bytes, pos: int, wanted: int, done: int) -> tuple[int, int]:
    """Skip up to `wanted` whole lines of `chunk` from `pos`: the new position and line count."""
    newlines = chunk.count(b"\n", pos)
    if newlines < wanted:
        return len(chunk), done + newlines
    for _ in range(wanted):
        pos = chunk.index(b"\n", pos) + 1
    return pos, done + wanted
