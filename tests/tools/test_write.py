"""Write: validation, summary, create/overwrite rules, atomicity (reference §3 write.test)."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest

from skawld_core.errors import ToolInputError
from skawld_core.tools import ReadTool, ToolContext, WriteTool

from .conftest import call, text_of

write = WriteTool()
read = ReadTool()


def test_validation_and_flags() -> None:
    with pytest.raises(ToolInputError):
        write.validate({"file_path": "a"})
    with pytest.raises(ToolInputError):
        write.validate({"file_path": "a", "content": "x", "extra": 1})
    assert write.scope == "write" and not write.parallel_safe


def test_summary() -> None:
    assert write.summarize(write.validate({"file_path": "a.txt", "content": "héllo"})) == "Write 6B to a.txt"


async def test_create_marks_read(tmp_path: Path, ctx: ToolContext) -> None:
    r = await call(write, ctx, file_path="new.txt", content="hello\n")
    assert not r.is_error
    assert text_of(r) == "wrote 6 bytes to new.txt"
    assert (tmp_path / "new.txt").read_text() == "hello\n"
    assert ctx.file_read_tracker.has_read(tmp_path / "new.txt")


async def test_creates_parent_dirs(tmp_path: Path, ctx: ToolContext) -> None:
    r = await call(write, ctx, file_path="a/b/c.txt", content="x")
    assert not r.is_error
    assert (tmp_path / "a/b/c.txt").read_text() == "x"


async def test_refuses_unread_existing_file(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "old.txt").write_text("keep")
    r = await call(write, ctx, file_path="old.txt", content="clobber")
    assert r.is_error
    assert "already exists and has not been Read in this session" in text_of(r)
    assert "Read the file first" in text_of(r)
    assert (tmp_path / "old.txt").read_text() == "keep"


async def test_overwrite_after_read_and_rewrite_after_write(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "f.txt").write_text("v1")
    await call(read, ctx, file_path="f.txt")
    assert not (await call(write, ctx, file_path="f.txt", content="v2")).is_error
    assert not (await call(write, ctx, file_path="f.txt", content="v3")).is_error
    assert (tmp_path / "f.txt").read_text() == "v3"


async def test_refuses_file_changed_since_read(tmp_path: Path, ctx: ToolContext) -> None:
    f = tmp_path / "f.txt"
    f.write_text("v1")
    await call(read, ctx, file_path="f.txt")
    f.write_text("changed by someone else")
    r = await call(write, ctx, file_path="f.txt", content="v2")
    assert r.is_error and "modified since it was last read" in text_of(r)
    assert f.read_text() == "changed by someone else"


async def test_refuses_directory(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "d").mkdir()
    r = await call(write, ctx, file_path="d", content="x")
    assert r.is_error and "not a regular file" in text_of(r)


async def test_mode_kept_on_overwrite(tmp_path: Path, ctx: ToolContext) -> None:
    f = tmp_path / "run.sh"
    f.write_text("echo 1\n")
    f.chmod(0o755)
    await call(read, ctx, file_path="run.sh")
    await call(write, ctx, file_path="run.sh", content="echo 2\n")
    assert stat.S_IMODE(f.stat().st_mode) == 0o755


async def test_read_only_file(tmp_path: Path, ctx: ToolContext) -> None:
    f = tmp_path / "ro.txt"
    f.write_text("ro")
    f.chmod(0o444)
    await call(read, ctx, file_path="ro.txt")
    r = await call(write, ctx, file_path="ro.txt", content="rw")
    if os.geteuid() == 0:  # root may write anything; the mode bits must survive
        assert not r.is_error and f.read_text() == "rw"
        assert stat.S_IMODE(f.stat().st_mode) == 0o444
    else:
        assert r.is_error and "Permission denied" in text_of(r)
        assert f.read_text() == "ro"


async def test_write_through_symlink_keeps_link(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "target.txt").write_text("a")
    (tmp_path / "link.txt").symlink_to("target.txt")
    await call(read, ctx, file_path="target.txt")
    r = await call(write, ctx, file_path="link.txt", content="b")
    assert not r.is_error
    assert (tmp_path / "link.txt").is_symlink()
    assert (tmp_path / "target.txt").read_text() == "b"


async def test_concurrent_reader_never_sees_partial_file(tmp_path: Path, ctx: ToolContext) -> None:
    """A reader polling while big writes happen sees only complete old or new contents."""
    f = tmp_path / "big.txt"
    old, new = "a" * 4_000_000, "b" * 4_000_000
    f.write_text(old)
    await call(read, ctx, file_path="big.txt")
    seen: set[int] = set()
    stop = False

    def poll() -> None:
        while not stop:
            data = f.read_bytes()
            seen.add(len(data))
            assert data in (old.encode(), new.encode())

    poller = asyncio.create_task(asyncio.to_thread(poll))
    for content in (new, old, new):
        r = await call(write, ctx, file_path="big.txt", content=content)
        assert not r.is_error
    stop = True
    await poller
    assert seen == {4_000_000}
    assert [p.name for p in tmp_path.iterdir()] == ["big.txt"]


async def test_cancelled_write_leaves_complete_file(tmp_path: Path, ctx: ToolContext) -> None:
    f = tmp_path / "c.txt"
    f.write_text("old")
    await call(read, ctx, file_path="c.txt")
    task = asyncio.create_task(call(write, ctx, file_path="c.txt", content="n" * 20_000_000))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    data = f.read_text()
    assert data in ("old", "n" * 20_000_000)
