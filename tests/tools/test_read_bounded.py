"""Read cuts long lines while reading: same text as whole-line decoding, bounded memory."""

from __future__ import annotations

import io
import os
import random
import tracemalloc
from pathlib import Path

import pytest

from skawld_core.tools import ReadTool, ToolContext
from skawld_core.tools.line_range import CHUNK_BYTES, LINE_SCAN_BYTES, read_line_range
from skawld_core.tools.text_format import truncation_marker, unmeasured_marker

from .conftest import call, text_of

read = ReadTool()
ONE_GB = 1024**3


def whole_line_reference(data: bytes, offset: int, limit: int, max_chars: int) -> tuple[list[str], int]:
    """The former algorithm: split, decode each line whole, drop a trailing CR, cut after."""
    raws = data.split(b"\n")
    if raws and raws[-1] == b"":
        raws.pop()
    out: list[str] = []
    for raw in raws[offset - 1 : offset - 1 + limit]:
        text = raw.decode("utf-8", errors="replace")
        text = text[:-1] if text.endswith("\r") else text
        out.append(text if len(text) <= max_chars else text[:max_chars] + truncation_marker(len(text) - max_chars))
    last = offset - 1 + limit
    return out, len(raws) if last >= len(raws) else last


PIECES = [b"a", b"xyz", b"\n", b"\r", b"\r\n", "é".encode(), "€".encode(), "😀".encode(), b"\xff", b"\xe2\x82", b"\0"]


@pytest.mark.parametrize("seed", range(40))
def test_chunked_reading_matches_whole_line_decoding(seed: int) -> None:
    rng = random.Random(seed)
    data = b"".join(rng.choice(PIECES) * rng.choice([1, 1, 3, 40]) for _ in range(rng.randint(0, 120)))
    max_chars = rng.choice([1, 5, 17, 2000])
    offset = rng.randint(1, 12)
    limit = rng.randint(1, 12)
    chunk = rng.choice([1, 2, 3, 7, 64])
    got = read_line_range(io.BytesIO(data), offset, limit, max_chars, chunk_bytes=chunk)
    assert got == whole_line_reference(data, offset, limit, max_chars)


async def test_one_gb_line_read_in_bounded_memory(tmp_path: Path, ctx: ToolContext) -> None:
    # Sparse: 8 KiB of text (so it is not sniffed as binary), then a hole read back as NULs.
    path = tmp_path / "one-line.txt"
    with path.open("wb") as fh:
        fh.write(b"y" * 8192)
        fh.truncate(ONE_GB)
    tracemalloc.start()
    try:
        result = await call(read, ctx, file_path="one-line.txt")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        os.unlink(path)
    assert peak < 64 * 1024 * 1024, f"peak {peak} bytes"
    head, _, marker = text_of(result).partition("…")
    assert head == "     1\t" + "y" * 2000
    cut = int(marker.removeprefix(" (").split("+")[0])  # counted, then the rest left unread
    assert "…" + marker == unmeasured_marker(cut) and LINE_SCAN_BYTES - 2000 <= cut < LINE_SCAN_BYTES + CHUNK_BYTES


class _CountingReader(io.BytesIO):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.consumed = 0

    def read(self, size: int | None = -1) -> bytes:
        got = super().read(size)
        self.consumed += len(got)
        return got


@pytest.mark.parametrize("text", ["x", "é", "😀"])
def test_a_page_reads_a_bounded_part_of_a_line_of_any_text(text: str) -> None:
    data = (text * 600_000).encode()
    fh = _CountingReader(data + b"\nnext\n")
    lines, done = read_line_range(fh, 1, 5, 100, chunk_bytes=4096, line_scan_bytes=64 * 1024)
    assert fh.consumed <= 64 * 1024 + 4096 < len(data)
    assert done == 1 and len(lines) == 1 and lines[0].startswith(text * 100 + "… (")
    counted = int(lines[0][len(text) * 100 + 3 :].split("+")[0])
    assert lines[0] == text * 100 + unmeasured_marker(counted)
    assert counted == (fh.consumed // len(text.encode())) - 100  # every character read is counted
    # within the scan limit the count is exact, as before
    assert read_line_range(io.BytesIO(data + b"\nnext\n"), 1, 5, 100, chunk_bytes=4096, line_scan_bytes=len(data)) == (
        [text * 100 + truncation_marker(600_000 - 100), "next"],
        2,
    )


async def test_long_line_then_more_lines_at_offset(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "mixed.txt").write_bytes(b"z" * 3_000_000 + b"\r\nsecond\nthird")
    out = text_of(await call(read, ctx, file_path="mixed.txt", offset=2))
    assert out == "     2\tsecond\n     3\tthird"
    first = text_of(await call(read, ctx, file_path="mixed.txt", limit=1))
    assert first == "     1\t" + "z" * 2000 + truncation_marker(3_000_000 - 2000)
