"""The `.skawld/.gitignore` skawld writes: checked with real `git status`."""

from __future__ import annotations

import subprocess
from pathlib import Path

from skawld_core.project_dir import GITIGNORE_TEXT, ensure_local_dir
from skawld_core.sessions import SqliteSessionStore


def porcelain(repo: Path) -> set[str]:
    out = subprocess.run(
        ["git", "status", "--porcelain=v1", "-uall"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout
    return {line[3:] for line in out.splitlines()}


def git_repo(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


async def test_first_store_write_ignores_private_files_and_keeps_config_visible(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    store = SqliteSessionStore(cwd=repo)
    session = await store.create(meta={"title": "secret conversation"})
    await store.append_messages(session.id, [])
    dot = repo / ".skawld"
    assert (dot / ".gitignore").read_text() == GITIGNORE_TEXT
    for name in ("config.json", "skills/review/SKILL.md", "agents/reviewer.md", "commands/ship.md"):
        (dot / name).parent.mkdir(parents=True, exist_ok=True)
        (dot / name).write_text("{}\n")
    for name in ("settings.local.json", "mcp.local.json", "logs/mcp-x.log", "history", "checkpoints/x"):
        (dot / name).parent.mkdir(parents=True, exist_ok=True)
        (dot / name).write_text("private\n")
    assert any(p.name.startswith("sessions.db") for p in dot.iterdir())
    await store.close()
    assert porcelain(repo) == {
        ".skawld/.gitignore",
        ".skawld/config.json",
        ".skawld/skills/review/SKILL.md",
        ".skawld/agents/reviewer.md",
        ".skawld/commands/ship.md",
    }


async def test_an_existing_gitignore_is_never_overwritten(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    dot = repo / ".skawld"
    dot.mkdir()
    (dot / ".gitignore").write_text("# mine\n*.db\n")
    store = SqliteSessionStore(cwd=repo)
    await store.create()
    await store.close()
    assert (dot / ".gitignore").read_text() == "# mine\n*.db\n"


def test_only_skawld_folders_get_one(tmp_path: Path) -> None:
    ensure_local_dir(tmp_path / "data")
    assert not (tmp_path / "data" / ".gitignore").exists()
    ensure_local_dir(tmp_path / "x" / ".skawld")
    assert (tmp_path / "x" / ".skawld" / ".gitignore").exists()
