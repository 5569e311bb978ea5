"""The permission engine's defensive branches, each told apart from its removal: failing closed,
deny rules on protected paths, the bash set evaluated once and only for Bash, rule removal,
the deciding rule, mode updates from a host's answer and rewritten input onto a named path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skawld_core.permissions import BashRule, PathRule, PendingToolCall, PermissionEngine, ToolRule
from skawld_core.tools.path_policy import tool_path_policy

ROOT = Path("/repo")


def call(tool: str, scope: Any = "exec", **inp: Any) -> PendingToolCall:
    return PendingToolCall(
        tool_name=tool,
        tool_use_id="t",
        input=inp,
        summary="",
        scope=scope,
        cwd=ROOT,
        path_policy=tool_path_policy(tool),
    )


def test_a_rule_that_cannot_be_evaluated_denies() -> None:
    rules = [PathRule(tools=["Read"], paths=["[z-a]"], decision="deny")]
    engine = PermissionEngine(mode="yolo", rules=rules, project_root=ROOT)
    decision = engine.evaluate(call("Read", "read", file_path="x"))
    assert (decision.behavior, decision.reason) == ("deny", "Permission evaluation failed for Read.")


def test_a_deny_rule_on_a_protected_path_denies_rather_than_asks() -> None:
    rules = [PathRule(tools=["Write"], paths=["**/.git/**"], decision="deny")]
    decision = PermissionEngine(rules=rules, project_root=ROOT).evaluate(
        call("Write", "write", file_path=".git/config")
    )
    assert (decision.behavior, decision.reason) == ("deny", "path rule matched Write.")


def test_a_rule_decision_names_its_kind() -> None:
    engine = PermissionEngine(rules=[ToolRule(tool="Glob", decision="allow")], project_root=ROOT)
    decision = engine.evaluate(call("Glob", "read", pattern="*"))
    assert (decision.behavior, decision.reason) == ("allow", "tool rule matched Glob.")


def test_bash_rules_judge_only_bash() -> None:
    engine = PermissionEngine(mode="yolo", rules=[BashRule(pattern="rm", decision="deny")], project_root=ROOT)
    assert engine.evaluate(call("mcp__shell__run", command="rm -rf x")).behavior == "allow"
    assert engine.evaluate(call("Bash", command="rm -rf x")).behavior == "deny"
    assert engine.evaluate(call("Bash", command=["rm"])).behavior == "allow"  # not a command string


def test_the_bash_set_is_evaluated_once_at_its_first_rule() -> None:
    # `ls` is allowed by the whole set; a later bash rule is no second chance for a suffix of it
    rules = [BashRule(pattern="ls", decision="ask"), ToolRule(tool="Read", decision="allow")]
    rules += [BashRule(pattern="ls", decision="allow")]
    engine = PermissionEngine(mode="yolo", rules=rules, project_root=ROOT)
    assert engine.evaluate(call("Bash", command="ls")).behavior == "ask"
    assert engine.deciding_rule(call("Bash", command="ls")) == rules[0]


def test_deciding_rule() -> None:
    rules = [ToolRule(tool="Read", decision="deny"), BashRule(pattern="git status", decision="allow")]
    engine = PermissionEngine(rules=rules, project_root=ROOT)
    assert engine.deciding_rule(call("Read", "read", file_path="a")) == rules[0]
    assert engine.deciding_rule(call("Bash", command="git status")) == rules[1]
    assert engine.deciding_rule(call("Glob", "read", pattern="*")) is None
    assert engine.project_root == ROOT


def test_remove_rule_removes_the_last_equal_rule() -> None:
    first, second = ToolRule(tool="Read", decision="allow"), ToolRule(tool="Glob", decision="allow")
    engine = PermissionEngine(rules=[first, second, first], project_root=ROOT)
    assert engine.remove_rule({"kind": "tool", "tool": "Read", "decision": "allow"}) is True
    assert engine.rules == (first, second)
    assert engine.remove_rule(first) is True
    assert engine.rules == (second,)
    assert engine.remove_rule(first) is False
    assert engine.rules == (second,)


async def test_a_host_answer_sets_the_mode_past_malformed_updates() -> None:
    async def host(_: Any) -> Any:
        return {"behavior": "allow", "updatedPermissions": ["junk", {"type": "setMode", "mode": "acceptEdits"}]}

    engine = PermissionEngine(can_use_tool=host, project_root=ROOT)
    decision = await engine.resolve(call("Bash", command="make"), lambda raw: raw)
    assert (decision.behavior, decision.set_mode) == ("allow", "acceptEdits")


def test_rewritten_input_onto_a_path_a_rule_names_is_allowed() -> None:
    rules = [PathRule(tools=["Write"], paths=["/repo/.git/config"], decision="allow")]
    engine = PermissionEngine(rules=rules, project_root=ROOT)
    original = call("Write", "write", file_path="notes.txt", content="")
    assert engine.recheck_updated_input(original, {"file_path": "/repo/.git/config", "content": ""}) is None
    refused = engine.recheck_updated_input(original, {"file_path": "/repo/.git/HEAD", "content": ""})
    assert refused is not None and "protected path" in refused
