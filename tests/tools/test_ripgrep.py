"""The rg runner: content, no matches, errors, the 10 MiB cap, cancellation."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from skawld_core.tools import GrepTool
from skawld_core.tools.ripgrep import RipgrepError, run_rg

from .conftest import call, make_ctx, needs_rg, text_of

pytestmark = needs_rg


async def test_finds_content_and_no_match(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("needle\n")
    out = await run_rg(["-l", "needle", str(tmp_path)], tmp_path)
    assert out.returncode == 0 and out.stdout.decode().strip() == f"{tmp_path}/a.txt"
    out = await run_rg(["-l", "absent", str(tmp_path)], tmp_path)
    assert out.returncode == 1 and out.stdout == b""


async def test_bad_pattern_raises(tmp_path: Path) -> None:
    with pytest.raises(RipgrepError, match="regex parse error"):
        await run_rg(["-e", "(", str(tmp_path)], tmp_path)


async def test_output_over_10_mib_is_an_error(tmp_path: Path) -> None:
    line = "x" * 99 + "\n"
    (tmp_path / "big.txt").write_text(line * 120_000)
    r = await call(GrepTool(use_rg=True), make_ctx(tmp_path), pattern="x", output_mode="content")
    assert r.is_error and "10 MiB" in text_of(r)


async def test_cancel_before_spawn(tmp_path: Path) -> None:
    task = asyncio.create_task(run_rg(["--files", str(tmp_path)], tmp_path))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_cancel_mid_run_kills_rg(tmp_path: Path) -> None:
    # rg reading from a FIFO blocks until cancelled; the process must not outlive the call.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    task = asyncio.create_task(run_rg(["x", str(fifo)], tmp_path))
    done, _ = await asyncio.wait({task}, timeout=0.3)
    assert not done
    assert _processes_mentioning(str(fifo))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _processes_mentioning(str(fifo)) == []


def _processes_mentioning(text: str) -> list[int]:
    """Live (non-zombie) processes whose command line contains `text`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmdline and state != "Z":
            found.append(int(entry.name))
    return found
