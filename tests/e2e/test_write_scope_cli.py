"""Write scope through the installed `skawld -p`: `--add-dir`, config `additionalDirectories`,
protected paths, against the local wire server."""

from __future__ import annotations

import pytest

from skawld_core.events import ResultEvent, UserEvent
from tests.cli.harness import CliEnv, parse_events
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(90)


def tool_results(stdout: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for event in parse_events(stdout):
        if isinstance(event, UserEvent) and event.subtype == "tool_result":
            for block in event.message.content:
                tool_use_id = getattr(block, "tool_use_id", None)
                if tool_use_id is not None:
                    out[tool_use_id] = str(getattr(block, "content", ""))
    return out


def script_writes(cli: CliEnv, *writes: tuple[str, str]) -> None:
    calls = [tool_call("Write", {"file_path": path, "content": "hello"}, id=tid) for tid, path in writes]
    cli.srv.anthropic.enqueue(turn(*calls), turn(text("done")))


def test_add_dir_lets_accept_edits_write_there(cli: CliEnv) -> None:
    extra = cli.home.parent / "extra"
    extra.mkdir()
    other = cli.home.parent / "other"
    other.mkdir()
    script_writes(cli, ("in", "inside.txt"), ("add", str(extra / "f.txt")), ("out", str(other / "f.txt")))
    proc = cli.run(*cli.args("-p", "write", "--json", "--permission-mode", "acceptEdits", "--add-dir", str(extra)))
    assert proc.returncode == 0, proc.stderr
    results = tool_results(proc.stdout)
    assert (cli.repo / "inside.txt").read_text() == "hello"
    assert (extra / "f.txt").read_text() == "hello"
    assert not (other / "f.txt").exists()
    assert "denied" in results["out"]
    assert isinstance(parse_events(proc.stdout)[-1], ResultEvent)


def test_without_add_dir_the_same_write_is_not_approved(cli: CliEnv) -> None:
    extra = cli.home.parent / "extra"
    extra.mkdir()
    script_writes(cli, ("add", str(extra / "f.txt")))
    proc = cli.run(*cli.args("-p", "write", "--json", "--permission-mode", "acceptEdits"))
    assert proc.returncode == 0, proc.stderr
    assert not (extra / "f.txt").exists()
    assert "denied" in tool_results(proc.stdout)["add"]


def test_add_dir_is_repeatable_and_relative_to_the_invocation(cli: CliEnv) -> None:
    (cli.repo.parent / "a").mkdir()
    (cli.repo.parent / "b").mkdir()
    script_writes(cli, ("a", str(cli.repo.parent / "a" / "f.txt")), ("b", str(cli.repo.parent / "b" / "f.txt")))
    args = ["-p", "write", "--json", "--permission-mode", "acceptEdits", "--add-dir", "../a", "--add-dir", "../b"]
    proc = cli.run(*cli.args(*args))
    assert proc.returncode == 0, proc.stderr
    assert (cli.repo.parent / "a" / "f.txt").read_text() == "hello"
    assert (cli.repo.parent / "b" / "f.txt").read_text() == "hello"


def test_user_config_additional_directories_relative_to_the_project(cli: CliEnv) -> None:
    shared = cli.repo.parent / "shared"
    shared.mkdir()
    cli.write_user_config({"additionalDirectories": ["../shared"]})
    script_writes(cli, ("s", str(shared / "f.txt")))
    proc = cli.run(*cli.args("-p", "write", "--json", "--permission-mode", "acceptEdits"))
    assert proc.returncode == 0, proc.stderr
    assert (shared / "f.txt").read_text() == "hello"


def test_project_config_additional_directories_needs_trust(cli: CliEnv) -> None:
    (cli.repo.parent / "shared").mkdir()
    cli.write_project_config({"additionalDirectories": ["../shared"]})
    proc = cli.run(*cli.args("-p", "hi", "--json"))
    assert proc.returncode == 3
    assert "/additionalDirectories/0" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_add_dir_is_a_clear_config_error(cli: CliEnv) -> None:
    proc = cli.run(*cli.args("-p", "hi", "--json", "--add-dir", "no/such/dir"))
    assert proc.returncode == 3
    assert "no/such/dir does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_protected_git_config_is_not_written_even_in_accept_edits(cli: CliEnv) -> None:
    before = (cli.repo / ".git" / "config").read_text()
    cli.srv.anthropic.enqueue(
        turn(tool_call("Write", {"file_path": ".git/hooks/pre-commit", "content": "#!/bin/sh\necho hi\n"}, id="h")),
        turn(text("done")),
    )
    proc = cli.run(*cli.args("-p", "write", "--json", "--permission-mode", "acceptEdits"))
    assert proc.returncode == 0, proc.stderr
    assert not (cli.repo / ".git" / "hooks" / "pre-commit").exists()
    assert (cli.repo / ".git" / "config").read_text() == before
    assert "denied" in tool_results(proc.stdout)["h"]
