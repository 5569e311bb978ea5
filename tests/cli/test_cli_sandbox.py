"""`--sandbox` / `--no-sandbox` and the `-v` sandbox line, through the installed `skawld`."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from skawld_core.sandbox import probe_bwrap
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(60)

needs_bwrap = pytest.mark.skipif(
    not probe_bwrap().ok and os.environ.get("CI") != "true", reason=f"bubblewrap cannot start: {probe_bwrap().reason}"
)


def test_no_sandbox_flag(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--json", "--no-sandbox", "-v"))
    assert out.returncode == 0, out.stderr
    system = json.loads(out.stdout.splitlines()[0])
    assert system["sandbox"]["active"] is False and system["sandbox"]["mode"] == "off"
    assert "skawld: sandbox: off" in out.stderr


@needs_bwrap
def test_sandbox_flag_runs_bash_inside(cli: CliEnv) -> None:
    # Not under /tmp: the sandbox has its own /tmp, where the path would simply not exist.
    where = Path(tempfile.mkdtemp(prefix="skawld-cli-", dir="/var/tmp"))
    outside = where / "outside.txt"
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": f"echo x > {outside}; echo done"}, id="b")))
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--json", "--sandbox", "-v", "--permission-mode", "acceptEdits"))
    assert out.returncode == 0, out.stderr
    system = json.loads(out.stdout.splitlines()[0])
    assert system["sandbox"] == {"active": True, "mode": "required", "network": False}
    assert "skawld: sandbox: bubblewrap (no network)" in out.stderr
    # acceptEdits ran it without asking; the sandbox kept the write out of $HOME.
    assert "Read-only file system" in out.stdout and "done" in out.stdout, out.stdout
    assert not outside.exists()
    shutil.rmtree(where)


def test_sandbox_config_key(cli: CliEnv) -> None:
    cli.write_user_config({"sandbox": "off"})
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--json"))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[0])["sandbox"]["mode"] == "off"


def test_bad_sandbox_config_exits_3(cli: CliEnv) -> None:
    cli.write_user_config({"sandbox": "sometimes"})
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3 and "/sandbox" in out.stderr and "Traceback" not in out.stderr
