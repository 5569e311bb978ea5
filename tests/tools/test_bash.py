"""Bash with real subprocesses: output shape, exit codes, caps, timeouts, cancellation."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from skawld_core.errors import ToolInputError
from skawld_core.tools import BashTool, ToolContext

from .conftest import call, text_of

bash = BashTool()


def alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (PID 1 here may not reap orphans)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def wait_dead(pid: int, within: float = 5.0) -> bool:
    """Poll /proc (a process we do not parent cannot be awaited)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.02)
    return not alive(pid)


async def wait_for_file(path: Path, within: float = 10.0) -> str:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        await asyncio.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


@pytest.mark.parametrize("bad", [99, 1_800_001, float("inf"), float("nan"), "abc"])
def test_timeout_validation(bad: object) -> None:
    with pytest.raises(ToolInputError):
        bash.validate({"command": "true", "timeout_ms": bad})


def test_validation_coercion_and_flags() -> None:
    assert bash.validate({"command": "true", "timeout_ms": "5000"}).timeout_ms == 5000
    assert bash.validate({"command": "true"}).timeout_ms == 120_000
    assert bash.validate({"command": "true", "timeout_ms": 100}).timeout_ms == 100
    assert bash.scope == "exec" and not bash.parallel_safe


def test_summary() -> None:
    assert bash.summarize(bash.validate({"command": "ls", "description": "List files"})) == "List files"
    assert bash.summarize(bash.validate({"command": "ls -la"})) == "Bash: ls -la"
    long = "echo " + "x" * 100
    assert bash.summarize(bash.validate({"command": long})) == f"Bash: {long[:60]}…"


async def test_echo(ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="echo hello")
    assert not r.is_error
    assert text_of(r) == "hello\n\nexit: 0"


async def test_nonzero_exit_is_not_an_error(ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="false")
    assert not r.is_error
    assert text_of(r).splitlines()[-1] == "exit: 1"


async def test_stderr_separated(ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="echo out; echo err >&2; exit 3")
    # reference-behaviour.md §2.14 / issue #18: the reference's exact text.
    assert text_of(r) == "out\n\n---\nerr\n\nexit: 3"


async def test_stderr_only_and_truncation_note_texts(ctx: ToolContext) -> None:
    # The reference joins with "\n": stderr after "\n---\n", the cut note after "\n".
    assert text_of(await call(bash, ctx, command="echo err >&2; exit 1")) == "\n---\nerr\n\nexit: 1"
    r = await call(bash, ctx, command="python3 -c \"print('x' * 30010)\"")
    assert text_of(r) == "x" * 30_000 + "\n… (11 chars truncated)\nexit: 0"


async def test_runs_in_cwd_with_closed_stdin(tmp_path: Path, ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="pwd; cat; echo after-cat")
    assert text_of(r) == f"{tmp_path}\nafter-cat\n\nexit: 0"


async def test_signal_exit(ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="kill -TERM $$")
    assert text_of(r).splitlines()[-1] == "exit: signal SIGTERM"


async def test_timeout(ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="sleep 5", timeout_ms=200)
    assert r.is_error
    assert "timed out" in text_of(r) and "200" in text_of(r)


async def test_timeout_keeps_partial_output(ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="echo partial-out; sleep 5", timeout_ms=300)
    assert r.is_error
    assert text_of(r) == "partial-out\n\nBash: timed out after 300 ms."


async def test_timeout_kills_grandchildren(tmp_path: Path, ctx: ToolContext) -> None:
    cmd = "sh -c 'sleep 300 & echo $! > gc.pid; wait' ; wait"
    r = await call(bash, ctx, command=cmd, timeout_ms=500)
    assert r.is_error and "timed out" in text_of(r)
    pid = int((tmp_path / "gc.pid").read_text())
    assert await wait_dead(pid)


async def test_timeout_sigkills_term_ignoring_group(tmp_path: Path, ctx: ToolContext) -> None:
    cmd = "trap '' TERM; sh -c 'trap \"\" TERM; echo $$ > ig.pid; while :; do sleep 1; done'"
    start = time.monotonic()
    r = await call(bash, ctx, command=cmd, timeout_ms=300)
    assert r.is_error
    assert time.monotonic() - start < 10
    assert await wait_dead(int((tmp_path / "ig.pid").read_text()))


async def test_cancellation_kills_process_group(tmp_path: Path, ctx: ToolContext) -> None:
    cmd = "sleep 300 & echo $! > bg.pid; echo $$ > sh.pid; wait"
    task = asyncio.create_task(call(bash, ctx, command=cmd))
    bg = int(await wait_for_file(tmp_path / "bg.pid"))
    sh = int(await wait_for_file(tmp_path / "sh.pid"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not alive(sh)
    assert await wait_dead(bg)


async def test_cancel_before_spawn_does_not_run(tmp_path: Path, ctx: ToolContext) -> None:
    task = asyncio.create_task(call(bash, ctx, command="touch ran.txt"))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not (tmp_path / "ran.txt").exists()


async def test_huge_output_capped(ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="python3 -c \"print('x' * 60000)\"")
    out = text_of(r)
    assert not r.is_error
    assert len(out) < 30_200
    assert "chars truncated" in out
    assert out.splitlines()[-1] == "exit: 0"


async def test_very_large_output_is_drained(ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="head -c 50000000 /dev/zero | tr '\\0' y; echo; echo tail >&2")
    out = text_of(r)
    assert out.splitlines()[-1] == "exit: 0"
    assert "---\ntail" in out
    assert "(50000001 chars truncated)" not in out and "chars truncated" in out


async def test_combined_cap(ctx: ToolContext) -> None:
    cmd = "python3 -c \"import sys; print('o' * 29000); print('e' * 29000, file=sys.stderr)\""
    out = text_of(await call(bash, ctx, command=cmd))
    assert len(out) < 30_200 and "chars truncated" in out and out.endswith("exit: 0")


async def test_background_child_does_not_hang_the_call(tmp_path: Path, ctx: ToolContext) -> None:
    start = time.monotonic()
    r = await call(bash, ctx, command="sleep 300 & echo $! > bg.pid; echo done")
    assert time.monotonic() - start < 5
    assert text_of(r) == "done\n\nexit: 0"
    assert await wait_dead(int((tmp_path / "bg.pid").read_text()))


async def test_nonexistent_shell(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHELL", "/nonexistent/shell")
    r = await call(bash, ctx, command="echo hi")
    assert r.is_error and text_of(r).startswith("Bash: spawn error:")


async def test_utf8_split_across_reads(ctx: ToolContext) -> None:
    r = await call(bash, ctx, command="python3 -c \"print('é' * 50000)\"")
    assert "\ufffd" not in text_of(r)


async def test_inherits_environment(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKAWLD_TEST_VAR", "v42")
    assert text_of(await call(bash, ctx, command="echo $SKAWLD_TEST_VAR")) == "v42\n\nexit: 0"
    assert os.environ["SKAWLD_TEST_VAR"] == "v42"
