"""`/plugin` (and `/agents`) with plugins loaded, in the plain mode (the app runs the same command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_plugins import write, write_agent_plugin

from skawld_core.plugins import load_plugin
from skawld_core.plugins.store import add_marketplace
from skawld_core.testing import ScriptedProvider
from tests.tui.test_commands_plain import chat

pytestmark = pytest.mark.timeout(30)


async def test_plugin_lists_loaded_plugins_and_marketplaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    one = load_plugin(write_agent_plugin(tmp_path / "one", "pr-review-toolkit"), origin="--plugin-dir")
    two = load_plugin(write_agent_plugin(tmp_path / "two", "feature-dev"), origin="--plugin-dir")
    market = tmp_path / "market"
    write_agent_plugin(market / "plugins" / "lint", "lint")
    entry = {"name": "lint", "source": "./plugins/lint", "description": "Lint helpers"}
    write(market / ".claude-plugin" / "marketplace.json", json.dumps({"name": "team", "plugins": [entry]}))
    add_marketplace(str(market))
    out = await chat(["/plugin", "/agents", "/exit"], ScriptedProvider([]), tmp_path, plugins=[one, two])
    assert "pr-review-toolkit 0.1.0" in out and "feature-dev 0.1.0" in out
    assert "lint@team — Lint helpers (not installed)" in out
    assert "pr-review-toolkit:code-reviewer — Reviews code (pr-review-toolkit)" in out
    assert "feature-dev:code-reviewer — Reviews code (feature-dev)" in out
