"""Claude Code's settings files (`.claude/settings.json`, `.local.json`, `~/.claude/settings.json`)
through the real `skawld -p`: deny rules keep `.env` from the model; allow rules need trust."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from skawld_core.sandbox import probe_bwrap
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn


def write(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def results(cli: CliEnv) -> str:
    return json.dumps(cli.srv.anthropic.requests[-1].body["messages"][-1])


def test_project_deny_rule_keeps_env_from_read_and_grep(cli: CliEnv) -> None:
    (cli.repo / ".env").write_text("API_TOKEN=hunter2\n")
    (cli.repo / "app.py").write_text("token = 'API_TOKEN'\n")
    write(cli.repo / ".claude" / "settings.json", {"permissions": {"deny": ["Read(./.env)"]}})
    cli.srv.anthropic.enqueue(
        turn(
            tool_call("Read", {"file_path": str(cli.repo / ".env")}, id="r"),
            tool_call("Grep", {"pattern": "API_TOKEN", "output_mode": "content"}, id="g"),
        ),
        turn(text("done")),
    )
    out = cli.run(*cli.args("-p", "find the token", "--permission-mode", "yolo"))
    assert out.returncode == 0, out.stderr
    sent = results(cli)
    assert "hunter2" not in sent
    assert "app.py" in sent  # Grep still ran, without the denied file


@pytest.mark.skipif(not probe_bwrap().ok, reason="bubblewrap cannot start here (CI installs it)")
def test_project_deny_rule_hides_env_from_sandboxed_bash(cli: CliEnv) -> None:
    (cli.repo / ".env").write_text("API_TOKEN=hunter2\n")
    write(cli.repo / ".claude" / "settings.json", {"permissions": {"deny": ["Read(./.env)"]}})
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "cat .env; echo END"}, id="b")), turn(text("ok")))
    out = cli.run(*cli.args("-p", "cat it", "--permission-mode", "yolo", "--sandbox"))
    assert out.returncode == 0, out.stderr
    sent = results(cli)
    assert "END" in sent and "hunter2" not in sent


def test_project_allow_rules_need_trust_and_a_change_asks_again(cli: CliEnv) -> None:
    settings = cli.repo / ".claude" / "settings.local.json"
    write(settings, {"permissions": {"allow": ["Bash(npm run test:*)"], "defaultMode": "acceptEdits"}})
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3
    assert "Bash(npm run test" in out.stderr or "allow rule" in out.stderr
    assert "permission mode acceptEdits" in out.stderr
    cli.srv.anthropic.enqueue(turn(text("ok")), turn(text("ok")))
    assert cli.run(*cli.args("-p", "hi", "--accept-project-config")).returncode == 0
    out = cli.run(*cli.args("-p", "hi"))  # accepted and remembered
    assert out.returncode == 0, out.stderr
    write(settings, {"permissions": {"allow": ["Bash(curl:*)"]}})
    assert cli.run(*cli.args("-p", "hi")).returncode == 3


def test_user_settings_apply_and_unsupported_keys_warn(cli: CliEnv) -> None:
    write(
        cli.home / ".claude" / "settings.json",
        {"permissions": {"allow": ["Bash(echo:*)"]}, "env": {"FOO": "1"}, "model": "user-claude-model"},
    )
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "echo allowed-by-claude"}, id="b")), turn(text("ok")))
    out = cli.run(*cli.args("-p", "say it", model=False))
    assert out.returncode == 0, out.stderr
    assert cli.srv.anthropic.requests[0].body["model"] == "user-claude-model"
    assert "allowed-by-claude" in results(cli)  # the user's allow rule ran it without asking
    assert "'env' is not supported" in out.stderr and str(cli.home / ".claude" / "settings.json") in out.stderr


def test_a_malformed_settings_file_is_exit_3_naming_it(cli: CliEnv) -> None:
    path = cli.repo / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3 and str(path) in out.stderr and "Traceback" not in out.stderr
