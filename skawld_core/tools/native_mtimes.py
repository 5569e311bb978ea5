"""Files `rg --files` lists, with their mtimes, found by native programs in one pipeline.

`rg --files` walks (on all cores but one) and never stats; `find -files0-from -
-printf` (GNU findutils 4.9+) stats each path rg prints as it arrives, on the
core left. Both run at once, in C and Rust, so a cold listing with mtimes costs
about what rg's walk costs, instead of one Python `os.stat` per file (a few
microseconds each, which at 100,000 files is several times rg's whole walk).
find writes its records into a file, read once at the end. Where `find` cannot
read a path list, `available()` is False and callers stat in Python.

Who wants only the newest files (Glob) asks `newest_with_mtimes`: each record
starts with its mtime right-aligned in a fixed-width field, so comparing the
records as bytes compares their times, and only the newest ones are decoded.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import os
import re
import shutil
import subprocess
import tempfile
from functools import cache
from typing import IO

from .ripgrep import BASE_FLAGS, RipgrepError, find_rg

__all__ = ["available", "list_with_mtimes", "newest_with_mtimes"]

# A record is the mtime right-aligned in a fixed-width field, a space and the path, so
# records sort as bytes in time order (for times after 1970 that fit the field).
_WIDTH = 24
_FIND_ARGS = ("-files0-from", "-", "-maxdepth", "0", "-printf", f"%{_WIDTH}T@ %p\\0")


@cache
def available() -> bool:
    """True when rg is on PATH and `find` reads a NUL-separated path list."""
    find = shutil.which("find")
    if find is None or find_rg() is None:
        return False
    try:
        done = subprocess.run(
            [find, *_FIND_ARGS],
            input=b"/\0",
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and re.fullmatch(rb" +\d+\.\d{10} /\0", done.stdout) is not None


async def list_with_mtimes(rg_args: list[str], root: str) -> list[tuple[str, int]]:
    """(path as rg prints it, mtime in ns) of each file `rg --files --null
    <rg_args>` lists, run in `root` (with no path in `rg_args`, paths are
    relative to it). A file gone before it was stat-ed is left out.
    Raises `RipgrepError` when rg fails."""
    return await asyncio.to_thread(_parse, await _list(rg_args, root))


async def newest_with_mtimes(rg_args: list[str], root: str, limit: int) -> tuple[list[tuple[str, int]], int]:
    """What `list_with_mtimes` lists, cut to its newest `limit` files and every
    other file as new as the last of them (in no order), and how many files it
    lists in all. Only those paths are decoded and their mtimes parsed."""
    return await asyncio.to_thread(_newest_records, await _list(rg_args, root), limit)


async def _list(rg_args: list[str], root: str) -> bytes:
    """find's records of the files rg lists."""
    rg = find_rg()
    find = shutil.which("find")
    if rg is None or find is None:
        raise RipgrepError("rg or find not found")
    read_end, write_end = os.pipe()
    # find writes a few KB at a time: into a file, not a pipe the event loop wakes up for each time
    with tempfile.TemporaryFile() as rg_errors, _records_file() as records:
        try:
            lister = await asyncio.create_subprocess_exec(
                rg, *BASE_FLAGS, f"--threads={_walk_threads()}", "--files", "--null", *rg_args,
                cwd=root, stdin=subprocess.DEVNULL, stdout=write_end, stderr=rg_errors,
            )  # fmt: skip
            try:
                stater = await asyncio.create_subprocess_exec(
                    find, *_FIND_ARGS, cwd=root, stdin=read_end, stdout=records, stderr=subprocess.DEVNULL
                )
            except BaseException:
                _kill(lister)
                await lister.wait()
                raise
        finally:
            os.close(read_end)
            os.close(write_end)
        try:
            await stater.wait()
            code = await lister.wait()
        except BaseException:  # cancelled: no program outlives the call
            _kill(lister)
            _kill(stater)
            raise
        if code >= 2:
            rg_errors.seek(0)
            message = rg_errors.read().decode("utf-8", errors="replace").strip()
            raise RipgrepError(message or f"rg exited with {code}")
        records.seek(0)
        return records.read()


def _records_file() -> IO[bytes]:
    """Where find writes: memory (a memfd) where there is one, so a full disk
    cannot cut the listing short; else a temporary file."""
    if hasattr(os, "memfd_create"):
        return open(os.memfd_create("skawld-find-records", os.MFD_CLOEXEC), "w+b")
    return tempfile.TemporaryFile()


@cache
def _walk_threads() -> int:
    """rg's threads: one fewer than the cores this process may use, leaving one
    for find (on 2 cores, rg on one thread also takes less CPU time in all)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, cpus - 1)


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def _newest_records(out: bytes, limit: int) -> tuple[list[tuple[str, int]], int]:
    """`newest_with_mtimes` on find's output: the records are compared as bytes
    (in C), and only the head is parsed."""
    records = out.split(b"\0")
    records.pop()  # after the last NUL
    total = len(records)
    head = records
    if total > limit:
        edge = heapq.nlargest(limit, records)[-1][:_WIDTH]
        head = [r for r in records if r >= edge]
    # A time before 1970, or one too wide for its field (which then starts the
    # record, so it is in the head), is out of bytes order: parse everything.
    if any(r[0] != 32 or b"-" in r[:_WIDTH] for r in head):  # 32: a space
        return _parse(out), total
    return _parse_records([r.decode("utf-8", errors="surrogateescape") for r in head]), total


def _parse(out: bytes) -> list[tuple[str, int]]:
    records = out.decode("utf-8", errors="surrogateescape").split("\0")
    records.pop()  # after the last NUL
    return _parse_records(records)


def _parse_records(records: list[str]) -> list[tuple[str, int]]:
    """(path, mtime in ns) of find's records, the common ones (a time after
    1970 that fits its field) parsed in one comprehension."""
    stamps = [r[:_WIDTH] for r in records]
    joined = "".join(stamps)
    if "-" in joined or joined[::_WIDTH].strip():
        return [_record(r) for r in records]
    return [(r[_WIDTH + 1 :], int(s.replace(".", "")) // 10) for r, s in zip(records, stamps, strict=True)]


def _record(record: str) -> tuple[str, int]:
    """One record, whatever its time: whole seconds (floored, so -1.5 s prints as
    -2.5) and a non-negative fraction of exactly ten decimals (tenths of ns)."""
    stamp, _, path = record.lstrip(" ").partition(" ")
    sec, _, frac = stamp.partition(".")
    return path, int(sec) * 1_000_000_000 + int(frac.ljust(10, "0")[:10]) // 10
