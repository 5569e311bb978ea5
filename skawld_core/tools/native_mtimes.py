"""Files `rg --files` lists, with their mtimes, found by native programs in one pipeline.

`rg --files` walks in parallel and never stats; `find -files0-from - -printf`
(GNU findutils 4.9+) stats each path rg prints as it arrives. Both run at once,
in C and Rust, so a cold listing with mtimes costs about what rg's walk costs,
instead of one Python `os.stat` per file (a few microseconds each, which at
100,000 files is several times rg's whole walk). Where `find` cannot read a
path list, `available()` is False and callers stat in Python.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from functools import cache

from .ripgrep import BASE_FLAGS, RipgrepError, find_rg

__all__ = ["available", "list_with_mtimes"]

_FIND_ARGS = ("-files0-from", "-", "-maxdepth", "0", "-printf", "%T@\\0%p\\0")


@cache
def available() -> bool:
    """True when rg is on PATH and `find` reads a NUL-separated path list."""
    find = shutil.which("find")
    if find is None or find_rg() is None:
        return False
    try:
        done = subprocess.run(
            [find, "-files0-from", "-", "-maxdepth", "0", "-printf", "%T@\\0"],
            input=b"/\0",
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and re.fullmatch(rb"\d+\.\d{10}\0", done.stdout) is not None


async def list_with_mtimes(rg_args: list[str], root: str) -> list[tuple[str, int]]:
    """(path as rg prints it, mtime in ns) of each file `rg --files --null
    <rg_args>` lists, run in `root` (with no path in `rg_args`, paths are
    relative to it). A file gone before it was stat-ed is left out.
    Raises `RipgrepError` when rg fails."""
    rg = find_rg()
    find = shutil.which("find")
    if rg is None or find is None:
        raise RipgrepError("rg or find not found")
    read_end, write_end = os.pipe()
    with tempfile.TemporaryFile() as rg_errors:
        try:
            lister = await asyncio.create_subprocess_exec(
                rg, *BASE_FLAGS, "--files", "--null", *rg_args,
                cwd=root, stdin=subprocess.DEVNULL, stdout=write_end, stderr=rg_errors,
            )  # fmt: skip
            try:
                stater = await asyncio.create_subprocess_exec(
                    find, *_FIND_ARGS, cwd=root, stdin=read_end, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
                )
            except BaseException:
                _kill(lister)
                await lister.wait()
                raise
        finally:
            os.close(read_end)
            os.close(write_end)
        try:
            out, _ = await stater.communicate()
            code = await lister.wait()
        except BaseException:  # cancelled: no program outlives the call
            _kill(lister)
            _kill(stater)
            raise
        if code >= 2:
            rg_errors.seek(0)
            message = rg_errors.read().decode("utf-8", errors="replace").strip()
            raise RipgrepError(message or f"rg exited with {code}")
    return await asyncio.to_thread(_parse, out)


def _kill(proc: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.kill()


def _parse(out: bytes) -> list[tuple[str, int]]:
    """`%T@\\0%p\\0` records, split in C: whole seconds (floored, so -1.5 s prints
    as -2.5) and a non-negative fraction of exactly ten decimals (tenths of ns)."""
    fields = out.decode("utf-8", errors="surrogateescape").split("\0")
    fields.pop()  # after the last NUL
    stamps = fields[0::2]
    mtimes = [int(s.replace(".", "")) // 10 if s[0] != "-" else _negative(s) for s in stamps]
    return list(zip(fields[1::2], mtimes, strict=True))


def _negative(stamp: str) -> int:
    sec, _, frac = stamp.partition(".")
    return int(sec) * 1_000_000_000 + int(frac.ljust(10, "0")[:10]) // 10
