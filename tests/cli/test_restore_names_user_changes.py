"""`skawld checkpoints restore` names what it would overwrite that the agent did not write
(issue 26): the user's edit and the user's new file between the checkpoint and the restore."""

from __future__ import annotations

import asyncio
import re

import pytest

from skawld_core.checkpoints import CheckpointEngine
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(120)


def _session_then_user_work(cli: CliEnv) -> None:
    """Prompt 1: the agent writes made.txt. Then the user edits notes.txt and creates mine.txt."""
    (cli.repo / "notes.txt").write_text("v1\n")
    cli.srv.anthropic.enqueue(
        turn(tool_call("Write", {"file_path": "made.txt", "content": "agent\n"}, id="w1")), turn(text("made it"))
    )
    out = cli.run(*cli.args("-p", "make a file", "--permission-mode", "acceptEdits"))
    assert out.returncode == 0, out.stderr
    assert (cli.repo / "made.txt").read_text() == "agent\n"
    (cli.repo / "notes.txt").write_text("my own edit\n")
    (cli.repo / "mine.txt").write_text("my new file\n")


def test_restore_names_the_users_changes_and_asks(cli: CliEnv) -> None:
    _session_then_user_work(cli)
    out = cli.run("checkpoints", "restore", "1", "--what", "code", input="n\n")
    assert out.returncode == 1 and "nothing restored" in out.stderr
    assert "not by the agent; restoring overwrites them" in out.stderr
    assert "edited since: notes.txt (would be rewritten)" in out.stderr
    assert "created since: mine.txt (would be removed)" in out.stderr
    assert "made.txt" not in out.stderr  # the agent's own file is not the user's work
    assert (cli.repo / "notes.txt").read_text() == "my own edit\n" and (cli.repo / "mine.txt").exists()


def test_yes_lists_them_on_stderr_and_restores_keeping_a_backup(cli: CliEnv) -> None:
    _session_then_user_work(cli)
    out = cli.run("checkpoints", "restore", "1", "--what", "code", "--yes")
    assert out.returncode == 0, out.stderr
    assert "edited since: notes.txt" in out.stderr and "created since: mine.txt" in out.stderr
    assert (cli.repo / "notes.txt").read_text() == "v1\n"
    assert not (cli.repo / "mine.txt").exists() and not (cli.repo / "made.txt").exists()
    found = re.search(r"the state before this restore is checkpoint ([0-9a-f]{40})", out.stdout)
    assert found, out.stdout
    engine = CheckpointEngine(cli.repo, env=cli.env)
    assert asyncio.run(engine.file_at(found.group(1), "notes.txt")) == b"my own edit\n"
    assert asyncio.run(engine.file_at(found.group(1), "mine.txt")) == b"my new file\n"


def test_keep_mine_leaves_the_users_changes_alone(cli: CliEnv) -> None:
    _session_then_user_work(cli)
    out = cli.run("checkpoints", "restore", "1", "--what", "code", "--keep-mine", input="y\n")
    assert out.returncode == 0, out.stderr
    assert "--keep-mine leaves them as they are" in out.stderr and "edited since: notes.txt" in out.stderr
    assert (cli.repo / "notes.txt").read_text() == "my own edit\n"
    assert (cli.repo / "mine.txt").read_text() == "my new file\n"
    assert not (cli.repo / "made.txt").exists()  # the agent's work is still undone
    assert "left as they are (your changes): " in out.stdout


def test_no_user_changes_nothing_extra_is_said(cli: CliEnv) -> None:
    (cli.repo / "notes.txt").write_text("v1\n")
    cli.srv.anthropic.enqueue(
        turn(tool_call("Read", {"file_path": "notes.txt"}, id="r1")),
        turn(tool_call("Write", {"file_path": "notes.txt", "content": "v2\n"}, id="e1")),
        turn(text("edited")),
    )
    assert cli.run(*cli.args("-p", "edit it", "--permission-mode", "acceptEdits")).returncode == 0
    assert (cli.repo / "notes.txt").read_text() == "v2\n"
    out = cli.run("checkpoints", "restore", "1", "--what", "code", "--yes")
    assert out.returncode == 0, out.stderr
    assert "not by the agent" not in out.stderr
    assert (cli.repo / "notes.txt").read_text() == "v1\n"
