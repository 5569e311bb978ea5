"""Skills of an unaccepted project grant no tools; the Skill approval names what it would grant.

Through the real `skawld -p --json --canusetool`: the test answers each
permission_request on stdin, so "Bash ran without asking" is observable.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(90)

SKILL = """---
name: deploy
description: Deploy the project
allowed_tools: [Bash]
model: other-model
---
Run the deploy script.
"""


def _project_skill(cli: CliEnv) -> None:
    d = cli.repo / ".skawld" / "skills" / "deploy"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(SKILL, encoding="utf-8")


def _script(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Skill", {"skill": "deploy"}, id="s1")),
        turn(tool_call("Bash", {"command": "touch bash-ran"}, id="b1")),
        turn(text("done")),
    )


def _run_answering(cli: CliEnv, answers: dict[str, str]) -> tuple[list[dict[str, Any]], int]:
    """Run the skill prompt, answering permission requests per tool name; returns the requests seen."""
    proc = cli.popen(*cli.args("-p", "deploy it", "--json", "--canusetool"))
    assert proc.stdin is not None and proc.stdout is not None
    seen: list[dict[str, Any]] = []
    for line in proc.stdout:
        event = json.loads(line)
        if event["type"] == "permission_request":
            for req in event["requests"]:
                seen.append(req)
                decision = answers.get(req["tool_name"], "deny")
                reply = {"type": "permission_response", "tool_use_id": req["tool_use_id"], "decision": decision}
                proc.stdin.write(json.dumps(reply) + "\n")
                proc.stdin.flush()
        if event["type"] == "result":
            break
    proc.stdin.close()
    code = proc.wait(timeout=60)
    return seen, code


def test_untrusted_project_skill_does_not_grant_bash(cli: CliEnv) -> None:
    _project_skill(cli)
    _script(cli)
    seen, code = _run_answering(cli, {"Skill": "allow"})
    assert code == 0
    # stripped of its grants the skill is a plain one (auto-allowed, as any plain skill); Bash asks
    assert [r["tool_name"] for r in seen] == ["Bash"], "Bash must still ask: the untrusted skill grants nothing"
    assert not (cli.repo / "bash-ran").exists()
    # the skill's model override is withheld too
    assert all(r.body["model"] == "test-model" for r in cli.srv.anthropic.requests)


def test_trusted_project_skill_grants_bash_and_the_approval_says_so(cli: CliEnv) -> None:
    _project_skill(cli)
    cli.srv.anthropic.enqueue(turn(text("hello")))
    accepted = cli.run(*cli.args("-p", "hi", "--accept-project-config"))
    assert accepted.returncode == 0, accepted.stderr
    _script(cli)
    seen, code = _run_answering(cli, {"Skill": "allow"})
    assert code == 0
    assert [r["tool_name"] for r in seen] == ["Skill"], "Bash ran on the skill's grant, unasked"
    assert "grants Bash" in seen[0]["summary"]
    assert (cli.repo / "bash-ran").exists()
    assert cli.srv.anthropic.requests[-2].body["model"] == "other-model"


def test_allowing_skill_by_flag_still_grants_nothing_untrusted(cli: CliEnv) -> None:
    """The issue's scenario: the user allows `Skill`; the project skill must not bring Bash along."""
    _project_skill(cli)
    _script(cli)
    out = cli.run(*cli.args("-p", "deploy it", "--allowed-tools", "Skill"))
    assert out.returncode == 0, out.stderr
    assert not (cli.repo / "bash-ran").exists()


def test_a_changed_grant_after_acceptance_asks_again(cli: CliEnv) -> None:
    _project_skill(cli)
    cli.srv.anthropic.enqueue(turn(text("hello")))
    assert cli.run(*cli.args("-p", "hi", "--accept-project-config")).returncode == 0
    skill_md = cli.repo / ".skawld" / "skills" / "deploy" / "SKILL.md"
    skill_md.write_text(SKILL.replace("[Bash]", "[Bash, Write]"), encoding="utf-8")
    _script(cli)
    out = cli.run(*cli.args("-p", "deploy it", "--allowed-tools", "Skill"))
    assert out.returncode == 3, out.stderr  # asked again (issue 26), as a changed config file is
    assert "[new since you accepted] the skill 'deploy' runs Bash, Write without asking" in out.stderr
    assert not (cli.repo / "bash-ran").exists()
    assert len(cli.srv.anthropic.requests) == 1, "only the accepted run reached the model"


def test_skill_grants_are_listed_in_the_refusal(cli: CliEnv) -> None:
    _project_skill(cli)
    cli.write_project_config({"permissions": {"mode": "acceptEdits"}})
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3
    assert "the skill 'deploy' runs Bash without asking" in out.stderr
