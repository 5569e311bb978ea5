"""Checkpoints on real git repositories: a Bash `sed -i`, an Edit, a new file and
a deleted file across prompts, then rewinding code only, conversation only and
both. The user's `.git` is byte-identical before and after; ignored files are
never touched."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from skawld_core import Agent
from skawld_core.checkpoints import CheckpointEngine, CheckpointError
from skawld_core.checkpoints.borrow import alternates_file
from skawld_core.sessions import SqliteSessionStore
from skawld_core.sessions.meta import prompt_points
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import default_tools

GIT_ENV = {"GIT_AUTHOR_NAME": "u", "GIT_AUTHOR_EMAIL": "u@x", "GIT_COMMITTER_NAME": "u", "GIT_COMMITTER_EMAIL": "u@x"}


def git(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    out = subprocess.run(["git", *args], cwd=repo, env={**env, **GIT_ENV}, check=True, capture_output=True, text=True)
    return out.stdout


def dot_git_hashes(repo: Path) -> dict[str, str]:
    """SHA-256 of every file under .git (index, HEAD, refs, stash, reflog, objects)."""
    out = {}
    for path in sorted((repo / ".git").rglob("*")):
        if path.is_file():
            out[str(path.relative_to(repo))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A user repository with a commit, a stash entry, an unstaged and a staged change, ignored files."""
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("def answer():\n    return 1\n")
    (repo / "config.txt").write_text("mode = slow\n")
    (repo / "old.txt").write_text("to be deleted\n")
    (repo / ".gitignore").write_text("*.log\nbuild/\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "initial")
    (repo / "config.txt").write_text("mode = stashed\n")
    git(repo, "stash", "-q")
    (repo / "notes.md").write_text("staged notes\n")
    git(repo, "add", "notes.md")
    (repo / "config.txt").write_text("mode = slow\nlocal = 1\n")  # unstaged change
    (repo / "debug.log").write_text("ignored log\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.bin").write_bytes(b"\x00ignored build output")
    (repo / ".git" / "info").mkdir(exist_ok=True)
    (repo / ".git" / "info" / "exclude").write_text("secret.env\n")
    (repo / "secret.env").write_text("TOKEN=1\n")
    return repo


def session_agent(repo: Path, tmp_path: Path, provider: ScriptedProvider) -> Agent:
    return Agent(
        provider=provider,
        model="test-model",
        tools=default_tools(),
        permission_mode="yolo",
        session_store=SqliteSessionStore(tmp_path / "sessions.db"),
        cwd=repo,
        checkpoints=CheckpointEngine(repo, root=tmp_path / "checkpoints"),
    )


def four_prompts_provider() -> ScriptedProvider:
    return ScriptedProvider(
        [
            reply(tool_call("Bash", {"command": "sed -i 's/slow/fast/' config.txt"})),
            reply("sed done"),
            reply(tool_call("Read", {"file_path": "app.py"})),
            reply(tool_call("Edit", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 42"})),
            reply("edited"),
            reply(tool_call("Write", {"file_path": "src/new_module.py", "content": "NEW = True\n"})),
            reply("created"),
            reply(tool_call("Bash", {"command": "rm old.txt && echo more >> debug.log"})),
            reply("deleted"),
        ]
    )


async def run_four_prompts(agent: Agent) -> str:
    session = await agent.session()
    for prompt in ("make it fast", "answer 42", "add a module", "remove old.txt"):
        async with session.run(prompt) as run:
            events = [e async for e in run]
        assert events[-1].type == "result" and events[-1].subtype == "success"  # type: ignore[attr-defined]
    return session.id


def state(repo: Path) -> dict[str, str]:
    """Every file of the work tree outside .git, with its content."""
    return {
        str(p.relative_to(repo)): p.read_bytes().decode("utf-8", "replace")
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


async def test_every_prompt_gets_a_checkpoint_and_changes_are_real(repo: Path, tmp_path: Path) -> None:
    before = state(repo)
    agent = session_agent(repo, tmp_path, four_prompts_provider())
    session_id = await run_four_prompts(agent)
    assert (repo / "config.txt").read_text() == "mode = fast\nlocal = 1\n"
    assert "return 42" in (repo / "app.py").read_text()
    assert (repo / "src" / "new_module.py").exists() and not (repo / "old.txt").exists()
    record = await agent.store.load(session_id)
    assert record is not None
    messages = [m.message for m in await agent.store.load_messages(session_id)]
    points = prompt_points(record.meta, messages)
    assert [p.text for p in points] == ["make it fast", "answer 42", "add a module", "remove old.txt"]
    assert all(p.commit and len(p.commit) == 40 for p in points)
    assert len({p.commit for p in points}) == 4  # each prompt saw a different tree
    assert record.meta["title"] == "make it fast"
    await agent.close()
    assert before["config.txt"] == "mode = slow\nlocal = 1\n"


@pytest.mark.parametrize("what", ["code", "conversation", "both"])
async def test_rewind_to_before_the_first_prompt(repo: Path, tmp_path: Path, what: str) -> None:
    before_files = state(repo)
    status_before = git(repo, "--no-optional-locks", "status", "--porcelain=v1", "-uall")
    stash_before = git(repo, "stash", "list")
    git_before = dot_git_hashes(repo)
    agent = session_agent(repo, tmp_path, four_prompts_provider())
    session_id = await run_four_prompts(agent)
    after_files = state(repo)
    assert dot_git_hashes(repo) == git_before
    status_after_run = git(repo, "--no-optional-locks", "status", "--porcelain=v1", "-uall")
    assert status_after_run != status_before
    store = agent.store
    original = [m.message for m in await store.load_messages(session_id)]
    session = await agent.session(session_id)
    first = prompt_points(session.meta, session.full_history)[0]
    engine = agent.checkpoints
    assert engine is not None and first.commit is not None

    if what in ("code", "both"):
        result = await engine.restore(first.commit)
        assert sorted(result.written) == ["app.py", "config.txt", "old.txt"]
        assert result.deleted == ["src/new_module.py"]
        expected = dict(before_files)
        expected["debug.log"] = after_files["debug.log"]  # ignored: never restored
        assert state(repo) == expected
        assert not (repo / "src").exists()  # the emptied folder is gone too
    else:
        assert state(repo) == after_files
    if what in ("conversation", "both"):
        fork = await session.fork(upto=first.index)
        assert fork.id != session_id and fork.full_history == []
        assert fork.meta["forked_from"] == session_id and fork.meta["forked_at"] == first.index
    # the original conversation is never rewritten
    assert [m.message for m in await store.load_messages(session_id)] == original

    assert dot_git_hashes(repo) == git_before
    status = git(repo, "--no-optional-locks", "status", "--porcelain=v1", "-uall")
    assert status == (status_after_run if what == "conversation" else status_before)
    assert git(repo, "stash", "list") == stash_before
    assert git(repo, "rev-parse", "HEAD") == git(repo, "rev-parse", "main")
    assert (repo / "debug.log").read_text().startswith("ignored log\n")
    assert (repo / "build" / "out.bin").read_bytes() == b"\x00ignored build output"
    assert (repo / "secret.env").read_text() == "TOKEN=1\n"
    await agent.close()


async def test_rewind_middle_prompt_and_undo_the_rewind(repo: Path, tmp_path: Path) -> None:
    agent = session_agent(repo, tmp_path, four_prompts_provider())
    session_id = await run_four_prompts(agent)
    after = state(repo)
    session = await agent.session(session_id)
    points = prompt_points(session.meta, session.full_history)
    engine = agent.checkpoints
    assert engine is not None and points[2].commit
    result = await engine.restore(points[2].commit)  # before "add a module": sed and edit stay
    assert (repo / "config.txt").read_text() == "mode = fast\nlocal = 1\n"
    assert "return 42" in (repo / "app.py").read_text()
    assert not (repo / "src").exists() and (repo / "old.txt").exists()
    await engine.restore(result.backup)  # the rewind itself can be undone
    assert state(repo) == after
    await agent.close()


async def test_snapshot_ignores_shadow_user_state_and_skips_large_files(repo: Path, tmp_path: Path) -> None:
    engine = CheckpointEngine(repo, root=tmp_path / "cp", max_file_bytes=1000)
    (repo / "big.dat").write_bytes(b"x" * 5000)
    git_before = dot_git_hashes(repo)
    snap = await engine.snapshot()
    assert snap.skipped_large == ["big.dat"]
    tree = subprocess.run(
        ["git", f"--git-dir={engine.git_dir}", "ls-tree", "-r", "--name-only", snap.commit],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert "big.dat" not in tree and "debug.log" not in tree and "secret.env" not in tree
    assert "build/out.bin" not in tree and "notes.md" in tree and "app.py" in tree
    assert not (engine.git_dir / "objects").is_relative_to(repo)
    (repo / "big.dat").write_bytes(b"small")  # under the cap now: included next time
    again = await engine.snapshot()
    assert again.skipped_large == []
    (repo / "big.dat").write_bytes(b"y" * 5000)
    await engine.restore(snap.commit)
    assert (repo / "big.dat").read_bytes() == b"y" * 5000  # skipped at that snapshot: left alone
    assert dot_git_hashes(repo) == git_before


async def test_a_first_snapshot_borrows_the_project_objects_then_stands_alone(repo: Path, tmp_path: Path) -> None:
    engine = CheckpointEngine(repo, root=tmp_path / "cp")
    git_before = dot_git_hashes(repo)
    snap = await engine.snapshot()
    assert not alternates_file(engine.git_dir).exists()  # repacked, no longer borrowing
    counts = dict(
        line.split(": ")
        for line in git(engine.git_dir, f"--git-dir={engine.git_dir}", "count-objects", "-v").splitlines()
    )
    assert counts["count"] == "0" and int(counts["in-pack"]) >= 6  # blobs, trees, the commit: one pack
    assert dot_git_hashes(repo) == git_before  # the project's .git was only read
    (repo / "app.py").write_text("broken\n")
    (repo / "config.txt").unlink()
    shutil.rmtree(repo / ".git" / "objects")  # the project loses every object (say, a gc after a rewrite)
    await engine.restore(snap.commit)
    assert (repo / "app.py").read_text() == "def answer():\n    return 1\n"
    assert (repo / "config.txt").read_text() == "mode = slow\nlocal = 1\n"


async def test_no_change_reuses_the_last_checkpoint(repo: Path, tmp_path: Path) -> None:
    engine = CheckpointEngine(repo, root=tmp_path / "cp")
    first = await engine.snapshot()
    second = await engine.snapshot()
    assert second.commit == first.commit and second.changed == 0
    (repo / "app.py").write_text("changed\n")
    third = await engine.snapshot()
    assert third.commit != first.commit and third.changed == 1


async def test_bad_checkpoint_ids_and_home_are_refused(repo: Path, tmp_path: Path) -> None:
    engine = CheckpointEngine(repo, root=tmp_path / "cp")
    await engine.snapshot()
    with pytest.raises(CheckpointError, match="not a checkpoint id"):
        await engine.restore("not-a-sha; rm -rf /")
    with pytest.raises(CheckpointError, match="no checkpoint"):
        await engine.restore("0" * 40)
    home = CheckpointEngine(tmp_path, root=tmp_path / "cp", env={"HOME": str(tmp_path)})
    with pytest.raises(CheckpointError, match="refusing"):
        await home.snapshot()


async def test_a_project_without_git_is_checkpointed_too(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("one")
    engine = CheckpointEngine(plain, root=tmp_path / "cp")
    snap = await engine.snapshot()
    (plain / "a.txt").write_text("two")
    (plain / "b.txt").write_text("new")
    await engine.restore(snap.commit)
    assert (plain / "a.txt").read_text() == "one" and not (plain / "b.txt").exists()
    assert not (plain / ".git").exists()


async def test_two_engines_on_one_project_take_turns_and_a_stale_lock_is_cleared(repo: Path, tmp_path: Path) -> None:
    import asyncio

    one = CheckpointEngine(repo, root=tmp_path / "cp")
    two = CheckpointEngine(repo, root=tmp_path / "cp")
    await one.snapshot()
    (one.git_dir / "index.lock").write_text("left by a killed git")
    (repo / "app.py").write_text("concurrent\n")
    first, second = await asyncio.gather(one.snapshot(), two.snapshot())
    assert first.commit == second.commit and sorted([first.changed, second.changed]) == [0, 1]
    assert not (one.git_dir / "index.lock").exists()


async def test_a_huge_tree_outside_git_is_refused(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    for i in range(30):
        (plain / f"f{i}.txt").write_text("x")
    engine = CheckpointEngine(plain, root=tmp_path / "cp", max_files_outside_git=20)
    with pytest.raises(CheckpointError, match="more than 20 files outside a git repository"):
        await engine.snapshot()
    assert not (tmp_path / "cp").exists()  # nothing was written


async def test_tools_wait_for_the_prompt_snapshot(repo: Path, tmp_path: Path) -> None:
    import asyncio

    from skawld_core.checkpoints import Snapshot

    release = asyncio.Event()
    started = asyncio.Event()

    class SlowEngine(CheckpointEngine):
        async def snapshot(self, message: str = "checkpoint") -> Snapshot:
            started.set()
            await release.wait()
            return await super().snapshot(message)

    provider = ScriptedProvider([reply(tool_call("Bash", {"command": "echo done > marker.txt"})), reply("ok")])
    agent = Agent(
        provider=provider,
        model="test-model",
        tools=default_tools(),
        permission_mode="yolo",
        session_store=SqliteSessionStore(tmp_path / "s.db"),
        cwd=repo,
        checkpoints=SlowEngine(repo, root=tmp_path / "cp"),
    )
    session = await agent.session()

    async def drive() -> None:
        async with session.run("mark it") as run:
            async for _ in run:
                pass

    task = asyncio.create_task(drive())
    await started.wait()
    while not provider.requests:  # the first request goes out while the snapshot is pending
        await asyncio.sleep(0.01)
    assert not (repo / "marker.txt").exists()
    release.set()
    await task
    assert (repo / "marker.txt").exists()
    (point,) = prompt_points(session.meta, session.full_history)
    tree = git(repo, f"--git-dir={agent.checkpoints.git_dir}", "ls-tree", "-r", "--name-only", point.commit or "")  # type: ignore[union-attr]
    assert "app.py" in tree and "marker.txt" not in tree
    await agent.close()
