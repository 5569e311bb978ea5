"""`skawld permissions list` / `remove`: the rules a run would use, with their files; removing a
remembered one (the installed command, a temporary HOME and git repository)."""

from __future__ import annotations

import json

from skawld_core.permissions.remembered import remember_allow_rules, remembered_rules
from tests.cli.harness import CliEnv


def test_list_names_each_rules_file_and_remove_takes_a_remembered_one(cli: CliEnv) -> None:
    cli.write_user_config({"permissions": {"rules": [{"kind": "bash", "pattern": "git status", "decision": "allow"}]}})
    remember_allow_rules(cli.repo, ["Bash(npm test:*)"], env={"HOME": str(cli.home)})
    out = cli.run("permissions", "list", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert rows == [
        {"decision": "allow", "rule": "Bash(git status:*)", "source": "~/.skawld/config.json", "removable": False},
        {"decision": "allow", "rule": "Bash(npm test:*)", "source": ".claude/settings.local.json", "removable": True},
    ]

    refused = cli.run("permissions", "remove", "1")
    assert refused.returncode == 2 and "edit that file" in refused.stderr and "Traceback" not in refused.stderr
    assert cli.run("permissions", "remove", "7").returncode == 2

    done = cli.run("permissions", "remove", "2")
    assert done.returncode == 0, done.stderr
    assert "removed Bash(npm test:*)" in done.stdout
    settings = cli.repo / ".claude" / "settings.local.json"
    assert json.loads(settings.read_text())["permissions"]["allow"] == []
    assert remembered_rules(settings, {"HOME": str(cli.home)}) == set()
    assert len(json.loads(cli.run("permissions", "list", "--json").stdout)) == 1


def test_explain_names_the_local_settings_file_of_a_remembered_rule(cli: CliEnv) -> None:
    remember_allow_rules(cli.repo, ["Bash(npm test:*)"], env={"HOME": str(cli.home)})
    out = cli.run("permissions", "explain", "npm test -- --ci", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["decision"] == "allow"
    assert doc["source"] == [".claude/settings.local.json"]
