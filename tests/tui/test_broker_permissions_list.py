"""The app's `/permissions` list: a snapshot, and removing a remembered rule with `d`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from skawld_core.permissions.remembered import remember_allow_rules, remembered_rules
from skawld_core.tools.bash import BashTool
from skawld_tui.app.screens.permissions import PermissionsScreen

from .helpers import SIZE, make_app, ready, send, until

CONFIG_RULES = [
    {"kind": "bash", "pattern": "git status", "decision": "allow"},
    {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"},
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = tmp_path / "project"
    root.mkdir()
    remember_allow_rules(root, ["Bash(npm run test:*)", "Edit(src/**)"])
    return root


def _app(project: Path) -> Any:
    # the saved rules are loaded as a session start would load them (the file's rules, translated)
    from skawld_core.config import load_config

    rules = load_config(cwd=project, ignore_user_config=True).config.permission_rules
    return make_app([], tools=[BashTool()], cwd=project, permission_rules=[*CONFIG_RULES, *rules])


def test_permissions_list(snap_compare: Any, project: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "/permissions")
        await until(lambda: isinstance(pilot.app.screen, PermissionsScreen), pilot)
        await pilot.pause()

    assert snap_compare(_app(project), terminal_size=SIZE, run_before=run_before)


async def test_d_removes_the_highlighted_remembered_rule_everywhere(project: Path) -> None:
    app = _app(project)
    settings = project / ".claude" / "settings.local.json"
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/permissions")
        await until(lambda: isinstance(app.screen, PermissionsScreen), pilot)
        screen: PermissionsScreen = app.screen  # type: ignore[assignment]
        texts = [e.text for e in screen.entries]
        assert texts[:3] == ["Bash(git status:*)", "Bash(npm run test:*)", "Edit(src/**)"]
        assert [e.removable for e in screen.entries] == [False, True, True, False]
        assert screen.entries[0].source == "command line"
        assert screen.entries[1].source == ".claude/settings.local.json"

        options = screen.query_one(OptionList)
        options.highlighted = 0
        await pilot.press("d")  # not removable: said so, nothing changes
        assert "edit that file" in str(screen.query_one("#permissions-status", Static).render())
        assert len(screen.entries) == 4

        options.highlighted = 1
        await pilot.press("d")
        await until(lambda: len(screen.entries) == 3, pilot)
        assert "removed Bash(npm run test:*)" in str(screen.query_one("#permissions-status", Static).render())
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, PermissionsScreen), pilot)

    assert json.loads(settings.read_text())["permissions"]["allow"] == ["Edit(src/**)"]
    assert remembered_rules(settings) == {"Edit(src/**)"}
    assert app.agent is not None
    assert all(getattr(r, "pattern", None) != "npm run test" for r in app.agent.permissions.rules)


async def test_permissions_remove_n_works_in_the_app_too(project: Path) -> None:
    from skawld_tui.app.widgets.blocks import NoteLine

    app = _app(project)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/permissions remove 3")
        await until(lambda: any("removed Edit(src/**)" in str(n.render()) for n in app.query(NoteLine)), pilot)
        await send(pilot, "/permissions remove 1")
        await until(lambda: any("edit that file" in str(n.render()) for n in app.query(NoteLine)), pilot)
    settings = project / ".claude" / "settings.local.json"
    assert json.loads(settings.read_text())["permissions"]["allow"] == ["Bash(npm run test:*)"]
