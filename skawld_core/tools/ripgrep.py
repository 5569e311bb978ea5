"""Locating and running the `rg` binary."""

from __future__ import annotations

import asyncio
import contextlib
import os
import selectors
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
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


@dataclass
class _Run:
    """One rg process driven from a worker thread; `cancel()` kills it from the loop."""

    argv: list[str]
    cwd: Path
    on_stdout: Callable[[bytes], None] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    proc: subprocess.Popen[bytes] | None = None
    cancelled: bool = False

    def cancel(self) -> None:
        with self.lock:
            self.cancelled = True
            if self.proc is not None:
                with contextlib.suppress(ProcessLookupError):
                    self.proc.kill()

    def run(self) -> RgOutput:
        """Spawn and collect both pipes (a blocking read loop: one wake-up for the
        event loop instead of one per pipe chunk)."""
        with self.lock:
            if self.cancelled:
                raise RipgrepError("cancelled")
            proc = self.proc = subprocess.Popen(
                self.argv, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        assert proc.stdout is not None and proc.stderr is not None
        out: list[bytes] = []
        err: list[bytes] = []
        size = 0
        try:
            with selectors.DefaultSelector() as sel:
                sel.register(proc.stdout, selectors.EVENT_READ, out)
                sel.register(proc.stderr, selectors.EVENT_READ, err)
                while sel.get_map():
                    for key, _ in sel.select():
                        chunk = os.read(key.fd, 1 << 20)
                        if not chunk:
                            sel.unregister(key.fileobj)
                            continue
                        if key.data is out:
                            size += len(chunk)
                            if size > MAX_RG_OUTPUT:
                                raise RipgrepError("output exceeded 10 MiB; narrow the search")
                            if self.on_stdout is not None:
                                self.on_stdout(chunk)
                                continue
                        key.data.append(chunk)
            returncode = proc.wait()
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        finally:
            proc.stdout.close()
            proc.stderr.close()
        return RgOutput(returncode, b"".join(out), b"".join(err).decode("utf-8", errors="replace"))


async def _run_once(rg: str, args: list[str], cwd: Path, on_stdout: Callable[[bytes], None] | None = None) -> RgOutput:
    job = _Run([rg, *args], cwd, on_stdout)
    worker = asyncio.ensure_future(asyncio.to_thread(job.run))
    try:
        return await asyncio.shield(worker)
    except asyncio.CancelledError:
        job.cancel()
        with contextlib.suppress(BaseException):
            await worker
        raise


async def run_rg(args: list[str], cwd: Path, on_stdout: Callable[[bytes], None] | None = None) -> RgOutput:
    """Run rg with `BASE_FLAGS` + `args`. Exit 1 means no matches; exit 2 with a
    message raises `RipgrepError`; EAGAIN is retried once with `-j 1`.

    With `on_stdout`, stdout chunks are handed to it (in the reading thread, as
    they arrive) instead of being collected, so work can overlap rg's search.
    """
    rg = find_rg()
    if rg is None:
        raise RipgrepError("rg not found")
    full = [*BASE_FLAGS, *args]
    out = await _run_once(rg, full, cwd, on_stdout)
    if out.returncode == 2 and ("os error 11" in out.stderr or "temporarily unavailable" in out.stderr):
        out = await _run_once(rg, ["-j", "1", *full], cwd, on_stdout)
    if out.returncode >= 2 and out.stderr.strip():
        raise RipgrepError(out.stderr.strip())
    return out
