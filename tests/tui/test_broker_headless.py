"""The Claude Code SDK host's "always" (`addRules` for `localSettings`) is saved like the app's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skawld_core import Agent
from skawld_core.config import load_config
from skawld_core.permissions.remembered import remembered_rules
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider
from skawld_tui.headless.claude_control import apply_permission_updates


async def test_local_settings_rules_from_the_host_are_saved_and_honoured_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    project.mkdir()
    agent = Agent(
        provider=ScriptedProvider([]), model="m1", session_store=InMemorySessionStore(), cwd=project, tools=[]
    )
    try:
        apply_permission_updates(
            agent,
            [
                {
                    "type": "addRules",
                    "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}],
                    "behavior": "allow",
                    "destination": "localSettings",
                },
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "ls:*"}], "behavior": "allow"},
                {
                    "type": "addRules",
                    "rules": [{"toolName": "Read"}],
                    "behavior": "deny",
                    "destination": "localSettings",
                },
            ],
        )
    finally:
        await agent.close()
    settings = project / ".claude" / "settings.local.json"
    # only the allow rule meant for localSettings is saved; the session-only one and the deny are not
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(npm test:*)"]}}
    assert remembered_rules(settings) == {"Bash(npm test:*)"}
    loaded = load_config(cwd=project)  # no trust prompt for it
    assert {"kind": "bash", "pattern": "npm test", "decision": "allow"} in loaded.raw["permissions"]["rules"]
