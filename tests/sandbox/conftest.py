"""Helpers for the sandbox tests: a real bwrap (skipped only outside CI when it cannot start)."""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skawld_core.sandbox import ShellPolicy, probe_bwrap
from skawld_core.sandbox.procs import is_alive, process_table
from skawld_core.tools import BashTool, ToolContext, ToolResult

PROBE = probe_bwrap()
needs_bwrap = pytest.mark.skipif(
    not PROBE.ok and os.environ.get("CI") != "true",
    reason=f"bubblewrap cannot start here: {PROBE.reason}",
)

_counter = itertools.count(1)


def sleep_tag() -> str:
    """A unique `sleep` duration: its command line tells our process apart
    (pids inside a PID namespace differ from the host's)."""
    return f"{300 + os.getpid() % 1000}.{next(_counter):04d}{int(time.time() * 1000) % 10000:04d}"


def tagged(tag: str) -> list[int]:
    """Live (non-zombie) host pids whose command line is `sleep <tag>`."""
    found = []
    for pid in process_table():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        if len(argv) >= 2 and argv[0].endswith(b"sleep") and argv[1] == tag.encode() and is_alive(pid):
            found.append(pid)
    return found


async def gone(tag: str, within: float = 6.0) -> bool:
    """Poll until no `sleep <tag>` is alive (processes we do not parent cannot be awaited)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not tagged(tag):
            return True
        await asyncio.sleep(0.02)
    return not tagged(tag)


async def appears(tag: str, within: float = 10.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if tagged(tag):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"sleep {tag} never started")


def context(cwd: Path, policy: ShellPolicy, session_id: str = "s1") -> ToolContext:
    return ToolContext(cwd=cwd, session_id=session_id, run_id="r1", tool_use_id="t1", extras={"shell_policy": policy})


async def bash(ctx: ToolContext, command: str, **raw: Any) -> ToolResult:
    tool = BashTool()
    return await tool.execute(tool.validate({"command": command, **raw}), ctx)


def text(result: ToolResult) -> str:
    assert isinstance(result.content, str)
    return result.content


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


@pytest.fixture
def sandboxed() -> Iterator[ShellPolicy]:
    policy = ShellPolicy(sandbox="required")
    yield policy
    policy.close()


@pytest.fixture(params=["sandbox", "plain"])
def any_policy(request: pytest.FixtureRequest) -> Iterator[ShellPolicy]:
    """Each containment test runs with and without the sandbox."""
    if request.param == "sandbox" and not PROBE.ok and os.environ.get("CI") != "true":
        pytest.skip(f"bubblewrap cannot start here: {PROBE.reason}")
    policy = ShellPolicy(sandbox="required" if request.param == "sandbox" else "off")
    yield policy
    policy.close()


@pytest.fixture(autouse=True)
def bash_as_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests use bash features (`/dev/tcp`, `read -t`, `set -m`); the Bash tool runs
    `$SHELL`, which CI leaves unset (so `/bin/sh`, dash on Debian)."""
    bash_path = shutil.which("bash")
    assert bash_path is not None, "bash is needed for the sandbox tests"
    monkeypatch.setenv("SHELL", bash_path)
