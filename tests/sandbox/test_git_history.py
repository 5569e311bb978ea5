"""Git's history and Read deny rules (`sandbox.gitHistory`), on real bwrap and real git.

A `.env` committed before a rule denied it sits in git's objects, and hiding part of a pack
is impossible: `auto` (the default) hides the object store whole when a hidden file is
tracked, `hidden` always, `visible` never.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core.config import UntrustedProjectConfigError, load_config
from skawld_core.permissions import PermissionEngine
from skawld_core.sandbox import ShellPolicy

from .conftest import bash, context, needs_bwrap, text
from .test_git_confined import SANDBOX_IDENTITY, git, repo

pytestmark = [needs_bwrap, pytest.mark.timeout(120)]

ENV_RULE = {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = repo(tmp_path / "project")
    (root / ".env").write_text("SECRET=hunter2\n")
    return root


def policy_for(project: Path, history: str = "auto") -> ShellPolicy:
    engine = PermissionEngine(rules=[ENV_RULE], project_root=project)
    return ShellPolicy(sandbox={"mode": "required", "git_history": history}, permissions=engine)


@pytest.fixture
def auto(project: Path) -> Iterator[ShellPolicy]:
    p = policy_for(project)
    yield p
    p.close()


def commit_env(project: Path) -> None:
    git(project, "add", "-f", ".env")
    git(project, "commit", "-qm", "oops")


async def test_a_tracked_denied_file_hides_the_history(project: Path, auto: ShellPolicy) -> None:
    commit_env(project)
    out = text(
        await bash(
            context(project, auto),
            "git show HEAD:.env; git log -p | grep SECRET; git cat-file --batch-all-objects --batch | grep -a SECRET",
        )
    )
    assert "hunter2" not in out
    assert "git's history (its object store) is hidden" in out and ".env is tracked" in out, out
    # nothing was lost on the host, and git inside wrote nothing there
    assert "hunter2" in git(project, "show", "HEAD:.env")
    git(project, "fsck", "--no-progress")


async def test_a_file_removed_from_the_index_but_still_in_head_hides_the_history(
    project: Path, auto: ShellPolicy
) -> None:
    commit_env(project)
    git(project, "rm", "-q", "--cached", ".env")
    out = text(await bash(context(project, auto), "git show HEAD:.env"))
    assert "hunter2" not in out, "HEAD's tree still holds it: the object store must be hidden"


async def test_git_works_when_no_hidden_file_is_tracked(project: Path, auto: ShellPolicy) -> None:
    out = text(
        await bash(
            context(project, auto),
            SANDBOX_IDENTITY + "git log --format=%s && git commit -q --allow-empty -m inside && echo ok",
        )
    )
    assert "first" in out and "ok" in out, out
    assert "inside" in git(project, "log", "--format=%s")


async def test_a_denied_file_only_older_commits_hold_is_hidden_by_auto(project: Path, auto: ShellPolicy) -> None:
    """Found by content: the blob of the file as it is now is in the object store."""
    commit_env(project)
    git(project, "rm", "-q", "--cached", ".env")
    git(project, "commit", "-qm", "untrack")
    out = text(await bash(context(project, auto), "git show HEAD~1:.env"))
    assert "hunter2" not in out
    assert "git's history (its object store) is hidden" in out, out


async def test_an_older_content_only_older_commits_hold_is_hidden_by_auto(project: Path, auto: ShellPolicy) -> None:
    commit_env(project)
    git(project, "rm", "-q", "--cached", ".env")
    git(project, "commit", "-qm", "untrack")
    (project / ".env").write_text("SECRET=rotated\n")
    out = text(await bash(context(project, auto), "git show HEAD~1:.env; git log -p --all | grep -a SECRET"))
    assert "hunter2" not in out
    assert ".env is in git's history" in out, out


async def test_history_found_clean_is_walked_again_for_the_commits_added_since(
    project: Path, auto: ShellPolicy
) -> None:
    """The first call finds history clean; then, on the host, a branch commits the file and a
    later commit on it removes it again: the next call walks the new commits and hides it."""
    first = text(await bash(context(project, auto), "git log --format=%s"))
    assert "first" in first, first
    git(project, "checkout", "-q", "-b", "side")
    commit_env(project)
    git(project, "rm", "-q", "--cached", ".env")
    git(project, "commit", "-qm", "untrack")
    git(project, "checkout", "-q", "-")
    (project / ".env").write_text("SECRET=rotated\n")
    out = text(await bash(context(project, auto), "git show side~1:.env"))
    assert "hunter2" not in out
    assert ".env is in git's history" in out, out


async def test_a_file_only_a_deleted_branch_held_is_beyond_auto(project: Path, auto: ShellPolicy) -> None:
    """The documented limit: an older content that only unreachable commits hold (a deleted
    branch, before gc) is not found; `hidden` is the setting for such a repository."""
    git(project, "checkout", "-q", "-b", "side")
    commit_env(project)
    commit = git(project, "rev-parse", "HEAD").strip()
    git(project, "checkout", "-q", "-")
    git(project, "branch", "-q", "-D", "side")
    git(project, "reflog", "expire", "--expire=now", "--all")
    (project / ".env").write_text("SECRET=rotated\n")
    out = text(await bash(context(project, auto), f"git show {commit}:.env"))
    assert "hunter2" in out, "auto found an unreachable commit: the docs' limit is out of date"


async def test_hidden_always_hides_the_history(project: Path) -> None:
    commit_env(project)
    git(project, "rm", "-q", "--cached", ".env")
    git(project, "commit", "-qm", "untrack")
    policy = policy_for(project, "hidden")
    try:
        out = text(await bash(context(project, policy), "git show HEAD~1:.env; ls .git/objects | wc -l"))
    finally:
        policy.close()
    assert "hunter2" not in out
    assert out.splitlines()[0] == "0" or "\n0\n" in out, out


async def test_visible_shows_it(project: Path) -> None:
    commit_env(project)
    policy = policy_for(project, "visible")
    try:
        out = text(await bash(context(project, policy), "git show HEAD:.env"))
    finally:
        policy.close()
    assert "hunter2" in out
    assert "git history is readable" in policy.status().describe()


def test_a_project_that_shows_the_history_needs_trust(tmp_path: Path) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    (proj / ".skawld").mkdir(parents=True)
    home.mkdir()
    (proj / ".skawld" / "config.json").write_text(json.dumps({"sandbox": {"gitHistory": "visible"}}))
    with pytest.raises(UntrustedProjectConfigError) as info:
        load_config(cwd=proj, env={"HOME": str(home)})
    assert "/sandbox/gitHistory" in info.value.pointers
    loaded = load_config(cwd=proj, env={"HOME": str(home)}, accept_project_config=True)
    assert loaded.config.sandbox_settings.gitHistory == "visible"
