"""Checkpoints never store what a Read deny rule covers, and sandboxed Bash cannot
read the checkpoint store (`~/.skawld` is emptied inside the sandbox)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from skawld_core import Agent
from skawld_core.checkpoints import CheckpointEngine
from skawld_core.from_config import project_checkpoints
from skawld_core.permissions import PermissionEngine
from skawld_core.permissions.sandbox_spec import read_denied_paths
from skawld_core.sandbox import ShellPolicy
from skawld_core.settings import CliOptions, resolve_settings
from skawld_core.testing import ScriptedProvider

from .conftest import bash, context, needs_bwrap, text

pytestmark = pytest.mark.timeout(60)

SECRET = "API_KEY=hunter2\n"
DENY_ENV = {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"}


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home outside /tmp (the sandbox's /tmp is private, which would hide it anyway)."""
    path = Path(tempfile.mkdtemp(prefix="skawld-home-", dir="/var/tmp"))
    monkeypatch.setenv("HOME", str(path))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def secret_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".env").write_text(SECRET)
    (root / "sub" / ".env").write_text("NESTED=1\n")
    (root / "app.py").write_text("print('hi')\n")
    return root


def blob_stored(store: Path, content: str) -> bool:
    sha = subprocess.run(
        ["git", "hash-object", "--stdin"], input=content, capture_output=True, text=True, check=True
    ).stdout.strip()
    found = subprocess.run(["git", f"--git-dir={store}", "cat-file", "-e", sha], capture_output=True, check=False)
    return found.returncode == 0


async def test_a_snapshot_stores_no_read_denied_file(home: Path, secret_project: Path) -> None:
    agent = Agent(
        model="test", provider=ScriptedProvider([]), cwd=secret_project, permission_rules=[DENY_ENV], checkpoints=True
    )
    engine = agent.checkpoints
    assert engine is not None
    snap = await engine.snapshot("before")
    assert engine.git_dir.is_relative_to(home / ".skawld")
    assert not blob_stored(engine.git_dir, SECRET) and not blob_stored(engine.git_dir, "NESTED=1\n")
    assert blob_stored(engine.git_dir, "print('hi')\n")  # the rest is stored
    assert await engine.file_at(snap.commit, ".env") is None


async def test_a_rule_added_later_drops_the_file_from_the_next_snapshot(home: Path, secret_project: Path) -> None:
    permissions = PermissionEngine(project_root=secret_project)
    engine = CheckpointEngine(secret_project, exclude=lambda: read_denied_paths(permissions))
    first = await engine.snapshot("before the rule")
    assert await engine.file_at(first.commit, ".env") == SECRET.encode()
    permissions.add_rule(DENY_ENV)
    (secret_project / "app.py").write_text("print('changed')\n")
    second = await engine.snapshot("after the rule")
    assert await engine.file_at(second.commit, ".env") is None
    assert await engine.file_at(second.commit, "app.py") == b"print('changed')\n"


@needs_bwrap
async def test_sandboxed_bash_cannot_read_the_checkpoint_store(home: Path, secret_project: Path) -> None:
    permissions = PermissionEngine(project_root=secret_project)  # no rule: the store holds .env
    engine = CheckpointEngine(secret_project)
    await engine.snapshot("before")
    assert blob_stored(engine.git_dir, SECRET)
    (home / ".skawld" / "skills" / "tool").mkdir(parents=True)
    (home / ".skawld" / "skills" / "tool" / "run.sh").write_text("echo skill-script\n")
    policy = ShellPolicy(sandbox="required", permissions=permissions)
    try:
        command = (
            f"git --git-dir={engine.git_dir} log --all -p; ls -A ~/.skawld; "
            "sh ~/.skawld/skills/tool/run.sh; echo x > ~/.skawld/skills/tool/new"
        )
        result = text(await bash(context(secret_project, policy), command))
    finally:
        policy.close()
    assert "hunter2" not in result
    assert "skill-script" in result  # skills stay readable: their scripts run from Bash
    assert "Read-only file system" in result
    assert not (home / ".skawld" / "skills" / "tool" / "new").exists()


async def test_the_command_lines_engine_excludes_the_configs_deny_rules(home: Path, secret_project: Path) -> None:
    # `skawld checkpoints restore` snapshots before restoring: that snapshot obeys the rules too.
    (home / ".skawld").mkdir()
    (home / ".skawld" / "config.json").write_text(json.dumps({"permissions": {"rules": [DENY_ENV]}}))
    settings = resolve_settings(CliOptions(cwd=str(secret_project)), env={"HOME": str(home)})
    engine = project_checkpoints(settings)
    await engine.snapshot("before")
    assert not blob_stored(engine.git_dir, SECRET)
    assert blob_stored(engine.git_dir, "print('hi')\n")
