"""`skawld -v` reports the Claude Code setup: settings files read, name-clash losers (skills,
agents, commands) and the agent `tools:` names skawld has no tool for."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn


def write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body, encoding="utf-8")
    return path


def test_verbose_lists_settings_clashes_and_unmapped_tools(cli: CliEnv) -> None:
    repo, home = cli.repo, cli.home
    own_skill = write(
        repo / ".skawld" / "skills" / "review" / "SKILL.md", "---\nname: review\ndescription: ours\n---\nA"
    )
    claude_skill = write(
        repo / ".claude" / "skills" / "review" / "SKILL.md", "---\nname: Review\ndescription: theirs\n---\nB"
    )
    own_agent = write(repo / ".skawld" / "agents" / "helper.md", "---\nname: helper\ndescription: ours\n---\nA")
    claude_agent = write(repo / ".claude" / "agents" / "helper.md", "---\nname: helper\ndescription: theirs\n---\nB")
    write(
        repo / ".claude" / "agents" / "web-researcher.md",
        "---\nname: web-researcher\ndescription: Examples: <example>Context: research</example>\n"
        "tools: Read, MultiEdit, WebFetch, NotebookEdit, Task\n---\nResearch.",
    )
    own_cmd = write(repo / ".skawld" / "commands" / "hello.md", "Say hello")
    claude_cmd = write(repo / ".claude" / "commands" / "hello.md", "Say hi")
    local = write(repo / ".claude" / "settings.local.json", json.dumps({"permissions": {"deny": ["Read(./.env)"]}}))
    user = write(home / ".claude" / "settings.json", json.dumps({"permissions": {"ask": ["Bash(git push:*)"]}}))

    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "-v"))
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert f"skawld: Claude Code settings read: {user}" in lines
    assert f"skawld: Claude Code settings read: {local.resolve()}" in lines
    assert f"skawld: name clash: skill 'review' in {claude_skill.parent} lost to {own_skill.parent}" in lines
    assert f"skawld: name clash: agent 'helper' in {claude_agent} lost to {own_agent}" in lines
    assert f"skawld: name clash: command /hello in {claude_cmd} lost to {own_cmd}" in lines
    unmapped = [line for line in lines if "tools not in skawld" in line]
    assert unmapped == [
        f"skawld: agent 'web-researcher' ({repo / '.claude' / 'agents' / 'web-researcher.md'}): "
        "tools not in skawld, left out: WebFetch, NotebookEdit"
    ]


def test_quiet_without_verbose(cli: CliEnv) -> None:
    write(cli.repo / ".skawld" / "commands" / "hello.md", "Say hello")
    write(cli.repo / ".claude" / "commands" / "hello.md", "Say hi")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 0, out.stderr
    assert "name clash" not in out.stderr
