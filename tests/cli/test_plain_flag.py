"""`--plain` picks the line mode even on a terminal; the default model per provider."""

from __future__ import annotations

import os
import pty
import subprocess

import pytest

from tests.cli.harness import CliEnv, skawld_command
from tests.support.wire_server import text, turn

pytestmark = pytest.mark.timeout(60)


def _read_all(fd: int) -> bytes:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO once the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    return out


def test_plain_flag_on_a_terminal_runs_the_line_mode(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("hello from the plain mode")))
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [*skawld_command(), *cli.args("--plain")],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=cli.repo,
        env={**cli.env, "TERM": "xterm"},
    )
    os.close(slave)
    try:
        os.write(master, b"say hi\r")
        cli.srv.anthropic.wait_for_requests(1, timeout=30)
        os.write(master, b"/exit\r")
        assert proc.wait(timeout=30) == 0
        screen = _read_all(master)
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    assert b"hello from the plain mode" in screen
    assert b"\x1b[?1049h" not in screen  # the full-screen app (alternate screen) never started


def test_default_model_when_none_is_configured(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", model=False))
    assert out.returncode == 0, out.stderr
    assert cli.srv.anthropic.requests[0].body["model"] == "claude-sonnet-4-6"
