"""Slash commands from files (Claude Code's `.claude/commands/*.md`), through the real `skawld -p`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn


def write(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


def first_prompt(cli: CliEnv) -> str:
    return json.dumps(cli.srv.anthropic.requests[-1].body["messages"][0]["content"])


REVIEW = """---
description: Review a part of the code
argument-hint: <path> [focus]
allowed-tools: Bash(git status:*), Bash(git log:*)
---
Review $1 with a focus on $2. All arguments: $ARGUMENTS.
Status: !`git status --short`
Style guide: @docs/style.md
"""


def git_repo(cli: CliEnv) -> None:
    subprocess.run(["git", "init", "-q", str(cli.repo)], check=True)
    write(cli.repo / "dirty.txt", "x\n")


def test_user_command_expands_arguments_files_and_allowed_shell(cli: CliEnv) -> None:
    git_repo(cli)
    write(cli.home / ".claude" / "commands" / "review.md", REVIEW)
    write(cli.repo / "docs" / "style.md", "USE-TABS-NOT-SPACES\n")
    cli.srv.anthropic.enqueue(turn(text("reviewed")))
    out = cli.run(*cli.args("-p", '/review src/ "error handling"'))
    assert out.returncode == 0, out.stderr
    prompt = first_prompt(cli)
    assert "Review src/ with a focus on error handling." in prompt
    assert 'All arguments: src/ \\"error handling\\".' in prompt
    assert "?? dirty.txt" in prompt  # the output of `git status --short`
    assert "USE-TABS-NOT-SPACES" in prompt and "docs/style.md" in prompt


def test_project_commands_namespace_by_folder_and_skawld_wins(cli: CliEnv) -> None:
    write(cli.repo / ".claude" / "commands" / "frontend" / "component.md", "Build component $ARGUMENTS (claude)")
    write(cli.repo / ".skawld" / "commands" / "frontend" / "component.md", "Build component $ARGUMENTS (skawld)")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "/frontend:component Button"))
    assert out.returncode == 0, out.stderr
    assert "Build component Button (skawld)" in first_prompt(cli)


def test_untrusted_project_command_cannot_grant_its_own_shell(cli: CliEnv) -> None:
    git_repo(cli)
    write(cli.repo / ".claude" / "commands" / "status.md", "---\nallowed-tools: Bash(git status:*)\n---\n!`git status`")
    out = cli.run(*cli.args("-p", "/status"))
    assert out.returncode == 2
    assert "!`git status` needs permission" in out.stderr
    assert cli.srv.anthropic.requests == []


def test_a_deny_rule_refuses_the_shell_line(cli: CliEnv) -> None:
    write(cli.home / ".skawld" / "commands" / "wipe.md", "---\nallowed-tools: Bash(rm:*)\n---\n!`rm -rf build`")
    cli.write_user_config({"permissions": {"rules": [{"kind": "bash", "pattern": "rm", "decision": "deny"}]}})
    out = cli.run(*cli.args("-p", "/wipe"))
    assert out.returncode == 2
    assert "is denied by a permission rule" in out.stderr


def test_unknown_slash_text_is_sent_as_is(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    assert cli.run(*cli.args("-p", "/not-a-command keep me")).returncode == 0
    assert "/not-a-command keep me" in first_prompt(cli)
