"""The interactive entry asks on the terminal before using an untrusted project config."""

from __future__ import annotations

import json
import os
import pty
import subprocess

import pytest

from tests.cli.harness import CliEnv, skawld_command

pytestmark = pytest.mark.timeout(60)


def _start(cli: CliEnv) -> tuple[subprocess.Popen[bytes], int]:
    """`skawld` with a terminal on stdin/stderr and a pipe on stdout (so the plain mode runs)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [*skawld_command(), *cli.args()],
        stdin=slave,
        stderr=slave,
        stdout=subprocess.PIPE,
        cwd=cli.repo,
        env=cli.env,
    )
    os.close(slave)
    return proc, master


def _read_until(fd: int, needle: bytes) -> bytes:
    seen = b""
    while needle not in seen:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        seen += chunk
    return seen


def test_declining_the_prompt_exits_3(cli: CliEnv) -> None:
    cli.write_project_config({"permissions": {"mode": "yolo"}})
    proc, master = _start(cli)
    try:
        assert b"[y/N]" in _read_until(master, b"[y/N]")
        os.write(master, b"n\n")
        assert proc.wait(timeout=30) == 3
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    assert not (cli.home / ".skawld" / "trusted-projects.json").exists()


def test_accepting_the_prompt_is_remembered(cli: CliEnv) -> None:
    config = cli.write_project_config({"permissions": {"mode": "yolo"}})
    proc, master = _start(cli)
    try:
        assert b"/permissions/mode" in _read_until(master, b"[y/N]")
        os.write(master, b"y\n")
        assert proc.stdout is not None
        assert proc.stdout.read1(4096)  # the app started: the trust is recorded by then
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    trust = json.loads((cli.home / ".skawld" / "trusted-projects.json").read_text())
    assert str(config.resolve()) in trust["projects"]
