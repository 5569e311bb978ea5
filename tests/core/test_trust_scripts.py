"""The project scripts an accepted shell line runs (`skawld_core.trust_scripts`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skawld_core.trust_scripts import bash_rule_command, ran_files, scripts_digest


@pytest.mark.parametrize(
    ("line", "ran"),
    [
        ("./scripts/status.sh", ["./scripts/status.sh"]),
        ("git status && ./a/b | tail -n 3", ["./a/b"]),
        ("sh scripts/x.sh arg", ["scripts/x.sh"]),
        ("env FOO=1 python3 -u tools/gen.py", ["tools/gen.py"]),
        ("sudo ./deploy.sh; ./deploy.sh", ["./deploy.sh"]),
        ("bash -c './inner.sh'", ["./inner.sh"]),
        (". ./env.sh", ["./env.sh"]),
        ("/usr/bin/python3.12 t.py", ["/usr/bin/python3.12", "t.py"]),
        ("cat notes.txt", []),  # data, not a program
        ("python -m pkg.tool", []),  # a module: not followed (documented)
        ("$X/run.sh", []),  # not known before it runs
        ("git log --oneline", []),
    ],
)
def test_the_files_a_line_runs(line: str, ran: list[str]) -> None:
    assert ran_files(line) == ran


@pytest.mark.parametrize(
    ("tool", "command"),
    [
        ("Bash(./scripts/status.sh)", "./scripts/status.sh"),
        ("Bash(npm run test:*)", "npm run test"),
        ("Bash(python3 gen.py *)", "python3 gen.py"),
        ("Read", None),
        ("Bash", None),
    ],
)
def test_the_command_of_a_bash_grant(tool: str, command: str | None) -> None:
    assert bash_rule_command(tool) == command


def test_the_digest_follows_the_script_through_appearing_changing_and_going(tmp_path: Path) -> None:
    lines = ["./run.sh --fast"]
    absent = scripts_digest(lines, tmp_path)
    script = tmp_path / "run.sh"
    script.write_text("echo one\n")
    first = scripts_digest(lines, tmp_path)
    assert first != absent
    assert scripts_digest(lines, tmp_path) == first  # stable while unchanged
    script.write_text("echo two\n")
    second = scripts_digest(lines, tmp_path)
    assert second not in (first, absent)
    script.unlink()
    assert scripts_digest(lines, tmp_path) == absent


def test_a_line_that_runs_no_script_adds_nothing(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    assert scripts_digest(["cat notes.txt", "git status"], tmp_path) == ""


def test_a_folder_in_the_scripts_place_is_a_state_not_an_error(tmp_path: Path) -> None:
    absent = scripts_digest(["./tool"], tmp_path)
    (tmp_path / "tool").mkdir()
    assert scripts_digest(["./tool"], tmp_path) not in ("", absent)
