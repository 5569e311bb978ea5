"""Git is data, never code, from inside the sandbox (real bwrap, real git).

Each attack is one sandboxed command that would make the host run a program at the
user's next `git status` outside the sandbox (`core.fsmonitor` runs on every status);
the test then runs that `git status` on the host and checks the program never ran.
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

pytestmark = [needs_bwrap, pytest.mark.timeout(120)]

IDENTITY = ["-c", "user.email=a@b", "-c", "user.name=a", "-c", "init.defaultBranch=main"]
SANDBOX_IDENTITY = "export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b; "


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *IDENTITY, "-c", "protocol.file.allow=always", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    (path / "a.txt").write_text("a\n")
    git(path, "add", "a.txt")
    git(path, "commit", "-qm", "first")
    return path


def host_status(cwd: Path) -> None:
    """What a shell prompt does after the command: `git status` outside the sandbox."""
    subprocess.run(["git", "status", "--short"], cwd=cwd, capture_output=True, check=False)


def fsmonitor_config(marker: Path) -> str:
    return f"[core]\n\tfsmonitor = touch {marker}; false\n"


@pytest.fixture
def policy() -> Iterator[ShellPolicy]:
    p = ShellPolicy(sandbox="required")
    yield p
    p.close()


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "host-ran-code"


async def test_the_marker_is_reached_when_git_is_not_protected(tmp_path: Path, marker: Path) -> None:
    # The attacks below are real: the same planted config, written on the host, runs.
    project = repo(tmp_path / "plain")
    with (project / ".git" / "config").open("a") as fh:
        fh.write(fsmonitor_config(marker))
    host_status(project)
    assert marker.exists()


async def test_commondir_cannot_redirect_the_host_to_a_planted_config(
    tmp_path: Path, policy: ShellPolicy, marker: Path
) -> None:
    project = repo(tmp_path / "p")
    attack = (
        "cp -r .git evil && printf '" + fsmonitor_config(marker).replace("\n", "\\n").replace("\t", "\\t") + "' "
        ">> evil/config && echo ../evil > .git/commondir; cat .git/commondir"
    )
    result = text(await bash(context(project, policy), attack))
    assert not (project / ".git" / "commondir").exists()
    assert "the sandbox removed" in result and "commondir" in result
    host_status(project)
    assert not marker.exists()


async def test_the_git_dir_cannot_be_renamed_or_replaced(tmp_path: Path, policy: ShellPolicy, marker: Path) -> None:
    project = repo(tmp_path / "p")
    attack = (
        "mv .git .gitold; mkdir -p .git; cp -r .gitold/. .git/ 2>/dev/null; "
        f"git config core.fsmonitor 'touch {marker}; false'; ls -d .gitold"
    )
    result = text(await bash(context(project, policy), attack))
    assert "Device or resource busy" in result
    assert not (project / ".gitold").exists()
    host_status(project)
    assert not marker.exists()


async def test_missing_hooks_and_info_cannot_be_planted(tmp_path: Path, policy: ShellPolicy, marker: Path) -> None:
    project = repo(tmp_path / "p")
    shutil.rmtree(project / ".git" / "hooks")
    shutil.rmtree(project / ".git" / "info", ignore_errors=True)
    hook = f"#!/bin/sh\ntouch {marker}\n"
    attack = (
        f"mkdir -p .git/hooks; printf '{hook}' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; "
        "echo '* filter=evil' > .git/info/attributes; ls -A .git/hooks | wc -l"
    )
    result = text(await bash(context(project, policy), attack))
    assert result.startswith("0\n")
    assert not (project / ".git" / "info" / "attributes").exists()
    git(project, "commit", "-q", "--allow-empty", "-m", "host commit runs pre-commit")
    assert not marker.exists()


async def test_a_worktree_git_file_and_its_git_dirs_are_protected(
    tmp_path: Path, policy: ShellPolicy, marker: Path
) -> None:
    main = repo(tmp_path / "main")
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    worktree = tmp_path / "wt"
    before = (worktree / ".git").read_text()
    planted = fsmonitor_config(marker).replace("\n", "\\n").replace("\t", "\\t")
    attack = (
        f"cp -r {main}/.git evilgit; printf '{planted}' >> evilgit/config; "
        "echo 'gitdir: evilgit' > .git; "
        f"git config core.fsmonitor 'touch {marker}; false'; "
        f"git config --worktree core.fsmonitor 'touch {marker}; false'; "
        f"printf '{planted}' > {main}/.git/worktrees/wt/config.worktree; "
        f"echo ../.. > {main}/.git/worktrees/wt/commondir; true"
    )
    await bash(context(worktree, policy), attack)
    assert (worktree / ".git").read_text() == before
    assert "fsmonitor" not in (main / ".git" / "config").read_text()
    assert not (main / ".git" / "worktrees" / "wt" / "config.worktree").exists()
    host_status(worktree)
    host_status(main)
    assert not marker.exists()


async def test_a_commit_inside_a_worktree_still_works(tmp_path: Path, policy: ShellPolicy) -> None:
    main = repo(tmp_path / "main")
    git(main, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    worktree = tmp_path / "wt"
    command = SANDBOX_IDENTITY + "echo b > b.txt && git add b.txt && git commit -qm second && git log --oneline | wc -l"
    result = text(await bash(context(worktree, policy), command))
    assert result.startswith("2\n"), result
    assert "second" in git(main, "log", "--oneline", "side")


async def test_a_submodules_git_dir_is_protected(tmp_path: Path, policy: ShellPolicy, marker: Path) -> None:
    upstream = repo(tmp_path / "upstream")
    project = repo(tmp_path / "p")
    git(project, "submodule", "add", "-q", str(upstream), "sub")
    git(project, "commit", "-qm", "add sub")
    module = project / ".git" / "modules" / "sub"
    assert (module / "config").is_file()
    attack = (
        f"git config -f .git/modules/sub/config core.fsmonitor 'touch {marker}; false'; "
        f"git -C sub config core.fsmonitor 'touch {marker}; false'; "
        "mv .git/modules/sub .git/modules/old; echo 'gitdir: ../evil' > sub/.git; true"
    )
    await bash(context(project, policy), attack)
    assert "fsmonitor" not in (module / "config").read_text()
    assert (project / "sub" / ".git").read_text().startswith("gitdir: ../.git/modules/sub")
    host_status(project)
    assert not marker.exists()


async def test_the_users_global_git_config_is_read_only(
    tmp_path: Path, policy: ShellPolicy, marker: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    writable = ShellPolicy(sandbox="required", writable_dirs=[home])
    try:
        attack = f"git config --global core.fsmonitor 'touch {marker}; false'; mkdir -p ~/.config/git; echo x > ~/.config/git/config"
        await bash(context(repo(tmp_path / "p"), writable), attack)
    finally:
        writable.close()
    assert (home / ".gitconfig").read_text() == ""  # created empty so that it could be mounted read-only
    assert not (home / ".config" / "git" / "config").exists()


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside /tmp (the sandbox's /tmp is private): a local remote lives there."""
    path = Path(tempfile.mkdtemp(prefix="skawld-remote-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def test_git_workflows_work_inside_the_sandbox(tmp_path: Path, policy: ShellPolicy, outside: Path) -> None:
    remote = repo(outside / "remote")
    git(tmp_path, "clone", "-q", str(remote), "p")
    project = tmp_path / "p"
    (remote / "r.txt").write_text("from remote\n")
    git(remote, "add", "r.txt")
    git(remote, "commit", "-qm", "remote change")
    script = SANDBOX_IDENTITY + (
        "set -e; git checkout -q -b feature; echo f > f.txt; git add f.txt; git commit -qm feature; "
        "echo wip >> a.txt; git stash -q; git stash pop -q; git checkout -q a.txt; "
        "git checkout -q main; echo m > m.txt; git add m.txt; git commit -qm main-change; "
        "git merge -q --no-edit feature; "
        "git checkout -q -b topic HEAD~1; echo t > t.txt; git add t.txt; git commit -qm topic; "
        "git rebase -q main; "
        "git fetch -q origin; git merge -q --no-edit origin/main; "
        "git log --format=%s | sort | tr '\\n' ,"
    )
    result = text(await bash(context(project, policy), script))
    assert "exit: 0" in result, result
    subjects = git(project, "log", "--format=%s", "topic")
    for subject in ("feature", "main-change", "topic", "remote change"):
        assert subject in subjects
    assert git(project, "stash", "list") == ""
    assert git(project, "status", "--porcelain") == ""


async def test_a_repository_in_the_home_directory_stays_read_only(
    outside: Path, policy: ShellPolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A dotfiles repository in ~ holding the project folder: its git data is not the project's.
    home = repo(outside / "home")
    monkeypatch.setenv("HOME", str(home))
    project = home / "work"
    project.mkdir()
    result = text(await bash(context(project, policy), "git update-ref refs/heads/evil HEAD"))
    assert "Read-only file system" in result
    assert "evil" not in git(home, "branch")


async def test_a_subfolder_of_a_repository_commits_to_it(tmp_path: Path, policy: ShellPolicy) -> None:
    project = repo(tmp_path / "p")
    (project / "sub").mkdir()
    command = SANDBOX_IDENTITY + "echo s > s.txt && git add s.txt && git commit -qm from-sub && echo committed"
    result = text(await bash(context(project / "sub", policy), command))
    assert "committed" in result, result
    assert "from-sub" in git(project, "log", "--format=%s")


async def test_hooks_and_included_config_kept_in_the_work_tree_are_read_only(
    tmp_path: Path, policy: ShellPolicy, marker: Path
) -> None:
    project = repo(tmp_path / "p")
    (project / ".githooks").mkdir()
    (project / ".githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (project / ".githooks" / "pre-commit").chmod(0o755)
    (project / "project.gitconfig").write_text("[user]\n\tname = shared\n")
    git(project, "config", "core.hooksPath", ".githooks")
    git(project, "config", "include.path", "../project.gitconfig")
    attack = (
        f"printf '#!/bin/sh\\ntouch {marker}\\n' > .githooks/pre-commit; "
        f"printf '[core]\\n\\tfsmonitor = touch {marker}; false\\n' >> project.gitconfig; true"
    )
    await bash(context(project, policy), attack)
    assert "fsmonitor" not in (project / "project.gitconfig").read_text()
    host_status(project)
    git(project, "commit", "-q", "--allow-empty", "-m", "runs the pre-commit hook")
    assert not marker.exists()


async def test_a_git_dir_behind_a_symlink_is_protected(tmp_path: Path, policy: ShellPolicy, marker: Path) -> None:
    project = repo(tmp_path / "p")
    (project / ".git").rename(project / ".realgit")
    (project / ".git").symlink_to(".realgit")
    await bash(context(project, policy), f"git config core.fsmonitor 'touch {marker}; false'")
    assert "fsmonitor" not in (project / ".realgit" / "config").read_text()


async def test_an_added_directorys_repository_is_protected_and_usable(
    tmp_path: Path, outside: Path, marker: Path
) -> None:
    project = repo(tmp_path / "p")
    added = repo(outside / "added")
    policy = ShellPolicy(sandbox="required", writable_dirs=[added])
    try:
        command = (
            SANDBOX_IDENTITY + f"cd {added} && git config core.fsmonitor 'touch {marker}; false'; "
            "echo n > n.txt && git add n.txt && git commit -qm in-added && echo committed"
        )
        result = text(await bash(context(project, policy), command))
    finally:
        policy.close()
    assert "committed" in result, result
    assert "in-added" in git(added, "log", "--format=%s")
    host_status(added)
    assert not marker.exists()
