"""`skawld permissions explain`: decision, rule, rule file and parsed commands, through the real command."""

from __future__ import annotations

import json
import os

import pytest

from tests.cli.harness import CliEnv

USER_RULES = [
    {"kind": "bash", "pattern": "git status", "decision": "allow"},
    {"kind": "bash", "pattern": "git push", "decision": "ask"},
]
PROJECT_RULES = [
    {"kind": "bash", "pattern": "rm", "decision": "deny"},
    {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"},
]


def _setup(cli: CliEnv) -> tuple[str, str]:
    user = cli.write_user_config({"permissions": {"rules": USER_RULES}})
    project = cli.write_project_config({"permissions": {"rules": PROJECT_RULES}})
    return str(user), str(project.resolve())


def _explain(cli: CliEnv, *args: str) -> dict[str, object]:
    r = cli.run("permissions", "explain", "--json", *args)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert isinstance(doc, dict)
    return doc


def test_bash_deny_through_a_wrapper_names_rule_file_and_commands(cli: CliEnv) -> None:
    _, project = _setup(cli)
    doc = _explain(cli, "git status && nice -n 1 sudo -u root rm -rf /")
    assert doc["decision"] == "deny"
    assert doc["rule"] == [{"kind": "bash", "pattern": "rm", "decision": "deny"}]
    assert doc["source"] == [f"{project} (project config)"]
    assert doc["reason"] == "`rm -rf /` (via nice > sudo) matches deny rule `rm`"
    commands = doc["commands"]
    assert isinstance(commands, list)
    assert [c["words"] for c in commands] == [
        ["git", "status"],
        ["nice", "-n", "1", "sudo", "-u", "root", "rm", "-rf", "/"],
        ["sudo", "-u", "root", "rm", "-rf", "/"],
        ["rm", "-rf", "/"],
    ]
    assert commands[-1]["via"] == "nice > sudo"


def test_allow_names_every_rule_from_the_user_file(cli: CliEnv) -> None:
    user, _ = _setup(cli)
    doc = _explain(cli, "git status --short")
    assert doc["decision"] == "allow"
    assert doc["source"] == [f"{user} (user config)"]
    assert doc["rule_label"] == ["git status"]


def test_function_trick_is_denied_and_shows_the_body(cli: CliEnv) -> None:
    _setup(cli)
    doc = _explain(cli, "git () ( rm -rf victim ); git status")
    assert doc["decision"] == "deny"
    commands = doc["commands"]
    assert isinstance(commands, list)
    assert {"words": ["rm", "-rf", "victim"], "via": None, "nested": True} in commands
    assert doc["not_allowable"] == "a function definition"


def test_yolo_refuses_an_unknown_command_word_with_a_reason(cli: CliEnv) -> None:
    _setup(cli)
    doc = _explain(cli, "--permission-mode", "yolo", "c=rm; $c x")
    assert doc["decision"] == "deny"
    assert doc["rule"] is None
    reason = doc["reason"]
    assert isinstance(reason, str) and "`$c`" in reason and "rephrase" in reason
    assert _explain(cli, "c=rm; $c x")["decision"] == "ask"


def test_tool_call_shorthand_and_json(cli: CliEnv) -> None:
    _, project = _setup(cli)
    doc = _explain(cli, "Read(./.env)")
    assert doc["tool"] == "Read"
    assert doc["decision"] == "deny"
    assert doc["source"] == [f"{project} (project config)"]
    doc = _explain(cli, json.dumps({"tool": "Read", "input": {"file_path": "src/app.py"}}))
    assert doc["decision"] == "allow"
    assert doc["rule"] is None
    assert doc["reason"] == "no rule decides: the default mode's default for read tools"
    doc = _explain(cli, "Write(notes.txt)")
    assert (doc["tool"], doc["decision"]) == ("Write", "ask")


def test_text_output(cli: CliEnv) -> None:
    _, project = _setup(cli)
    r = cli.run("permissions", "explain", "timeout -s KILL 5 rm x")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[:4] == [
        "decision: deny",
        "rule:     rm (deny)",
        f"from:     {project} (project config)",
        "reason:   `rm x` (via timeout) matches deny rule `rm`",
    ]
    assert "  rm x   [via timeout]" in lines
    assert "not trusted yet" not in r.stderr  # a project file with only deny rules needs no trust


def test_untrusted_project_allow_rule_is_explained_with_a_note(cli: CliEnv) -> None:
    cli.write_project_config({"permissions": {"rules": [{"kind": "bash", "pattern": "make", "decision": "allow"}]}})
    r = cli.run("permissions", "explain", "make test")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("decision: allow\n")
    assert "not trusted yet" in r.stderr


def test_bad_input_exits_with_a_clear_message(cli: CliEnv) -> None:
    r = cli.run("permissions", "explain", "--input-json", "{not json")  # issue 26: JSON only when asked
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("skawld: the tool call is not valid JSON")
    assert "Traceback" not in r.stderr
    r = cli.run("permissions", "explain", '{"tool": "Read"')  # looks like JSON: a broken tool call
    assert r.returncode == 2 and r.stderr.startswith("skawld: the tool call is not valid JSON")
    r = cli.run("permissions", "explain", json.dumps({"tool": "Write", "input": {}}))
    assert r.returncode == 2
    assert "invalid Write input" in r.stderr
    r = cli.run("permissions", "explain", "   ")
    assert r.returncode == 2
    assert "nothing to explain" in r.stderr
    cli.write_project_config("{broken")
    r = cli.run("permissions", "explain", "ls")
    assert r.returncode == 3
    assert "Traceback" not in r.stderr


def test_the_same_rule_in_two_files_is_traced_to_the_one_that_decides(cli: CliEnv) -> None:
    deny_rm = {"kind": "bash", "pattern": "rm", "decision": "deny"}
    user = cli.write_user_config({"permissions": {"rules": [deny_rm]}})
    cli.write_project_config({"permissions": {"rules": [deny_rm]}})
    doc = _explain(cli, "rm x")
    assert doc["source"] == [f"{user} (user config)"]  # the user layer comes first: first match wins


def test_a_command_that_starts_with_a_brace_is_a_shell_command(cli: CliEnv) -> None:
    """Issue 26: `{ ls; }` is a bash group, not broken JSON."""
    r = cli.run("permissions", "explain", "--json", "{ ls; }")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["tool"] == "Bash" and doc["input"]["command"] == "{ ls; }"
    assert [c["words"] for c in doc["commands"]] == [["ls"]]
    r = cli.run("permissions", "explain", "{ rm -rf /tmp/x; }")
    assert r.returncode == 0, r.stderr
    assert "rm" in r.stdout and "Traceback" not in r.stderr


def test_explain_says_which_hosts_the_sandbox_network_lets_through(cli: CliEnv) -> None:
    cli.write_user_config(
        {"sandbox": {"network": {"allowedDomains": ["pypi.org", "*.x.y"], "deniedDomains": ["bad.x.y"]}}}
    )
    doc = _explain(cli, "curl https://a.x.y/z && curl http://bad.x.y http://evil.com https://1.2.3.4/")
    assert doc["network"] == {
        "mode": "domains",
        "allowed": ["pypi.org", "*.x.y"],
        "denied": ["bad.x.y"],
        "hosts": [
            {"host": "a.x.y", "verdict": "allow", "why": None},
            {"host": "bad.x.y", "verdict": "deny", "why": "network access to bad.x.y is denied (sandbox.network.deniedDomains)"},
            {"host": "evil.com", "verdict": "unlisted", "why": "network access to evil.com is not allowed (add it to sandbox.network.allowedDomains)"},
            {"host": "1.2.3.4", "verdict": "unlisted", "why": "network access to 1.2.3.4 is not allowed (add it to sandbox.network.allowedDomains)"},
        ],
    }  # fmt: skip
    r = cli.run("permissions", "explain", "curl https://evil.com")
    assert "network:  only pypi.org, *.x.y through skawld's proxy; denied: bad.x.y" in r.stdout
    assert "  evil.com: refused: network access to evil.com is not allowed" in r.stdout


def test_verbose_names_the_open_domains(cli: CliEnv) -> None:
    from skawld_core.sandbox import probe_bwrap
    from tests.support.wire_server import text, turn

    if not probe_bwrap().ok and os.environ.get("CI") != "true":
        pytest.skip(f"bubblewrap cannot start here: {probe_bwrap().reason}")

    cli.write_user_config({"sandbox": {"network": {"allowedDomains": ["pypi.org"]}}})
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "-v"))
    assert out.returncode == 0, out.stderr
    assert (
        "sandbox: bubblewrap (network only to pypi.org (proxy))" in out.stderr or "sandbox: unavailable" in out.stderr
    )
