"""Git dirs a sandboxed command creates or changes hold data only (real bwrap, real git).

Each attack is one sandboxed command; the test then runs git on the host, as a shell prompt
or the user would, and checks that the planted program never ran. The held cases show that
what git itself writes (a clone, a rebase that stops) is left alone.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.sandbox import ShellPolicy

from .conftest import bash, context, needs_bwrap, text
from .test_background import shell_id, until_output
from .test_git_confined import SANDBOX_IDENTITY, fsmonitor_config, git, host_status, repo

pytestmark = [needs_bwrap, pytest.mark.timeout(120)]

PLANT = fsmonitor_config(Path("MARKER")).replace("\n", "\\n").replace("\t", "\\t")


@pytest.fixture
def policy() -> Iterator[ShellPolicy]:
    p = ShellPolicy(sandbox="required")
    yield p
    p.close()


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "host-ran-code"


def planted(marker: Path) -> str:
    return PLANT.replace("MARKER", str(marker))


STOP_FIRST = "sed -i 1ibreak"  # a sequence editor: the rebase stops before its first line


def gitlink(path: str) -> str:
    return f"git update-index --add --cacheinfo 160000,$(git -C {path} rev-parse HEAD),{path}"


async def test_a_submodule_through_a_new_modules_dir_is_neutralised(
    tmp_path: Path, policy: ShellPolicy, marker: Path
) -> None:
    project = repo(tmp_path / "p")
    command = (
        SANDBOX_IDENTITY + "mkdir -p .git/modules && git init -q --separate-git-dir=.git/modules/evil sub && "
        "git -C sub commit -q --allow-empty -m x && "
        f"printf '{planted(marker)}' >> .git/modules/evil/config && {gitlink('sub')}"
    )
    result = text(await bash(context(project, policy), command))
    assert "core.fsmonitor" in result and "skawld-quarantine" in result, result
    assert (project / "sub" / ".git.skawld-quarantine").is_file()  # the .git file leading to it
    host_status(project)
    assert not marker.exists()


async def test_a_git_file_pointing_at_a_planted_git_dir_is_neutralised(
    tmp_path: Path, policy: ShellPolicy, marker: Path
) -> None:
    project = repo(tmp_path / "p")
    command = (
        SANDBOX_IDENTITY + "git init -q sub && git -C sub commit -q --allow-empty -m x && "
        f"mv sub/.git hidden-gitdir && echo 'gitdir: ../hidden-gitdir' > sub/.git && "
        f"printf '{planted(marker)}' >> hidden-gitdir/config && {gitlink('sub')}"
    )
    await bash(context(project, policy), command)
    host_status(project)
    host_status(project / "sub")
    assert not marker.exists()


async def test_a_git_file_into_the_sessions_tmp_is_neutralised(
    tmp_path: Path, policy: ShellPolicy, marker: Path
) -> None:
    # /tmp inside is a host folder the command can learn (mountinfo): a .git file may point there.
    project = repo(tmp_path / "p")
    host_tmp = policy.tmp_dir("s1")
    command = (
        SANDBOX_IDENTITY + "git init -q sub && git -C sub commit -q --allow-empty -m x && "
        f"mv sub/.git /tmp/g && echo 'gitdir: {host_tmp}/g' > sub/.git && "
        f"printf '{planted(marker)}' >> /tmp/g/config && {gitlink('sub')}"
    )
    await bash(context(project, policy), command)
    host_status(project)
    assert not marker.exists()
    assert (project / "sub" / ".git.skawld-quarantine").is_file()


async def test_a_nested_repository_with_a_hook_is_neutralised(
    tmp_path: Path, policy: ShellPolicy, marker: Path
) -> None:
    project = repo(tmp_path / "p")
    command = (
        "git init -q vendored && "
        f"printf '#!/bin/sh\\ntouch {marker}\\n' > vendored/.git/hooks/pre-commit && chmod +x vendored/.git/hooks/pre-commit"
    )
    result = text(await bash(context(project, policy), command))
    assert "hooks" in result and "skawld-quarantine" in result, result
    subprocess.run(
        ["git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x"],
        cwd=project / "vendored",
        capture_output=True,
        check=False,
    )
    assert not marker.exists()


@pytest.fixture
def outside() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="skawld-remote-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def test_a_clone_inside_keeps_its_config(tmp_path: Path, policy: ShellPolicy, outside: Path) -> None:
    upstream = repo(outside / "upstream")
    project = repo(tmp_path / "p")
    command = SANDBOX_IDENTITY + f"git clone -q {upstream} dep && git -C dep config user.name someone && echo cloned"
    result = text(await bash(context(project, policy), command))
    assert "cloned" in result and "skawld" not in result, result
    config = (project / "dep" / ".git" / "config").read_text()
    assert str(upstream) in config and "someone" in config


async def test_a_submodule_added_inside_keeps_its_config(tmp_path: Path, policy: ShellPolicy, outside: Path) -> None:
    """Its `core.worktree` leads inside the project: data, not a way out."""
    upstream = repo(outside / "upstream")
    project = repo(tmp_path / "p")
    command = (
        SANDBOX_IDENTITY + f"git -c protocol.file.allow=always submodule add -q {upstream} sm && git commit -qm sm && "
        "git -C .git/modules/sm config core.worktree && git -C sm status --short && echo added"
    )
    result = text(await bash(context(project, policy), command))
    assert "added" in result and "skawld" not in result, result
    assert "worktree" in (project / ".git" / "modules" / "sm" / "config").read_text()


async def test_a_config_the_user_had_before_is_left_alone(tmp_path: Path, policy: ShellPolicy, marker: Path) -> None:
    project = repo(tmp_path / "p")
    nested = repo(project / "tools")
    git(nested, "config", "core.fsmonitor", f"echo {marker}")
    result = text(await bash(context(project, policy), "git -C tools log --oneline | wc -l"))
    assert "skawld-quarantine" not in result
    assert "fsmonitor" in (nested / ".git" / "config").read_text()


async def test_exec_lines_of_a_rebase_that_stops_inside_are_commented_out(
    tmp_path: Path, policy: ShellPolicy, marker: Path
) -> None:
    project = repo(tmp_path / "p")
    git(project, "commit", "-q", "--allow-empty", "-m", "second")
    command = SANDBOX_IDENTITY + f"GIT_SEQUENCE_EDITOR=\"{STOP_FIRST}\" git rebase -q -i -x 'touch {marker}' HEAD~1"
    await bash(context(project, policy), command)
    todo = project / ".git" / "rebase-merge" / "git-rebase-todo"
    assert todo.is_file()
    assert "# skawld: a sandboxed command wrote this line: exec touch" in todo.read_text()
    subprocess.run(["git", "rebase", "--continue"], cwd=project, capture_output=True, check=False)
    assert not marker.exists()


async def test_exec_lines_already_there_at_launch_are_kept(tmp_path: Path, policy: ShellPolicy, marker: Path) -> None:
    project = repo(tmp_path / "p")
    git(project, "commit", "-q", "--allow-empty", "-m", "second")
    subprocess.run(
        ["git", "rebase", "-q", "-i", "--exec", "true", "HEAD~1"],
        cwd=project,
        env={"GIT_SEQUENCE_EDITOR": STOP_FIRST, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        check=False,
    )
    todo = project / ".git" / "rebase-merge" / "git-rebase-todo"
    before = todo.read_text()
    result = text(await bash(context(project, policy), "git status --short; x=1"))
    assert "skawld" not in result
    assert todo.read_text() == before


@pytest.mark.parametrize("state", ["rebase-merge", "rebase-apply"])
async def test_a_planted_merge_strategy_is_moved_aside(
    tmp_path: Path, policy: ShellPolicy, marker: Path, state: str
) -> None:
    project = repo(tmp_path / "p")
    command = f"mkdir -p .git/{state} && echo evil > .git/{state}/strategy && x=1 && echo '{state}'"
    result = text(await bash(context(project, policy), command))
    assert f".git/{state}/strategy" in result and "git-merge-evil" in result, result
    assert not (project / ".git" / state / "strategy").exists()


async def test_a_planted_sequencer_strategy_is_moved_aside(tmp_path: Path, policy: ShellPolicy) -> None:
    project = repo(tmp_path / "p")
    command = "mkdir -p .git/sequencer && printf '[options]\\n\\tstrategy = evil\\n' > .git/sequencer/opts"
    result = text(await bash(context(project, policy), command))
    assert "sequencer/opts" in result and "'evil'" in result, result
    assert not (project / ".git" / "sequencer" / "opts").exists()


async def test_a_background_shell_is_checked_when_it_ends(tmp_path: Path, policy: ShellPolicy, marker: Path) -> None:
    project = repo(tmp_path / "p")
    command = (
        SANDBOX_IDENTITY + "git init -q sub && git -C sub commit -q --allow-empty -m x && "
        f"printf '{planted(marker)}' >> sub/.git/config && {gitlink('sub')}"
    )
    ctx = context(project, policy)
    sid = shell_id(await bash(ctx, command + "; echo planted", run_in_background=True))
    await until_output(ctx, sid, "exit: 0")
    shell = policy.background("s1").get(sid)
    assert shell is not None
    await shell.kill()  # it has ended: this waits for its clean-up, and so for its check
    host_status(project)
    assert not marker.exists()
    assert (project / "sub" / ".git" / "config.skawld-quarantine").is_file()


async def test_your_config_stays_when_the_command_only_moves_its_rebase_state(
    tmp_path: Path, policy: ShellPolicy
) -> None:
    project = repo(tmp_path / "p")
    nested = repo(project / "tools")
    git(nested, "commit", "-q", "--allow-empty", "-m", "second")
    git(nested, "config", "alias.st", "status")  # outside the allowlist: yours, from before
    command = SANDBOX_IDENTITY + f'GIT_SEQUENCE_EDITOR="{STOP_FIRST}" git -C tools rebase -q -i HEAD~1; true'
    result = text(await bash(context(project, policy), command))
    assert (nested / ".git" / "rebase-merge").is_dir(), result
    assert "skawld-quarantine" not in result
    assert "alias" in (nested / ".git" / "config").read_text()


async def test_a_git_file_leading_to_your_repository_is_moved_not_your_config(
    tmp_path: Path, policy: ShellPolicy
) -> None:
    project = repo(tmp_path / "p")
    nested = repo(project / "tools")
    git(nested, "config", "alias.st", "status")  # yours, outside the allowlist
    result = text(await bash(context(project, policy), "mkdir other && echo 'gitdir: ../tools/.git' > other/.git"))
    assert (project / "other" / ".git.skawld-quarantine").is_file(), result
    assert "alias" in (nested / ".git" / "config").read_text()
