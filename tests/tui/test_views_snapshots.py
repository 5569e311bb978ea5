"""Snapshots of the `/hooks` and `/memory` views (pilot tests of what they do:
tests/tui/test_commands_app.py). Paths are fixed so the pictures are the same everywhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from skawld_core.settings import CliOptions, resolve_settings
from skawld_tui.app.widgets.blocks import CommandOutput, NoteLine

from .helpers import SIZE, make_app, ready, send, until


def fixed_dir(name: str) -> Path:
    root = Path("/tmp") / name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir()
    return root


def test_hooks_view_snapshot(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    root = fixed_dir("skawld-hooks-snapshot")
    home, repo = root / "home", root / "repo"
    (home / ".skawld").mkdir(parents=True)
    (repo / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (home / ".skawld" / "config.json").write_text(json.dumps({"hooks": {"Stop": [{"command": "notify-send done"}]}}))
    claude = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}],
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "ruff format"}]}],
    }
    (repo / ".claude" / "settings.json").write_text(json.dumps({"hooks": claude}))
    app = make_app([], cwd=repo)
    app.settings = resolve_settings(CliOptions(cwd=str(repo), accept_project_config=True))

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "/hooks")
        await until(lambda: bool(app.query(CommandOutput)), pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_memory_view_snapshot(snap_compare: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    root = fixed_dir("skawld-memory-snapshot")
    editor = root / "editor.sh"
    editor.write_text('#!/bin/sh\nfor f in "$@"; do echo "- edited" >> "$f"; done\n')
    editor.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(editor))
    files = [root / "AGENTS.md", root / "CLAUDE.md"]
    for path in files:
        path.write_text("# Rules\n")
    app = make_app([], cwd=root)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        assert app.agent is not None
        app.agent.instruction_files = [str(f) for f in files]
        await send(pilot, "/memory")
        await until(lambda: any("next skawld" in str(n.render()) for n in app.query(NoteLine)), pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    assert all(f.read_text() == "# Rules\n- edited\n" for f in files)
