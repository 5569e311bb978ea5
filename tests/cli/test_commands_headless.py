"""Slash commands and background shells through the real `skawld -p` against the wire server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import MODEL, CliEnv
from tests.support.wire_server import text, tool_call, turn


def write(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)


def test_a_command_files_model_is_used_for_its_prompt(cli: CliEnv) -> None:
    write(cli.repo / ".claude" / "commands" / "quick.md", "---\nmodel: claude-haiku-4-5\n---\nSummarise $ARGUMENTS")
    cli.srv.anthropic.enqueue(turn(text("short")), turn(text("plain")))
    out = cli.run(*cli.args("-p", "/quick the README", "--accept-project-config"))  # a project command's model
    assert out.returncode == 0, out.stderr
    first = cli.srv.anthropic.requests[0].body
    assert first["model"] == "claude-haiku-4-5" and "Summarise the README" in json.dumps(first["messages"])
    out = cli.run(*cli.args("-p", "no command here"))
    assert out.returncode == 0, out.stderr
    assert cli.srv.anthropic.requests[1].body["model"] == MODEL  # the session model otherwise


def test_a_claude_alias_model_is_resolved_on_the_anthropic_provider(cli: CliEnv) -> None:
    write(cli.repo / ".skawld" / "commands" / "deep.md", "---\nmodel: opus\n---\nThink about $1")
    cli.srv.anthropic.enqueue(turn(text("thought")))
    out = cli.run(*cli.args("-p", "/deep caching", "--accept-project-config"))
    assert out.returncode == 0, out.stderr
    assert cli.srv.anthropic.requests[0].body["model"] == "claude-opus-5-5"
    assert "is a Claude Code alias" not in out.stderr


def test_a_claude_alias_model_keeps_the_session_model_on_other_providers(cli: CliEnv) -> None:
    write(cli.repo / ".skawld" / "commands" / "deep.md", "---\nmodel: opus\n---\nThink about $1")
    cli.srv.chat.enqueue(turn(text("thought")))
    args = [*cli.args("-p", "/deep caching", base_url=False), "--provider", "openai-chat", "--accept-project-config"]
    out = cli.run(*args, "--base-url", cli.srv.openai_url)
    assert out.returncode == 0, out.stderr
    assert cli.srv.chat.requests[0].body["model"] == MODEL
    assert "/deep: model 'opus' is a Claude Code alias; using the session's model" in out.stderr


def test_background_shells_still_running_at_the_end_are_reported_as_ended(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Bash", {"command": "sleep 60", "run_in_background": True}, id="toolu_b"), stop="tool_use"),
        turn(text("started the server")),
    )
    out = cli.run(
        *cli.args("-p", "start it", "--permission-mode", "yolo", "--no-sandbox", "--output-format", "json", "-v")
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["background_shells_ended"] == [{"id": "bash_1", "command": "sleep 60"}]
    assert "background shell bash_1 was still running at the end of the run and was ended: sleep 60" in out.stderr
    cli.srv.anthropic.enqueue(
        turn(tool_call("Bash", {"command": "sleep 61", "run_in_background": True}, id="toolu_c"), stop="tool_use"),
        turn(text("again")),
    )
    out = cli.run(*cli.args("-p", "start it", "--permission-mode", "yolo", "--no-sandbox", "--verbose"))
    assert out.returncode == 0 and out.stdout == "again\n", out.stderr
    assert "background shell bash_1 was still running at the end of the run and was ended: sleep 61" in out.stderr


def test_no_background_report_when_none_ran(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("hi")))
    out = cli.run(*cli.args("-p", "hello", "--output-format", "json", "-v"))
    assert out.returncode == 0, out.stderr
    assert "background_shells_ended" not in json.loads(out.stdout.strip().splitlines()[-1])
    assert "background shell" not in out.stderr


def test_claude_dialect_output_expands_command_files_too(cli: CliEnv) -> None:
    write(cli.home / ".claude" / "commands" / "quick.md", "---\nmodel: claude-haiku-4-5\n---\nSummarise $ARGUMENTS")
    cli.srv.anthropic.enqueue(turn(text("short")))
    out = cli.run(*cli.args("-p", "/quick the README", "--output-format", "json"))
    assert out.returncode == 0, out.stderr
    first = cli.srv.anthropic.requests[0].body
    assert first["model"] == "claude-haiku-4-5" and "Summarise the README" in json.dumps(first["messages"])
    assert json.loads(out.stdout.strip().splitlines()[-1])["result"] == "short"
    write(cli.repo / ".claude" / "commands" / "status.md", "!`git status`")
    out = cli.run(*cli.args("-p", "/status", "--output-format", "json"))
    assert out.returncode == 2 and "!`git status` needs permission" in out.stderr
    assert len(cli.srv.anthropic.requests) == 1


def test_the_model_runs_a_command_file_through_the_skill_tool(cli: CliEnv) -> None:
    """With commands but no skills, `Skill` is registered and expands the command (Claude Code's merge)."""
    write(cli.home / ".claude" / "commands" / "commit.md", "---\ndescription: Commit the work\n---\nCommit as $1 now")
    cli.srv.anthropic.enqueue(
        turn(tool_call("Skill", {"skill": "/commit", "args": "'fix: typo'"}, id="s1")),
        turn(text("committed")),
    )
    out = cli.run(*cli.args("-p", "commit it"))
    assert out.returncode == 0, out.stderr
    first, second = (r.body for r in cli.srv.anthropic.requests)
    assert "Skill" in [t["name"] for t in first["tools"]]
    assert "commit: Commit the work" in json.dumps(first)  # listed for the model
    [result] = [
        b
        for m in second["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert not result.get("is_error")
    assert "Commit as fix: typo now" in json.dumps(result["content"])
