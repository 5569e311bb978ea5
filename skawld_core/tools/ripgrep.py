"""Locating and running the `rg` binary."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from dataclasses import dataclass
from functools import cache
from pathlib import Path

MAX_RG_OUTPUT = 10 * 1024 * 1024
# Flags every call uses so results do not depend on the user's rg config or global
# git excludes, and so .gitignore applies outside git repositories too.
BASE_FLAGS = ("--no-config", "--no-require-git", "--no-ignore-global", "--no-messages")


class RipgrepError(Exception):
    """rg failed (bad pattern, unknown type, oversized output...)."""


@dataclass(frozen=True)
class RgOutput:
    returncode: int
    stdout: bytes
    stderr: str


@cache
def find_rg() -> str | None:
    """The `rg` executable on PATH, located once and cached."""
    return shutil.which("rg")


def find_executable(name: str) -> str | None:
    """`shutil.which`, for symmetry with the reference helper."""
    return shutil.which(name)


async def _run_once(rg: str, args: list[str], cwd: Path) -> RgOutput:
    proc = await asyncio.create_subprocess_exec(
        rg,
        *args,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        err_task = asyncio.create_task(proc.stderr.read())
        chunks: list[bytes] = []
        size = 0
        while chunk := await proc.stdout.read(1 << 20):
            size += len(chunk)
            if size > MAX_RG_OUTPUT:
                raise RipgrepError("output exceeded 10 MiB; narrow the search")
            chunks.append(chunk)
        stderr = (await err_task).decode("utf-8", errors="replace")
        returncode = await proc.wait()
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(proc.wait())
        raise
    return RgOutput(returncode, b"".join(chunks), stderr)


async def run_rg(args: list[str], cwd: Path) -> RgOutput:
    """Run rg with `BASE_FLAGS` + `args`. Exit 1 (no matches) is not an error; exit 2
    raises `RipgrepError` unless some output was produced; EAGAIN is retried once with `-j 1`."""
    rg = find_rg()
    if rg is None:
        raise RipgrepError("rg not found")
    full = [*BASE_FLAGS, *args]
    out = await _run_once(rg, full, cwd)
    if out.returncode == 2 and ("os error 11" in out.stderr or "temporarily unavailable" in out.stderr):
        out = await _run_once(rg, ["-j", "1", *full], cwd)
    if out.returncode >= 2 and not out.stdout:
        message = out.stderr.strip() or f"rg exited with code {out.returncode}"
        raise RipgrepError(message)
    return out
