"""Every process a Bash call starts ends with it: normal exit, timeout, abort,
and skawld's own exit; with the sandbox (PID namespace) and without it
(child subreaper + call token). Real processes, found by their command line."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skawld_core.sandbox import ShellPolicy

from .conftest import appears, bash, context, gone, needs_bwrap, sleep_tag, tagged, text

pytestmark = pytest.mark.timeout(60)

ESCAPES = {
    "setsid": "setsid sleep {tag} >/dev/null 2>&1 &",
    "set -m": "set -m; sleep {tag} >/dev/null 2>&1 &",
    "double fork": "( setsid sh -c 'sleep {tag} >/dev/null 2>&1 &' & )",
}


@pytest.mark.parametrize("how", list(ESCAPES))
async def test_normal_exit_ends_escaped_children(project: Path, any_policy: ShellPolicy, how: str) -> None:
    tag = sleep_tag()
    r = await bash(context(project, any_policy), ESCAPES[how].format(tag=tag) + "\necho started")
    assert text(r) == "started\n\nexit: 0"
    assert await gone(tag)


async def test_timeout_ends_setsid_child(project: Path, any_policy: ShellPolicy) -> None:
    tag = sleep_tag()
    r = await bash(context(project, any_policy), f"setsid sleep {tag} & echo start; sleep 30", timeout_ms=500)
    assert r.is_error and text(r) == "start\n\nBash: timed out after 500 ms."
    assert await gone(tag)


async def test_abort_ends_setsid_child(project: Path, any_policy: ShellPolicy) -> None:
    tag = sleep_tag()
    task = asyncio.create_task(bash(context(project, any_policy), f"setsid sleep {tag} & sleep 30"))
    await appears(tag)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await gone(tag)


async def test_term_ignoring_escapee_is_killed(project: Path) -> None:
    # Unsandboxed only: in the sandbox the PID namespace ends with the shell.
    policy = ShellPolicy(sandbox="off")
    tag = sleep_tag()
    # TERM is ignored before `ready` exists, and the ignore survives the exec.
    started = f"setsid sh -c \"trap '' TERM; touch ready; exec sleep {tag}\" >/dev/null 2>&1 &"
    wait = "until [ -e ready ]; do sleep 0.01; done; echo ok"
    assert text(await bash(context(project, policy), f"{started}\n{wait}")) == "ok\n\nexit: 0"
    await appears(tag, within=1.5)  # still alive: SIGTERM is ignored, SIGKILL comes after the grace
    assert await gone(tag, within=8)


async def test_unrelated_processes_survive(project: Path, any_policy: ShellPolicy) -> None:
    outside, inside = sleep_tag(), sleep_tag()
    outsider = subprocess.Popen(["setsid", "sleep", outside])
    try:
        await appears(outside)
        await bash(context(project, any_policy), f"setsid sleep {inside} >/dev/null 2>&1 & echo x")
        assert await gone(inside)
        assert outsider.poll() is None and tagged(outside) == [outsider.pid]
    finally:
        outsider.kill()
        outsider.wait()


SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from skawld_core.sandbox import ShellPolicy
    from skawld_core.tools import BashTool, ToolContext

    async def main():
        policy = ShellPolicy(sandbox=sys.argv[1])
        ctx = ToolContext(cwd=Path.cwd(), session_id="s", run_id="r", tool_use_id="t",
                          extras={"shell_policy": policy})
        tool = BashTool()
        command = "setsid sleep " + sys.argv[2] + " >/dev/null 2>&1 & " + sys.argv[3]
        print("calling", flush=True)
        await tool.execute(tool.validate({"command": command}), ctx)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize("mode", ["off", pytest.param("required", marks=needs_bwrap)])
async def test_nothing_outlives_skawld_exit(project: Path, mode: str) -> None:
    tag = sleep_tag()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode, tag, "echo ok"], cwd=project, capture_output=True, timeout=30
    )
    assert done.returncode == 0, done.stderr
    assert await gone(tag)


@needs_bwrap
async def test_sandbox_ends_with_a_killed_skawld(project: Path) -> None:
    """kill -9 of skawld mid-call: --die-with-parent ends the whole sandbox."""
    tag = sleep_tag()
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, "required", tag, "sleep 30"], cwd=project)
    try:
        await appears(tag, within=20)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert await gone(tag)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
