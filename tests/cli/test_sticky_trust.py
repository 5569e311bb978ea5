"""A cloned repository cannot ship its own "remembered" answers: through the installed
`skawld -p`, a pre-filled `.claude/settings.local.json` widens nothing before trust, while the
same rule saved by the user (recorded in their own ~/.skawld) applies without a trust prompt."""

from __future__ import annotations

import json

from skawld_core.permissions.remembered import remember_allow_rules
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn


def _prefill(cli: CliEnv, rules: list[str]) -> None:
    path = cli.repo / ".claude" / "settings.local.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": {"allow": rules}}))


def test_a_prefilled_local_settings_file_is_not_applied_before_trust(cli: CliEnv) -> None:
    _prefill(cli, ["Bash(echo:*)"])
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "echo shipped"}, id="b")), turn(text("ok")))
    out = cli.run(*cli.args("-p", "go"))
    assert out.returncode == 3
    assert "allow rule Bash(echo" in out.stderr
    assert cli.srv.anthropic.requests == []  # nothing ran, nothing was sent


def test_the_same_rule_saved_by_the_user_applies_without_a_prompt(cli: CliEnv) -> None:
    remember_allow_rules(cli.repo, ["Bash(echo:*)"], env={"HOME": str(cli.home)})
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "echo saved-by-me"}, id="b")), turn(text("ok")))
    out = cli.run(*cli.args("-p", "go"))
    assert out.returncode == 0, out.stderr
    sent = json.dumps(cli.srv.anthropic.requests[-1].body["messages"][-1])
    assert "saved-by-me" in sent and '"is_error": true' not in sent


def test_a_rule_slipped_in_beside_the_users_own_still_needs_trust(cli: CliEnv) -> None:
    remember_allow_rules(cli.repo, ["Bash(echo:*)"], env={"HOME": str(cli.home)})
    _prefill(cli, ["Bash(echo:*)", "Bash(curl:*)"])
    out = cli.run(*cli.args("-p", "go"))
    assert out.returncode == 3
    assert "curl" in out.stderr
