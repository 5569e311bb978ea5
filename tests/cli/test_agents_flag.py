"""Claude Code's ``--agents`` flag through the real `skawld` command against the wire server:
the JSON's subagents are offered to the model (the Subagent tool, Claude Code's Task) and
run with their prompt, tools and model; a malformed value is a usage error naming the field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from skawld_tui.exit_codes import EXIT_USAGE
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn

REVIEWER = {
    "reviewer": {
        "description": "Reviews code for bugs",
        "prompt": "You are a careful code reviewer.",
        "tools": ["Read", "Grep"],
        "model": "haiku",
    }
}


def _system_text(body: dict[str, Any]) -> str:
    system = body.get("system") or []
    return system if isinstance(system, str) else "\n".join(block.get("text", "") for block in system)


def _tool(body: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in body["tools"] if t["name"] == name)


def test_an_agent_given_as_json_is_offered_and_runs(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Subagent", {"subagent_type": "reviewer", "prompt": "review a.py", "description": "review"})),
        turn(text("no bugs")),
        turn(text("the reviewer found no bugs")),
    )
    out = cli.run(*cli.args("-p", "get a review", "--agents", json.dumps(REVIEWER)))
    assert out.returncode == 0, out.stderr
    parent, child, last = (r.body for r in cli.srv.anthropic.requests)
    assert "- reviewer: Reviews code for bugs" in _tool(parent, "Subagent")["description"]
    assert "You are a careful code reviewer." in _system_text(child)
    assert sorted(t["name"] for t in child["tools"]) == ["Grep", "Read"]
    assert (parent["model"], child["model"], last["model"]) == ("test-model", "claude-haiku-5-5", "test-model")
    assert "the reviewer found no bugs" in out.stdout


def test_the_flag_wins_over_an_agent_file_and_disallowed_tools_are_taken_off(cli: CliEnv) -> None:
    agent_file = cli.repo / ".skawld" / "agents" / "reviewer.md"
    agent_file.parent.mkdir(parents=True)
    agent_file.write_text("---\ndescription: From the file\n---\nFILE PROMPT", encoding="utf-8")
    spec = {"reviewer": {"description": "From the flag", "prompt": "FLAG PROMPT", "disallowedTools": ["Bash"]}}
    cli.srv.anthropic.enqueue(
        turn(tool_call("Subagent", {"subagent_type": "reviewer", "prompt": "go", "description": "go"})),
        turn(text("done")),
        turn(text("ok")),
    )
    out = cli.run(*cli.args("-p", "go", "--accept-project-config", "--agents", json.dumps(spec)))
    assert out.returncode == 0, out.stderr
    parent, child, _ = (r.body for r in cli.srv.anthropic.requests)
    assert "- reviewer: From the flag" in _tool(parent, "Subagent")["description"]
    assert "FLAG PROMPT" in _system_text(child) and "FILE PROMPT" not in _system_text(child)
    names = {t["name"] for t in child["tools"]}
    assert "Bash" not in names and "Read" in names


def test_a_json_file_is_read(cli: CliEnv) -> None:
    (cli.repo / "agents.json").write_text(json.dumps(REVIEWER), encoding="utf-8")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--agents", "agents.json"))
    assert out.returncode == 0, out.stderr
    assert "- reviewer: Reviews code for bugs" in _tool(cli.srv.anthropic.requests[0].body, "Subagent")["description"]


def test_unhonoured_fields_are_reported(cli: CliEnv) -> None:
    spec = {"reviewer": {**REVIEWER["reviewer"], "maxTurns": 3}}
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--agents", json.dumps(spec)))
    assert out.returncode == 0, out.stderr
    assert "--agents.reviewer.maxTurns is accepted but not honoured" in out.stderr


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('{"reviewer": ', "--agents: invalid JSON"),
        ("[]", "--agents must be an object of name → definition"),
        ('{"reviewer": {"prompt": "p"}}', "--agents.reviewer needs a 'description' string"),
        ('{"reviewer": {"description": "d"}}', "--agents.reviewer.prompt must be a string"),
        (
            '{"reviewer": {"description": "d", "prompt": "p", "tools": "Read"}}',
            "--agents.reviewer.tools must be a list",
        ),
        ('{"reviewer": {"description": "d", "prompt": "p", "model": 4}}', "--agents.reviewer.model must be a string"),
        ('{"reviewer": {"description": "d", "prompt": "p", "promt": "x"}}', "--agents.reviewer: unknown field 'promt'"),
        ('{"two words!": {"description": "d", "prompt": "p"}}', "invalid agent name 'two words!'"),
        ("missing.json", "--agents: cannot read"),
    ],
)
def test_a_bad_value_is_a_usage_error_naming_the_field(cli: CliEnv, value: str, message: str) -> None:
    for mode in (("-p", "hi"), ()):  # headless and the app check it before anything starts
        out = cli.run(*cli.args(*mode, "--agents", value))
        assert out.returncode == EXIT_USAGE, out.stderr
        assert message in out.stderr and "Traceback" not in out.stderr
    assert cli.srv.anthropic.requests == []


def test_help_lists_the_flag(cli: CliEnv) -> None:
    out = cli.run("--help", env={"COLUMNS": "200"})
    assert out.returncode == 0 and "--agents JSON" in out.stdout
