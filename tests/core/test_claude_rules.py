"""Claude Code's rule strings, translated and then evaluated by the real `PermissionEngine`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skawld_core.permissions import PendingToolCall, PermissionEngine
from skawld_core.permissions.claude_rules import parse_claude_rule, parse_claude_rules, split_rule_list


def decide(tmp_path: Path, specs: list[str], tool: str, scope: Any = "exec", **inp: Any) -> str:
    rules = parse_claude_rules(specs, "allow").rules
    engine = PermissionEngine(mode="default", rules=rules, project_root=tmp_path)
    call = PendingToolCall(tool_name=tool, tool_use_id="t1", input=inp, summary=tool, scope=scope, cwd=tmp_path)
    return engine.evaluate(call).behavior


def test_split_keeps_parentheses_together() -> None:
    assert split_rule_list(["Read,Bash(git log --oneline, -n 3) Edit", "mcp__gh"]) == [
        "Read",
        "Bash(git log --oneline, -n 3)",
        "Edit",
        "mcp__gh",
    ]


@pytest.mark.parametrize(
    ("spec", "command", "expected"),
    [
        ("Bash(git status)", "git status", "allow"),
        ("Bash(git status)", "git status --short", "ask"),  # exact without :*
        ("Bash(npm run test:*)", "npm run test -- --watch", "allow"),
        ("Bash(npm run test:*)", "npm run testing", "ask"),  # token prefix, not string prefix
        ("Bash(npm run test:*)", "npm run lint", "ask"),
        ("Bash(git * main)", "git push origin main", "allow"),
        ("Bash(git * main)", "git push origin dev", "ask"),
        ("Bash(ls *)", "ls -la", "allow"),
        ("Bash", "rm -rf /tmp/x", "allow"),
        ("Bash(git status)", "git status && rm -rf x", "ask"),  # a compound command is not that command
    ],
)
def test_bash_rules(tmp_path: Path, spec: str, command: str, expected: str) -> None:
    assert decide(tmp_path, [spec], "Bash", command=command) == expected


def test_path_rules(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    inside, outside = str(tmp_path / "src" / "a.py"), str(tmp_path / "b.py")
    assert decide(tmp_path, ["Edit(./src/**)"], "Edit", "write", file_path=inside) == "allow"
    assert decide(tmp_path, ["Edit(./src/**)"], "Write", "write", file_path=inside) == "allow"
    assert decide(tmp_path, ["Edit(./src/**)"], "Edit", "write", file_path=outside) == "ask"
    assert decide(tmp_path, ["Edit(/src/**)"], "Edit", "write", file_path=inside) == "allow"
    assert decide(tmp_path, [f"Edit(/{tmp_path}/**)"], "Edit", "write", file_path=outside) == "allow"  # //abs
    deny = parse_claude_rules(["Read(./secrets/**)"], "deny")
    # Read(…) covers the read family: the tools are asked (Read, Glob and Grep declare it)
    assert [(r.model_dump()["tools"], r.model_dump()["family"]) for r in deny.rules] == [([], "read")]


def test_mcp_rules(tmp_path: Path) -> None:
    assert decide(tmp_path, ["mcp__github"], "mcp__github__create_issue", "write") == "allow"
    assert decide(tmp_path, ["mcp__github__*"], "mcp__github__list", "write") == "allow"
    assert decide(tmp_path, ["mcp__github"], "mcp__gitlab__list", "write") == "ask"
    assert decide(tmp_path, ["mcp__github__list"], "mcp__github__create", "write") == "ask"


def test_aliases_skills_and_not_applicable() -> None:
    assert parse_claude_rule("Task", "allow").dicts() == [{"kind": "tool", "tool": "Subagent", "decision": "allow"}]
    assert parse_claude_rule("Skill(deploy:*)", "allow").dicts() == [
        {"kind": "tool", "tool": "Skill", "arg": "deploy", "decision": "allow"}
    ]
    web = parse_claude_rule("WebSearch", "allow")
    assert web.rules == [] and "not applicable" in web.notes[0]
    narrowed = parse_claude_rule("Task(reviewer)", "allow")  # cannot narrow: an allow is not widened
    assert narrowed.rules == [] and "not applied" in narrowed.notes[0]
    assert parse_claude_rule("Task(reviewer)", "deny").dicts() == [
        {"kind": "tool", "tool": "Subagent", "decision": "deny"}
    ]


@pytest.mark.parametrize("spec", ["Bash(unclosed", "Bash)", "mcp__x(arg)", "Bad Name()"])
def test_malformed_rules(spec: str) -> None:
    with pytest.raises(ValueError, match="bad tool spec"):
        parse_claude_rule(spec, "allow")


def test_kill_shell_rules_apply() -> None:
    """skawld has a KillShell tool: its rules (and the old name KillBash) are kept, not dropped."""
    for spec in ("KillShell", "KillBash"):
        parsed = parse_claude_rule(spec, "deny")
        assert parsed.notes == []
        assert parsed.dicts() == [{"kind": "tool", "tool": "KillShell", "decision": "deny"}]
