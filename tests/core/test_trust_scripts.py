"""The project files an accepted shell line names (`skawld_core.trust_scripts`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skawld_core.trust_scripts import bash_rule_command, named_files, scripts_digest


@pytest.fixture
def work(tmp_path: Path) -> Path:
    for name in ("scripts/status.sh", "scripts/lib.sh", "tools/gen.py", "tools/app/__main__.py", "notes.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    return tmp_path


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("./scripts/status.sh", ["scripts/status.sh"]),
        ("git status && ./scripts/status.sh | tail -n 3", ["scripts/status.sh"]),
        ("env FOO=1 python3 -X dev tools/gen.py", ["tools/gen.py"]),
        ("bash -e scripts/status.sh", ["scripts/status.sh"]),
        ("cd scripts && ./status.sh", ["scripts/status.sh"]),
        ("env -C scripts sh status.sh", ["scripts/status.sh"]),
        ('"$PWD"/scripts/status.sh', ["scripts/status.sh"]),
        ("$(pwd)/scripts/status.sh", ["scripts/status.sh"]),
        ("PATH=./scripts:$PATH status.sh", ["scripts/status.sh"]),
        ("BASH_ENV=scripts/status.sh bash -c true", ["scripts/status.sh"]),
        ("a=scripts/status.sh; sh $a", ["scripts/status.sh"]),
        ("sh < scripts/status.sh", ["scripts/status.sh"]),
        ('bash -c "$(cat scripts/status.sh)"', ["scripts/status.sh"]),
        ("./scripts/statu?.sh", ["scripts/status.sh"]),
        ("for f in scripts/*.sh; do sh $f; done", ["scripts/lib.sh", "scripts/status.sh"]),
        ("python3 tools/app", ["tools/app/__main__.py"]),
        ("bash scripts/../scripts/status.sh", ["scripts/status.sh"]),
        ("cat notes.txt", ["notes.txt"]),  # data too: over-approximated on purpose
        ("python -m pkg.tool", []),  # a module: not followed (documented)
        ("git log --oneline", []),
        ("cat ../outside.sh /etc/passwd ~/x.sh", []),  # outside the project: not the project's
        ("rg TODO -g '**/*.sh'", []),  # a recursive glob is not expanded (cost)
    ],
)
def test_the_files_a_line_names(work: Path, line: str, named: list[str]) -> None:
    assert [str(p.relative_to(work)) for p in named_files(line, work)] == named


@pytest.mark.parametrize(
    ("tool", "command"),
    [
        ("Bash(./scripts/status.sh)", "./scripts/status.sh"),
        ("Bash(npm run test:*)", "npm run test"),
        ("Bash(python3 gen.py *)", "python3 gen.py"),
        ("Read", None),
        ("Bash", None),
        ("Bash(unclosed", None),
        ("Read(./scripts/status.sh)", None),
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


def test_a_line_that_names_no_project_file_adds_nothing(tmp_path: Path) -> None:
    assert scripts_digest(["git status", "echo hi"], tmp_path) == ""


def test_a_link_in_the_project_is_followed_wherever_it_points(tmp_path: Path) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_text("one\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "run").symlink_to(outside)
    first = scripts_digest(["./run"], work)
    outside.write_text("two\n")
    assert scripts_digest(["./run"], work) not in ("", first)


def test_an_absolute_path_into_the_project_is_named(work: Path) -> None:
    assert named_files(f"{work}/scripts/status.sh --now", work) == [work / "scripts" / "status.sh"]


def test_a_glob_stands_for_its_first_200_files(tmp_path: Path) -> None:
    (tmp_path / "many").mkdir()
    for k in range(205):
        (tmp_path / "many" / f"s{k:03}.sh").write_text("x")
    named = named_files("for f in many/*.sh; do sh $f; done", tmp_path)
    assert len(named) == 200 and named[0].name == "s000.sh" and named[-1].name == "s199.sh"
