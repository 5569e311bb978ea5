"""Attacks on `sandbox.gitHistory: "auto"`, written from docs/sandbox.md only.

The claim: with a Read deny rule on `**/.env`, a sandboxed Bash call cannot read any content of
`.env` that a commit reachable from HEAD, any ref or any stash entry ever held, including commits
added after the session's first call. The documented limits: content only in objects no tip
reaches, a file over 1 MiB or inside a hidden folder held that way, a file no longer in the work
tree. Each case builds the history on the host with real git, rotates the work tree's `.env`
(so its current content is no object) and reads from inside real bubblewrap. About 30 shapes
were tried; the most valuable that held are kept, each hole as `xfail(strict=True)` (it turns
red once fixed), and one case inside the documented limit.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from skawld_core.sandbox import ShellPolicy

from . import test_git_history as base
from .conftest import bash, context, needs_bwrap, text
from .test_git_confined import IDENTITY, git, repo
from .test_git_history import commit_env, policy_for

pytestmark = [needs_bwrap, pytest.mark.timeout(120)]

project = base.project  # fixtures: a repository with an untracked `.env`, and `auto` on it
auto = base.auto

READ = "git cat-file --batch-all-objects --batch 2>&1 | grep -a hunter2; git log --all -p 2>&1 | grep -a hunter2"


def rotate(project: Path) -> None:
    (project / ".env").write_text("SECRET=rotated\n")


def forget_reflogs(project: Path) -> None:
    git(project, "reflog", "expire", "--expire=now", "--all")


def side_branch_with_env(project: Path) -> str:
    """A branch `side` that commits `.env` and then untracks it; returns the commit holding it."""
    git(project, "checkout", "-q", "-b", "side")
    commit_env(project)
    holder = git(project, "rev-parse", "HEAD").strip()
    git(project, "rm", "-q", "--cached", ".env")
    git(project, "commit", "-qm", "untrack")
    git(project, "checkout", "-q", "-")
    return holder


def untracked_in_a_later_commit(project: Path) -> str:
    commit_env(project)
    holder = git(project, "rev-parse", "HEAD").strip()
    git(project, "rm", "-q", "--cached", ".env")
    git(project, "commit", "-qm", "untrack")
    git(project, "commit", "-q", "--allow-empty", "-m", "later")
    return holder


def git_env(project: Path) -> dict[str, str]:
    names = {"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b"}
    return {"PATH": os.environ["PATH"], "HOME": str(project.parent), **names}


async def read_inside(project: Path, policy: ShellPolicy, extra: str = "") -> str:
    return text(await bash(context(project, policy), READ + extra))


async def until(check: Callable[[], bool], within: float = 20.0) -> bool:
    """Poll `check` (a file another process writes: nothing to await)."""
    deadline = asyncio.get_running_loop().time() + within
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


# -- held ------------------------------------------------------------------------------------


async def test_the_refs_filter_branch_keeps_hide_the_history(project: Path, auto: ShellPolicy) -> None:
    """The usual scrub leaves refs/original/ holding the old history."""
    commit_env(project)
    git(project, "commit", "-q", "--allow-empty", "-m", "later")
    subprocess.run(
        ["git", *IDENTITY, "filter-branch", "-f", "--index-filter", "git rm -q --cached --ignore-unmatch .env", "HEAD"],
        cwd=project,
        capture_output=True,
        check=True,
        env={**git_env(project), "FILTER_BRANCH_SQUELCH_WARNING": "1"},
    )
    assert ".env" not in git(project, "ls-tree", "-r", "--name-only", "HEAD")
    forget_reflogs(project)
    rotate(project)
    out = await read_inside(project, auto)
    assert "hunter2" not in out
    assert ".env is tracked" in out, out


async def test_an_older_stash_entry_with_the_untracked_file_hides_the_history(project: Path, auto: ShellPolicy) -> None:
    git(project, "stash", "-q", "-u")
    (project / "a.txt").write_text("changed\n")
    git(project, "stash", "-q")  # a clean entry on top: the file is in stash@{1}^3 only
    rotate(project)
    out = await read_inside(project, auto, "; git show 'stash@{1}^3:.env'")
    assert "hunter2" not in out
    assert "git's history (its object store) is hidden" in out, out


async def test_a_tag_on_a_tree_that_holds_it_hides_the_history(project: Path, auto: ShellPolicy) -> None:
    holder = side_branch_with_env(project)
    git(project, "tag", "keeptree", f"{holder}^{{tree}}")
    git(project, "branch", "-q", "-D", "side")
    forget_reflogs(project)
    rotate(project)
    out = await read_inside(project, auto, "; git show keeptree:.env")
    assert "hunter2" not in out
    assert "git's history (its object store) is hidden" in out, out


async def test_a_per_worktree_ref_of_a_linked_worktree_hides_the_history(
    project: Path, auto: ShellPolicy, tmp_path: Path
) -> None:
    """refs/worktree/* of a linked worktree are not listed from the main one."""
    holder = side_branch_with_env(project)
    linked = tmp_path / "linked"
    git(project, "worktree", "add", "-q", "--detach", str(linked))
    git(linked, "update-ref", "refs/worktree/keep", holder)
    git(project, "branch", "-q", "-D", "side")
    forget_reflogs(project)
    rotate(project)
    out = await read_inside(project, auto)
    assert "hunter2" not in out
    assert "git's history (its object store) is hidden" in out, out


@pytest.mark.parametrize("folder", ["a\nb", "ü", "-n", '"q"'])
async def test_an_oddly_named_folder_in_history_hides_it(tmp_path: Path, folder: str) -> None:
    """A newline breaks a line-based batch; non-ASCII and quotes are quoted by git's output."""
    proj = repo(tmp_path / "project")
    (proj / folder).mkdir()
    (proj / folder / ".env").write_text("SECRET=hunter2\n")
    git(proj, "add", "-f", "--", f"{folder}/.env")
    git(proj, "commit", "-qm", "oops")
    git(proj, "rm", "-q", "--cached", "--", f"{folder}/.env")
    git(proj, "commit", "-qm", "untrack")
    (proj / folder / ".env").write_text("SECRET=rotated\n")
    policy = policy_for(proj)
    try:
        out = await read_inside(proj, policy)
    finally:
        policy.close()
    assert "hunter2" not in out
    assert "is in git's history" in out, out


async def test_a_project_that_is_a_linked_worktree_hides_the_main_repositorys_history(tmp_path: Path) -> None:
    main = repo(tmp_path / "main")
    (main / ".env").write_text("SECRET=hunter2\n")
    untracked_in_a_later_commit(main)
    linked = tmp_path / "project"
    git(main, "worktree", "add", "-q", "--detach", str(linked))
    rotate(linked)
    policy = policy_for(linked)
    try:
        out = await read_inside(linked, policy, f"; git --git-dir={main}/.git log -p | grep -a hunter2")
    finally:
        policy.close()
    assert "hunter2" not in out
    assert "is in git's history" in out, out


async def test_other_processes_roots_do_not_show_the_store(project: Path, auto: ShellPolicy) -> None:
    """A background shell started while history was clean keeps its view, but a later call
    cannot reach it through /proc/PID/root (each call has its own PID namespace)."""
    await bash(context(project, auto), "sleep 300", run_in_background=True)
    side_branch_with_env(project)
    rotate(project)
    each = "for p in /proc/[0-9]*; do GIT_DIR=$p/root$PWD/.git git log --all -p 2>/dev/null | grep -a hunter2; done"
    out = text(await bash(context(project, auto), each))
    assert "hunter2" not in out
    assert "git's history (its object store) is hidden" in out, out


async def test_a_content_committed_at_another_path_then_moved_into_place(tmp_path: Path) -> None:
    proj = repo(tmp_path / "project")
    (proj / "cfg").mkdir()
    (proj / "cfg" / ".env").write_text("SECRET=hunter2\n")
    git(proj, "add", "-f", "cfg/.env")
    git(proj, "commit", "-qm", "oops")
    git(proj, "mv", "cfg/.env", ".env")
    git(proj, "commit", "-qm", "move")
    git(proj, "rm", "-q", "--cached", ".env")
    git(proj, "commit", "-qm", "untrack")
    rotate(proj)
    policy = policy_for(proj)
    try:
        out = await read_inside(proj, policy)
    finally:
        policy.close()
    assert "hunter2" not in out
    assert "is in git's history" in out, out


# -- found by this attack and closed (were strict xfails) ------------------------------------


async def test_an_amended_commit_only_the_reflog_holds(project: Path, auto: ShellPolicy) -> None:
    """`git commit --amend` to drop an accidental `.env`: the old commit is in no tip, only in
    the reflog, whose entries are walked too."""
    commit_env(project)
    git(project, "rm", "-q", "--cached", ".env")
    git(project, "commit", "-q", "--amend", "--allow-empty", "-m", "fixed")
    rotate(project)
    out = await read_inside(project, auto, "; git show 'HEAD@{1}:.env'")
    assert "hunter2" not in out


async def test_a_merged_branch_that_added_and_removed_it(project: Path, auto: ShellPolicy) -> None:
    """The pull-request shape: a branch commits `.env`, a later commit on it untracks it, the
    branch is merged and deleted. Its commits are reachable from HEAD, but a path-limited
    `git log` drops a side the merge is TREESAME to (history simplification)."""
    holder = side_branch_with_env(project)
    git(project, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    git(project, "branch", "-q", "-D", "side")
    assert git(project, "merge-base", "--is-ancestor", holder, "HEAD") == ""
    rotate(project)
    out = await read_inside(project, auto, f"; git show {holder}:.env")
    assert "hunter2" not in out


async def test_a_graft_that_cuts_history_off(project: Path, auto: ShellPolicy) -> None:
    holder = untracked_in_a_later_commit(project)
    git(project, "replace", "--graft", "HEAD")
    rotate(project)
    out = await read_inside(project, auto, f"; git --no-replace-objects show {holder}:.env")
    assert "hunter2" not in out


async def test_a_shallow_boundary_above_the_commit(project: Path, auto: ShellPolicy) -> None:
    holder = untracked_in_a_later_commit(project)
    (project / ".git" / "shallow").write_text(git(project, "rev-parse", "HEAD"))
    rotate(project)
    out = await read_inside(project, auto, f"; git show {holder}:.env")
    assert "hunter2" not in out


async def test_undoing_the_commit_with_reset_leaves_orig_head(project: Path, auto: ShellPolicy) -> None:
    commit_env(project)
    git(project, "reset", "-q", "HEAD~1")
    rotate(project)
    out = await read_inside(project, auto, "; git show ORIG_HEAD:.env")
    assert "hunter2" not in out


async def test_a_fetched_commit_only_fetch_head_holds(project: Path, auto: ShellPolicy, tmp_path: Path) -> None:
    fork = tmp_path / "fork"
    git(tmp_path, "clone", "-q", str(project), str(fork))
    (fork / ".env").write_text("SECRET=hunter2\n")
    commit_env(fork)
    git(project, "fetch", "-q", str(fork), "HEAD")
    rotate(project)
    out = await read_inside(project, auto, "; git show FETCH_HEAD:.env")
    assert "hunter2" not in out


# -- holes, now documented limits of auto (docs/sandbox.md); `hidden` closes them -------------


@pytest.mark.xfail(strict=True, reason="hole: a tag that points at the old blob itself is a tip that reaches it")
async def test_a_tag_on_the_old_blob(project: Path, auto: ShellPolicy) -> None:
    holder = side_branch_with_env(project)
    git(project, "tag", "keep", f"{holder}:.env")
    git(project, "branch", "-q", "-D", "side")
    forget_reflogs(project)
    rotate(project)
    out = await read_inside(project, auto, "; git cat-file -p keep")
    assert "hunter2" not in out


@pytest.mark.xfail(strict=True, reason="hole: a notes ref whose note is the old blob is a tip that reaches it")
async def test_a_note_holding_the_old_blob(project: Path, auto: ShellPolicy) -> None:
    holder = side_branch_with_env(project)
    git(project, "notes", "add", "-C", git(project, "rev-parse", f"{holder}:.env").strip(), "HEAD")
    git(project, "branch", "-q", "-D", "side")
    forget_reflogs(project)
    rotate(project)
    out = await read_inside(project, auto, "; git notes show")
    assert "hunter2" not in out


@pytest.mark.xfail(
    strict=True, reason="hole: a bare repository nested in the project is not one of the walked git dirs"
)
async def test_a_bare_clone_nested_in_the_project(project: Path, auto: ShellPolicy, tmp_path: Path) -> None:
    """A backup made before scrubbing the project's own history."""
    commit_env(project)
    git(tmp_path, "clone", "-q", "--bare", str(project), str(project / "backup.git"))
    git(project, "reset", "-q", "--hard", "HEAD~1")
    forget_reflogs(project)
    git(project, "gc", "-q", "--prune=now")
    rotate(project)
    out = await read_inside(project, auto, "; git --git-dir=backup.git log -p | grep -a hunter2")
    assert "hunter2" not in out


@pytest.mark.xfail(strict=True, reason="hole: a call that started while history was clean sees commits added during it")
async def test_a_commit_made_while_a_call_runs(project: Path, auto: ShellPolicy) -> None:
    waits = "touch started; until [ -e go ]; do sleep 0.05; done; " + READ
    call = asyncio.create_task(bash(context(project, auto), waits))
    assert await until((project / "started").exists)
    side_branch_with_env(project)
    rotate(project)
    (project / "go").touch()
    assert "hunter2" not in text(await call)


@pytest.mark.xfail(strict=True, reason="hole: a background shell started while history was clean keeps the store")
async def test_a_background_shell_reads_a_commit_added_later(project: Path, auto: ShellPolicy) -> None:
    watcher = "until git log --all -p 2>/dev/null | grep -a hunter2 > leak.txt; do sleep 0.1; done"
    await bash(context(project, auto), watcher, run_in_background=True)
    side_branch_with_env(project)
    rotate(project)
    await until(lambda: (project / "leak.txt").exists() and (project / "leak.txt").stat().st_size > 0)
    out = text(await bash(context(project, auto), "git show side~1:.env; cat leak.txt"))
    assert "invalid object name 'side~1'" in out, out  # this call's own view is hidden
    assert "hunter2" not in out
