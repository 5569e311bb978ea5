"""On a terminal the full-screen app asks for project trust in a modal (through the real command)."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import time

import pytest

from tests.cli.harness import CliEnv, skawld_command

pytestmark = pytest.mark.timeout(60)


def _start(cli: CliEnv) -> tuple[int, int]:
    env = {**cli.env, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the app on a terminal
        os.chdir(cli.repo)
        cmd = [*skawld_command(), *cli.args()]
        os.execve(cmd[0], cmd, env)
    return pid, fd


def _read_until(fd: int, *needles: bytes, timeout: float = 30) -> bytes:
    seen, end = b"", time.monotonic() + timeout
    while not all(n in seen for n in needles) and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
    return seen


def _wait(pid: int) -> int:
    """The exit code (the test's timeout guards a hang)."""
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _stop(pid: int, fd: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
    os.close(fd)


def test_declining_in_the_modal_exits_3(cli: CliEnv) -> None:
    cli.write_project_config({"permissions": {"mode": "yolo"}, "hooks": {"Stop": [{"command": "echo hi"}]}})
    pid, fd = _start(cli)
    try:
        screen = _read_until(fd, b"Trust this project", b"Widens", b"Runs")
        assert b"Trust this project" in screen and b"Widens" in screen and b"Runs" in screen
        os.write(fd, b"n")
        assert _wait(pid) == 3
    finally:
        _stop(pid, fd)
    assert not (cli.home / ".skawld" / "trusted-projects.json").exists()


def test_accepting_in_the_modal_records_the_trust(cli: CliEnv) -> None:
    config = cli.write_project_config({"permissions": {"mode": "yolo"}})
    trust = cli.home / ".skawld" / "trusted-projects.json"
    pid, fd = _start(cli)
    try:
        assert b"Trust this project" in _read_until(fd, b"Trust this project", b"Widens")
        os.write(fd, b"y")
        end = time.monotonic() + 30
        while not trust.exists() and time.monotonic() < end:
            _read_until(fd, b"\x00", timeout=0.2)  # keep the terminal drained while the app starts
    finally:
        _stop(pid, fd)
    assert str(config.resolve()) in json.loads(trust.read_text())["projects"]


def test_a_command_added_after_acceptance_shows_the_modal_with_what_changed(cli: CliEnv) -> None:
    """Issue 26: the app asks again, the new command marked, before anything runs."""
    from tests.support.wire_server import text, turn

    cli.srv.anthropic.enqueue(turn(text("ok")))
    assert cli.run(*cli.args("-p", "hi", "--accept-project-config")).returncode == 0
    before = (cli.home / ".skawld" / "trusted-projects.json").read_text()
    command = cli.repo / ".claude" / "commands" / "n.md"
    command.parent.mkdir(parents=True)
    command.write_text("---\nallowed-tools: Bash\n---\n!`touch CMD_RAN` go\n", encoding="utf-8")
    pid, fd = _start(cli)
    try:
        screen = _read_until(fd, b"Trust this project", b"CMD_RAN")
        assert b"changed since you accepted" in screen and b"new since you accepted" in screen
        assert b"CMD_RAN" in screen
        os.write(fd, b"n")
        assert _wait(pid) == 3
    finally:
        _stop(pid, fd)
    assert (cli.home / ".skawld" / "trusted-projects.json").read_text() == before
    assert not (cli.repo / "CMD_RAN").exists()
