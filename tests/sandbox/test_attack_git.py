"""Attacks on "git is data, never code" and on `sandbox.gitHistory` from one sandboxed command.

Written from docs/sandbox.md and observed behaviour only (not from the implementation). Each
attack runs real Bash calls under real bubblewrap, then does what the user does next on the host
(`git status`, `git commit`, `git submodule update`, ...) and checks that a planted program never
ran, or that a Read-denied secret never appeared in the output. Escapes are strict xfails naming
the hole (the builder flips them when closing it); the rest held and guard against regressions.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core import Agent
from skawld_core.permissions import PermissionEngine
from skawld_core.sandbox import ShellPolicy
from skawld_core.sandbox.gitguard import QUARANTINE_SUFFIX
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider

from .conftest import bash, context, needs_bwrap, text
from .test_background import shell_id, until_output
from .test_git_confined import SANDBOX_IDENTITY, fsmonitor_config, git, host_status, repo

pytestmark = [needs_bwrap, pytest.mark.timeout(120)]

ENV_RULE = {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"}
SECRET = "SECRET=hunter2\n"


def printable(config: str) -> str:
    return config.replace("\n", "\\n").replace("\t", "\\t")


def gitlink(path: str) -> str:
    return f"git update-index --add --cacheinfo 160000,$(git -C '{path}' rev-parse HEAD),'{path}'"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return repo(tmp_path / "project")


@pytest.fixture
def policy(project: Path) -> Iterator[ShellPolicy]:
    engine = PermissionEngine(rules=[ENV_RULE], project_root=project)
    p = ShellPolicy(sandbox="required", permissions=engine)
    yield p
    p.close()


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "host-ran-code"


async def run(project: Path, policy: ShellPolicy, command: str) -> str:
    return text(await bash(context(project, policy), command))


def host_git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


# --- holes: sandbox.gitHistory "auto" ----------------------------------------------------------


async def test_a_nested_repositorys_tracked_env_stays_out_of_reach(project: Path, policy: ShellPolicy) -> None:
    nested = repo(project / "vendor")
    (nested / ".env").write_text(SECRET)
    git(nested, "add", "-f", ".env")
    git(nested, "commit", "-qm", "oops")
    out = await run(project, policy, "cat vendor/.env; git -C vendor show HEAD:.env")
    assert "hunter2" not in out


async def test_a_linked_worktrees_tracked_env_stays_out_of_reach(project: Path, policy: ShellPolicy) -> None:
    linked = project / "wt"
    git(project, "worktree", "add", "-q", str(linked), "-b", "feat")
    (linked / ".env").write_text(SECRET)
    git(linked, "add", "-f", ".env")
    git(linked, "commit", "-qm", "oops")
    out = await run(project, policy, "cat wt/.env; git show feat:.env")
    assert "hunter2" not in out


async def test_a_stashed_env_stays_out_of_reach(project: Path, policy: ShellPolicy) -> None:
    (project / ".env").write_text(SECRET)
    git(project, "stash", "-u")
    git(project, "stash", "apply")
    out = await run(project, policy, "cat .env; git show 'stash@{0}^3:.env'")
    assert "hunter2" not in out


async def test_a_submodules_tracked_env_stays_out_of_reach(tmp_path: Path, project: Path, policy: ShellPolicy) -> None:
    upstream = repo(tmp_path / "upstream")
    (upstream / ".env").write_text(SECRET)
    git(upstream, "add", "-f", ".env")
    git(upstream, "commit", "-qm", "oops")
    git(project, "submodule", "add", "-q", str(upstream), "sm")
    git(project, "commit", "-qm", "submodule")
    out = await run(project, policy, "cat sm/.env; git -C sm show HEAD:.env")
    assert "hunter2" not in out


async def test_a_once_staged_env_stays_out_of_reach(project: Path, policy: ShellPolicy) -> None:
    (project / ".env").write_text(SECRET)
    git(project, "add", "-f", ".env")
    git(project, "reset", "-q", ".env")
    out = await run(
        project,
        policy,
        "git cat-file --batch-all-objects --batch | grep -a hunter; "
        "git fsck --lost-found >/dev/null 2>&1; cat .git/lost-found/other/*",
    )
    assert "hunter2" not in out


async def test_a_command_cannot_untrack_the_env_to_unhide_history(project: Path, policy: ShellPolicy) -> None:
    (project / ".env").write_text(SECRET)
    git(project, "add", "-f", ".env")
    git(project, "commit", "-qm", "oops")
    first = await run(
        project, policy, "git update-index --force-remove .env; printf 'ref: refs/heads/nowhere\\n' > .git/HEAD"
    )
    second = await run(project, policy, "git show main:.env; printf 'ref: refs/heads/main\\n' > .git/HEAD")
    assert "hunter2" not in first + second


async def test_a_command_cannot_drop_every_ref_to_unhide_history(project: Path, policy: ShellPolicy) -> None:
    """The decision is sticky: with the index entry, every ref and HEAD gone, nothing on disk
    says the .env was tracked, but the session saw it once."""
    (project / ".env").write_text(SECRET)
    git(project, "add", "-f", ".env")
    git(project, "commit", "-qm", "oops")
    first = await run(
        project,
        policy,
        "git ls-files -s .env | cut -d' ' -f2 > oid; git update-index --force-remove .env; "
        "git update-ref -d refs/heads/main; printf 'ref: refs/heads/nowhere\\n' > .git/HEAD",
    )
    second = await run(project, policy, "git cat-file -p $(cat oid)")
    assert "hunter2" not in first + second
    assert "is hidden in the sandbox" in second, second


# --- holes: host code through git ---------------------------------------------------------------

SESSION_TMP_ON_HOST = "H=$(awk '$5==\"/tmp\"{print $4}' /proc/self/mountinfo | head -1); "


async def test_a_submodule_work_tree_in_the_sessions_tmp_runs_nothing(
    project: Path, policy: ShellPolicy, marker: Path
) -> None:
    command = (
        SANDBOX_IDENTITY
        + SESSION_TMP_ON_HOST
        + (
            "git init -q n && git -C n commit -q --allow-empty -m x && "
            "mkdir -p /tmp/wt && git init -q /tmp/wt/sub && git -C /tmp/wt/sub commit -q --allow-empty -m y && "
            'mv /tmp/wt/sub/.git /tmp/evilgd && echo "gitdir: $H/evilgd" > /tmp/wt/sub/.git && '
            f"printf '{printable(fsmonitor_config(marker))}' >> /tmp/evilgd/config && "
            "git -C n update-index --add --cacheinfo 160000,$(git --git-dir=/tmp/evilgd rev-parse HEAD),sub && "
            f"{gitlink('n')} && git config --file n/.git/config core.worktree $H/wt"
        )
    )
    await run(project, policy, command)
    host_status(project)
    assert not marker.exists()


def background_plant(marker: Path) -> str:
    return SANDBOX_IDENTITY + (
        "git init -q sub && git -C sub commit -q --allow-empty -m x && "
        f"printf '{printable(fsmonitor_config(marker))}' >> sub/.git/config && {gitlink('sub')}; "
        "echo planted; sleep 600"
    )


async def until_exists(path: Path, within: float = 15.0) -> None:
    deadline = time.monotonic() + within
    while not path.exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        await asyncio.sleep(0.02)


async def test_a_running_background_shells_plant_runs_nothing_meanwhile(
    project: Path, policy: ShellPolicy, marker: Path
) -> None:
    """The live check (`gitwatch`) moves the planted config aside while the shell still runs."""
    ctx = context(project, policy)
    sid = shell_id(await bash(ctx, background_plant(marker), run_in_background=True))
    await until_output(ctx, sid, "planted")
    await until_exists(project / "sub" / ".git" / f"config{QUARANTINE_SUFFIX}")
    assert policy.background(ctx.session_id).running == 1  # moved aside before the shell ended
    host_status(project)
    assert not marker.exists()
    assert any("moved" in note and "core.fsmonitor" in note for note in policy.take_exits(ctx.session_id))


async def test_a_hook_a_running_background_shell_plants_in_a_nested_repository_is_moved_aside_meanwhile(
    project: Path, policy: ShellPolicy, marker: Path
) -> None:
    """A git dir that existed before the shell: inotify wakes the live check."""
    git(project, "init", "-q", "vendored")
    hook = f"#!/bin/sh\\ntouch {marker}\\n"
    ctx = context(project, policy)
    command = f"printf '{hook}' > vendored/.git/hooks/pre-commit; chmod +x vendored/.git/hooks/pre-commit; echo planted; sleep 600"
    sid = shell_id(await bash(ctx, command, run_in_background=True))
    await until_output(ctx, sid, "planted")
    await until_exists(project / "vendored" / ".git" / f"hooks{QUARANTINE_SUFFIX}")
    assert policy.background(ctx.session_id).running == 1
    host_git(
        project / "vendored", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x"
    )
    assert not marker.exists()


async def test_the_live_check_stops_when_no_background_shell_runs(project: Path, policy: ShellPolicy) -> None:
    ctx = context(project, policy)
    sid = shell_id(await bash(ctx, "echo started; sleep 600", run_in_background=True))
    await until_output(ctx, sid, "started")
    assert policy.watching_git(ctx.session_id)
    await policy.background(ctx.session_id).get(sid).kill()  # type: ignore[union-attr]
    deadline = time.monotonic() + 10
    while policy.watching_git(ctx.session_id):
        assert time.monotonic() < deadline, "the live check still runs"
        await asyncio.sleep(0.02)


HUSKY_RUNNER = '#!/bin/sh\nexec sh -e "$(dirname "$0")/../$(basename "$0")" "$@"\n'  # husky 9's `_/h`, in short


async def test_a_husky_hook_script_cannot_be_replaced(project: Path, policy: ShellPolicy, marker: Path) -> None:
    runner = project / ".husky" / "_"
    runner.mkdir(parents=True)
    (runner / "pre-commit").write_text(HUSKY_RUNNER)
    (runner / "pre-commit").chmod(0o755)
    (project / ".husky" / "pre-commit").write_text("npm test\n")
    git(project, "config", "core.hooksPath", ".husky/_")
    await run(project, policy, f"echo 'touch {marker}' > .husky/pre-commit")
    host_git(project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "mine")
    assert not marker.exists()


async def test_a_hooks_path_named_underscore_at_the_top_keeps_the_project_writable(
    project: Path, policy: ShellPolicy
) -> None:
    """Husky's layout makes `_`'s parent read-only, but never the work tree itself."""
    (project / "_").mkdir()
    git(project, "config", "core.hooksPath", "_")
    out = await run(project, policy, "echo ok > written && cat written")
    assert "ok" in out and (project / "written").read_text() == "ok\n", out


# --- attacks that held ---------------------------------------------------------------------------


async def test_a_daemon_a_call_leaves_behind_does_not_outlive_it(project: Path, policy: ShellPolicy) -> None:
    late = project / "written-after-the-check"
    out = await run(
        project,
        policy,
        f"(setsid sh -c 'sleep 1; touch {late}' >/dev/null 2>&1 &); "
        f"nohup sh -c 'sleep 1; touch {late}' >/dev/null 2>&1 & disown; echo started",
    )
    assert "started" in out
    # Something that outlived the call would write within a second; a host process we do not parent
    # cannot be awaited, so a second sandboxed call (which starts after the first call's clean-up) waits.
    await run(project, policy, "sleep 2")
    assert not late.exists()


async def test_a_config_rewritten_to_the_same_size_and_time_is_caught(
    project: Path, policy: ShellPolicy, marker: Path
) -> None:
    evil = fsmonitor_config(marker)
    benign = "[core]\n\tbare = false\n"
    benign += "#" * (len(evil) - len(benign) - 1) + "\n"
    stamp = "touch -d '2020-01-01 00:00:00' vend/.git/config"
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + "git init -q vend && git -C vend commit -q --allow-empty -m x && "
        f"printf '{printable(benign)}' > vend/.git/config && {stamp}",
    )
    await run(
        project,
        policy,
        f"printf '{printable(evil)}' > /tmp/c && cat /tmp/c > vend/.git/config && {stamp} && {gitlink('vend')}",
    )
    host_status(project)
    assert not marker.exists()


async def test_retargeting_a_symlink_under_a_git_file_is_caught(
    project: Path, policy: ShellPolicy, marker: Path
) -> None:
    # The planted git dir is not named .git, so only following the chain reaches it.
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + "git init -q n && git -C n commit -q --allow-empty -m x && "
        "cp -r n/.git good && cp -r n/.git bad && "
        f"printf '{printable(fsmonitor_config(marker))}' >> bad/config && "
        f"ln -s good link && rm -rf n/.git && echo 'gitdir: ../link' > n/.git && {gitlink('n')}",
    )
    await run(project, policy, "ln -sfn bad link")
    host_status(project)
    assert not marker.exists()


async def test_renaming_a_folder_under_a_git_file_is_caught(project: Path, policy: ShellPolicy, marker: Path) -> None:
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + "git init -q n && git -C n commit -q --allow-empty -m x && "
        "mkdir store other && cp -r n/.git store/x && cp -r n/.git other/x && "
        f"printf '{printable(fsmonitor_config(marker))}' >> other/x/config && "
        f"rm -rf n/.git && echo 'gitdir: ../store/x' > n/.git && {gitlink('n')}",
    )
    await run(project, policy, "mv store store_old && mv other store")
    host_status(project)
    assert not marker.exists()


async def test_a_new_commondir_into_the_sessions_tmp_is_caught(
    project: Path, policy: ShellPolicy, marker: Path
) -> None:
    command = (
        SANDBOX_IDENTITY
        + SESSION_TMP_ON_HOST
        + (
            "git init -q n && git -C n commit -q --allow-empty -m x && mkdir -p /tmp/cd && cp -r n/.git/. /tmp/cd/ && "
            f"printf '{printable(fsmonitor_config(marker))}' >> /tmp/cd/config && {gitlink('n')} && "
            "echo $H/cd > n/.git/commondir"
        )
    )
    await run(project, policy, command)
    host_status(project)
    assert not marker.exists()


async def test_a_new_config_worktree_is_caught(project: Path, policy: ShellPolicy, marker: Path) -> None:
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + "git init -q n && git -C n commit -q --allow-empty -m x && "
        "git config --file n/.git/config core.repositoryformatversion 1 && "
        "git config --file n/.git/config extensions.worktreeConfig true && "
        f"printf '{printable(fsmonitor_config(marker))}' > n/.git/config.worktree && {gitlink('n')}",
    )
    host_status(project)
    assert not marker.exists()


async def test_a_submodule_path_with_a_newline_is_caught(project: Path, policy: ShellPolicy, marker: Path) -> None:
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + 'd=$\'a\\nb\'; git init -q "$d" && git -C "$d" commit -q --allow-empty -m x && '
        f"printf '{printable(fsmonitor_config(marker))}' >> \"$d/.git/config\" && "
        'git update-index --add --cacheinfo 160000,$(git -C "$d" rev-parse HEAD),"$d"',
    )
    host_status(project)
    assert not marker.exists()


async def test_a_submodule_planted_after_thousands_of_new_folders_is_caught(
    project: Path, policy: ShellPolicy, marker: Path
) -> None:
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + "for i in $(seq 1 3000); do mkdir -p f/$i; done; "
        "git init -q f/1/n && git -C f/1/n commit -q --allow-empty -m x && "
        f"printf '{printable(fsmonitor_config(marker))}' >> f/1/n/.git/config && {gitlink('f/1/n')}",
    )
    host_status(project)
    assert not marker.exists()


@pytest.mark.parametrize(
    "line",
    ["exec touch {m}", "  \\t exec touch {m}", "x\\ttouch {m}"],
    ids=["exec", "indented", "short-with-tab"],
)
async def test_exec_lines_in_a_planted_todo_are_commented_out_every_time(
    project: Path, policy: ShellPolicy, marker: Path, line: str
) -> None:
    todo = ".git/rebase-merge/git-rebase-todo"
    planted = f"printf '{line.format(m=marker)}\\n' > {todo}"
    await run(
        project,
        policy,
        "mkdir -p .git/rebase-merge && echo refs/heads/main > .git/rebase-merge/head-name && "
        "git rev-parse HEAD > .git/rebase-merge/onto && git rev-parse HEAD > .git/rebase-merge/orig-head && "
        f"touch .git/rebase-merge/interactive && {planted}",
    )
    # Planted again: the commented-out line at launch must not make the same line count as the user's.
    await run(project, policy, planted)
    host_git(project, "rebase", "--continue")
    assert not marker.exists()


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("core.sshCommand", "x"),
        ("core.fsmonitor", "0x1"),
        ("core.alternateRefsCommand", "x"),
        ("protocol.ext.allow", "always"),
        ("url.ext::sh.insteadOf", "https"),
        ("remote.o.vcs", "x"),
        ("submodule.x.update", "!x"),
        ("pull.twohead", "x"),
        ("diff.x.textconv", "x"),
        ("gpg.ssh.defaultKeyCommand", "x"),
    ],
)
async def test_program_running_keys_in_a_new_config_are_quarantined(
    project: Path, policy: ShellPolicy, key: str, value: str
) -> None:
    await run(project, policy, f"git init -q n && git config --file n/.git/config '{key}' '{value}'")
    quarantined = project / "n" / ".git" / "config.skawld-quarantine"
    assert quarantined.is_file()
    assert host_git(project / "n", "config", "--file", str(quarantined), key).stdout.strip() == value


async def test_a_background_shells_plant_is_quarantined_when_the_agent_closes(project: Path, marker: Path) -> None:
    agent = Agent(
        provider=ScriptedProvider([]),
        model="m",
        session_store=InMemorySessionStore(),
        cwd=project,
        sandbox="required",
    )
    ctx = context(project, agent.shell_policy)
    sid = shell_id(await bash(ctx, background_plant(marker), run_in_background=True))
    await until_output(ctx, sid, "planted")
    await agent.close()
    host_status(project)
    assert not marker.exists()
    assert (project / "sub" / ".git" / "config.skawld-quarantine").is_file()


async def test_a_submodule_path_that_is_not_utf8_is_caught(project: Path, policy: ShellPolicy, marker: Path) -> None:
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + 'd=$\'\\xff\\xfe\'; git init -q "$d" && git -C "$d" commit -q --allow-empty -m x && '
        f"printf '{printable(fsmonitor_config(marker))}' >> \"$d/.git/config\" && "
        'git update-index --add --cacheinfo 160000,$(git -C "$d" rev-parse HEAD),"$d"',
    )
    host_status(project)
    assert not marker.exists()


async def test_a_git_symlink_into_the_sessions_tmp_is_caught(project: Path, policy: ShellPolicy, marker: Path) -> None:
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + SESSION_TMP_ON_HOST + "git init -q n && git -C n commit -q --allow-empty -m x && "
        "mv n/.git /tmp/ngd && ln -s $H/ngd n/.git && "
        f"printf '{printable(fsmonitor_config(marker))}' >> /tmp/ngd/config && {gitlink('n')}",
    )
    host_status(project)
    assert not marker.exists()


@pytest.mark.parametrize("blocker", ["mkdir -p {q}/x/y", "echo keep > {q}"], ids=["full-folder", "file"])
async def test_a_taken_quarantine_name_does_not_keep_the_config(
    project: Path, policy: ShellPolicy, marker: Path, blocker: str
) -> None:
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + "git init -q n && git -C n commit -q --allow-empty -m x && "
        f"{blocker.format(q='n/.git/config.skawld-quarantine')} && "
        f"printf '{printable(fsmonitor_config(marker))}' >> n/.git/config && {gitlink('n')}",
    )
    host_status(project)
    assert not marker.exists()


async def test_a_hook_for_git_submodule_update_is_moved_aside(project: Path, policy: ShellPolicy, marker: Path) -> None:
    hook = f"#!/bin/sh\\ntouch {marker}\\n"
    await run(
        project,
        policy,
        SANDBOX_IDENTITY + "git init -q n && git -C n commit -q --allow-empty -m one && "
        "git -C n commit -q --allow-empty -m two && mkdir -p n/.git/hooks.skawld-quarantine/a && "
        f"printf '{hook}' > n/.git/hooks/post-checkout && chmod +x n/.git/hooks/post-checkout && "
        "git update-index --add --cacheinfo 160000,$(git -C n rev-parse HEAD~1),n && "
        "printf '[submodule \"n\"]\\n\\tpath = n\\n\\turl = ./n\\n' > .gitmodules && "
        "git add .gitmodules && git commit -qm s",
    )
    done = host_git(project, "-c", "protocol.file.allow=always", "submodule", "update", "--init")
    assert "checked out" in done.stdout  # the hook's moment came
    assert not marker.exists()


async def test_exec_in_a_linked_worktrees_rebase_is_commented_out(
    project: Path, policy: ShellPolicy, marker: Path
) -> None:
    linked = project / "wt"
    git(project, "worktree", "add", "-q", str(linked), "-b", "side")
    state = ".git/worktrees/wt/rebase-merge"
    await run(
        project,
        policy,
        f"mkdir -p {state} && echo refs/heads/side > {state}/head-name && "
        f"git rev-parse HEAD > {state}/onto && git rev-parse HEAD > {state}/orig-head && "
        f"echo 'exec touch {marker}' > {state}/git-rebase-todo && touch {state}/interactive",
    )
    host_git(linked, "rebase", "--continue")
    assert not marker.exists()


async def test_a_background_shells_daemon_does_not_plant_after_its_check(
    project: Path, policy: ShellPolicy, marker: Path
) -> None:
    late = project / "written-after-the-check"
    payload = f"sleep 1; touch {late}; " + background_plant(marker).replace("; echo planted; sleep 600", "")
    (project / "payload.sh").write_text(payload)
    ctx = context(project, policy)
    command = "(setsid sh payload.sh >/dev/null 2>&1 &); nohup sh payload.sh >/dev/null 2>&1 & disown; echo launched"
    sid = shell_id(await bash(ctx, command, run_in_background=True))
    await until_output(ctx, sid, "exit")
    await run(project, policy, "sleep 3")  # a survivor would have written by now
    host_status(project)
    assert not late.exists()
    assert not marker.exists()


async def test_a_tracked_env_is_out_of_reach_through_alternates_proc_and_clones(
    project: Path, policy: ShellPolicy
) -> None:
    (project / ".env").write_text(SECRET)
    git(project, "add", "-f", ".env")
    git(project, "commit", "-qm", "oops")
    git(project, "gc", "-q")
    command = (
        "b=$(git ls-files -s .env | cut -d' ' -f2); git init -q /tmp/x; "
        "for p in $PWD/.git/objects /proc/self/root$PWD/.git/objects /proc/1/cwd/.git/objects; do "
        "echo $p > /tmp/x/.git/objects/info/alternates; git -C /tmp/x cat-file -p $b; done; "
        "cat .git/objects/pack/* .git/objects/??/* 2>/dev/null | strings | grep -a hunter; "
        "git clone -q --no-local $PWD /tmp/c; cat /tmp/c/.env; git log -p --all | grep hunter"
    )
    out = await run(project, policy, command)
    assert "Not a valid object name" in out  # the blob id is known; its content is not
    assert "hunter2" not in out
