"""`parse_permission_updates`: Claude Code's ``updatedPermissions`` read in one place."""

from __future__ import annotations

from skawld_core.permissions.updates import (
    ModeUpdate,
    RuleUpdate,
    UnsupportedUpdate,
    parse_permission_updates,
    requested_mode,
)


def test_rules_modes_and_unsupported_types_in_order() -> None:
    updates = [
        {
            "type": "addRules",
            "behavior": "allow",
            "destination": "localSettings",
            "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}, {"toolName": "Read"}, {"ruleContent": "x"}],
        },
        "not an object",
        {"type": "setMode", "mode": "acceptEdits"},
        {"type": "addRules", "behavior": "maybe", "rules": [{"toolName": "Read"}]},
        {"type": "addDirectories", "directories": ["/tmp"]},
    ]
    assert parse_permission_updates(updates) == [
        RuleUpdate("Bash(npm test:*)", "allow", "localSettings"),
        RuleUpdate("Read", "allow", "localSettings"),
        ModeUpdate("acceptEdits"),
        UnsupportedUpdate("addRules"),
        UnsupportedUpdate("addDirectories"),
    ]
    assert RuleUpdate("Read", "allow", "localSettings").remember
    assert not RuleUpdate("Read", "deny", "localSettings").remember
    assert not RuleUpdate("Read", "allow", "session").remember


def test_the_last_set_mode_wins_and_anything_else_is_none() -> None:
    assert requested_mode([{"type": "setMode", "mode": "plan"}, {"type": "setMode", "mode": "default"}]) == "default"
    assert requested_mode({"type": "setMode", "mode": "plan"}) is None
    assert requested_mode([{"type": "addRules", "behavior": "allow", "rules": []}]) is None
