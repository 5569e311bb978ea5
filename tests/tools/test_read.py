"""Read: validation, numbering, offsets, caps, images, refusals (reference §3 read.test)."""

from __future__ import annotations

import base64
import os
import struct
import zlib
from pathlib import Path

import pytest

from skawld_core.errors import ToolInputError
from skawld_core.messages import ImageBlock
from skawld_core.tools import ReadTool, ToolContext

from .conftest import call, text_of

read = ReadTool()


def png_1x1() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0\0\0\0")) + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"file_path": ""},
        {"file_path": "a", "offset": 0},
        {"file_path": "a", "offset": 1.5},
        {"file_path": "a", "limit": -1},
    ],
)
def test_validation(raw: dict[str, object]) -> None:
    with pytest.raises(ToolInputError):
        read.validate(raw)


def test_schema_and_flags() -> None:
    schema = read.input_schema
    assert schema["required"] == ["file_path"]
    assert schema["additionalProperties"] is False
    assert read.scope == "read" and read.parallel_safe


def test_summary() -> None:
    assert read.summarize(read.validate({"file_path": "a.py"})) == "Read a.py"
    assert read.summarize(read.validate({"file_path": "a.py", "offset": 3, "limit": 2})) == "Read a.py (lines 3-4)"


async def test_numbered_lines_and_marked_read(tmp_path: Path, ctx: ToolContext) -> None:
    f = tmp_path / "f.txt"
    f.write_text("line one\nline two\n")
    r = await call(read, ctx, file_path=str(f))
    assert not r.is_error
    assert text_of(r) == "     1\tline one\n     2\tline two"
    assert ctx.file_read_tracker.has_read(f)


async def test_offset_and_limit(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "f.txt").write_text("a\nb\nc\nd\ne\n")
    r = await call(read, ctx, file_path="f.txt", offset=3, limit=2)
    assert text_of(r) == "     3\tc\n     4\td"
    (tmp_path / "ten.txt").write_text("".join(f"{i}\n" for i in range(1, 11)))
    r = await call(read, ctx, file_path="ten.txt", limit=3)
    assert text_of(r) == "     1\t1\n     2\t2\n     3\t3"  # no "more lines" notice


async def test_empty_file(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "e.txt").write_bytes(b"")
    r = await call(read, ctx, file_path="e.txt")
    assert text_of(r) == "<file is empty>" and not r.is_error
    assert ctx.file_read_tracker.has_read(tmp_path / "e.txt")


async def test_long_line_truncated_next_intact(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "l.txt").write_text("x" * 2100 + "\nnext\n")
    lines = text_of(await call(read, ctx, file_path="l.txt")).split("\n")
    assert lines[0] == "     1\t" + "x" * 2000 + "… (100 chars truncated)"
    assert lines[1] == "     2\tnext"


async def test_crlf_lines_shown_without_cr(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "c.txt").write_bytes(b"a\r\nb\r\n")
    assert text_of(await call(read, ctx, file_path="c.txt")) == "     1\ta\n     2\tb"


async def test_total_output_cap(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "big.txt").write_text(("y" * 1999 + "\n") * 2000)
    out = text_of(await call(read, ctx, file_path="big.txt"))
    assert len(out) < 400_100
    assert out.endswith("chars truncated)")


async def test_large_file_streaming_with_offset(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "huge.txt").write_text("".join(f"row {i}\n" for i in range(1, 300_001)))
    assert (tmp_path / "huge.txt").stat().st_size > 1024 * 1024
    out = text_of(await call(read, ctx, file_path="huge.txt", offset=299_999, limit=5))
    assert out == "299999\trow 299999\n300000\trow 300000"


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        ("missing", "File not found."),
        ("dir", "Path is a directory."),
        ("nul", "binary"),
        ("exe", "binary"),
        ("fifo", "Path is not a regular file."),
    ],
)
async def test_refusals(tmp_path: Path, ctx: ToolContext, setup: str, expected: str) -> None:
    name = {"missing": "nope.txt", "dir": "d", "nul": "n.txt", "exe": "tool.exe", "fifo": "pipe"}[setup]
    p = tmp_path / name
    if setup == "dir":
        p.mkdir()
    elif setup == "nul":
        p.write_bytes(b"abc\0def")
    elif setup == "exe":
        p.write_text("text but exe")
    elif setup == "fifo":
        os.mkfifo(p)
    r = await call(read, ctx, file_path=name)
    assert r.is_error
    assert text_of(r).startswith("Error: ")
    assert expected in text_of(r)
    assert not ctx.file_read_tracker.has_read(p)


async def test_device_paths(tmp_path: Path, ctx: ToolContext) -> None:
    r = await call(read, ctx, file_path="/dev/zero")
    assert r.is_error and text_of(r) == "Error: /dev/zero is a device path and cannot be read."
    (tmp_path / "z").symlink_to("/dev/zero")
    r = await call(read, ctx, file_path="z")
    assert r.is_error and "device path" in text_of(r)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file modes")
async def test_permission_denied(tmp_path: Path, ctx: ToolContext) -> None:
    p = tmp_path / "secret.txt"
    p.write_text("x")
    p.chmod(0)
    r = await call(read, ctx, file_path="secret.txt")
    assert r.is_error and "Permission denied" in text_of(r)


async def test_png_image_block(tmp_path: Path, ctx: ToolContext) -> None:
    data = png_1x1()
    (tmp_path / "dot.png").write_bytes(data)
    r = await call(read, ctx, file_path="dot.png")
    assert isinstance(r.content, list) and len(r.content) == 1
    block = r.content[0]
    assert isinstance(block, ImageBlock)
    assert block.source.type == "base64"
    assert block.source.media_type == "image/png"
    assert base64.b64decode(block.source.data) == data
    assert "image" in r.summary and f"({len(data)}B)" in r.summary
    assert ctx.file_read_tracker.has_read(tmp_path / "dot.png")


async def test_oversized_image(tmp_path: Path, ctx: ToolContext) -> None:
    with open(tmp_path / "big.jpg", "wb") as fh:
        fh.truncate(5 * 1024 * 1024 + 1)
    r = await call(read, ctx, file_path="big.jpg")
    assert r.is_error and "too large" in text_of(r)


async def test_two_byte_file_not_binary(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "hi").write_text("hi")
    assert text_of(await call(read, ctx, file_path="hi")) == "     1\thi"


async def test_nul_after_sniff_window_is_text(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "late.txt").write_bytes(b"a" * 9000 + b"\nok\0\n")
    r = await call(read, ctx, file_path="late.txt")
    assert not r.is_error


async def test_offset_beyond_end(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "h.txt").write_text("".join(f"{i}\n" for i in range(100)))
    r = await call(read, ctx, file_path="h.txt", offset=500)
    assert r.is_error
    assert text_of(r) == "Error: offset 500 is beyond end of file (100 lines total)."
    assert not ctx.file_read_tracker.has_read(tmp_path / "h.txt")


async def test_read_through_symlink_marks_target(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "t.txt").write_text("x\n")
    (tmp_path / "l.txt").symlink_to(tmp_path / "t.txt")
    await call(read, ctx, file_path="l.txt")
    assert ctx.file_read_tracker.has_read(tmp_path / "t.txt")


async def test_streaming_stops_after_limit(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "log.txt").write_text("".join(f"entry {i}\n" for i in range(1, 400_001)))
    out = text_of(await call(read, ctx, file_path="log.txt", limit=2))
    assert out == "     1\tentry 1\n     2\tentry 2"
    out = text_of(await call(read, ctx, file_path="log.txt", offset=400_000))
    assert out == "400000\tentry 400000"
    r = await call(read, ctx, file_path="log.txt", offset=400_001)
    assert r.is_error and "(400000 lines total)" in text_of(r)
