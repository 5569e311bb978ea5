"""PermissionEngine: modes, tool rules, JSON rules, and the `can_use_tool` contract (engine.test, mode.test)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from skawld_core.errors import ConfigError, ToolInputError
from skawld_core.permissions import (
    BashRule,
    CanUseToolRequest,
    PathRule,
    PendingToolCall,
    PermissionAllow,
    PermissionDecision,
    PermissionDeny,
    PermissionEngine,
    RegexPattern,
    ToolRule,
    parse_rule,
)

ROOT = Path("/repo")


def pending(tool: str = "Bash", scope: Any = "exec", **inp: Any) -> PendingToolCall:
    if not inp and tool == "Bash":
        inp = {"command": "git status"}
    return PendingToolCall(
        tool_name=tool,
        tool_use_id="toolu_1",
        input=inp,
        summary=f"{tool} {inp}",
        scope=scope,
        cwd=ROOT,
    )


def validate_bash(raw: dict[str, Any]) -> dict[str, Any]:
    command = raw.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ToolInputError("command must be a non-empty string", tool_name="Bash")
    return {"command": command.strip(), "canonical": True}


# --- mode.test --------------------------------------------------------------------------------

MODE_TABLE = [
    # (tool, scope, default, acceptEdits, yolo)
    ("Read", "read", "allow", "allow", "allow"),
    ("Glob", "read", "allow", "allow", "allow"),
    ("Grep", "read", "allow", "allow", "allow"),
    ("TaskGet", "read", "allow", "allow", "allow"),
    ("TaskList", "read", "allow", "allow", "allow"),
    ("AskUser", "read", "allow", "allow", "allow"),
    ("TaskCreate", "write", "allow", "allow", "allow"),
    ("TaskUpdate", "write", "allow", "allow", "allow"),
    ("Write", "write", "ask", "allow", "allow"),
    ("Edit", "write", "ask", "allow", "allow"),
    ("mcp__gh__create_issue", "write", "ask", "allow", "allow"),
    ("Bash", "exec", "ask", "ask", "allow"),
    ("Skill", "exec", "ask", "ask", "allow"),
    ("Subagent", "exec", "allow", "allow", "allow"),  # its own calls are checked one by one
]


@pytest.mark.parametrize(("tool", "scope", "default", "accept", "yolo"), MODE_TABLE)
def test_mode_defaults(tool: str, scope: Any, default: str, accept: str, yolo: str) -> None:
    for mode, expected in (("default", default), ("acceptEdits", accept), ("yolo", yolo)):
        engine = PermissionEngine(mode=mode, project_root=ROOT)  # type: ignore[arg-type]
        decision = engine.evaluate(pending(tool, scope, x=1))
        assert decision.behavior == expected, (tool, mode)
        assert decision.reason is None


def test_task_tools_denied_by_a_deny_rule() -> None:
    engine = PermissionEngine(rules=[ToolRule(tool="TaskCreate", decision="deny")], project_root=ROOT)
    assert engine.evaluate(pending("TaskCreate", "write", subject="x")).behavior == "deny"
    assert engine.evaluate(pending("TaskUpdate", "write", id="1")).behavior == "allow"


def test_invalid_mode_raises() -> None:
    with pytest.raises(ConfigError):
        PermissionEngine(mode="paranoid", project_root=ROOT)  # type: ignore[arg-type]


def test_set_mode() -> None:
    engine = PermissionEngine(project_root=ROOT)
    engine.set_mode("yolo")
    assert engine.mode == "yolo"
    assert engine.evaluate(pending()).behavior == "allow"
    with pytest.raises(ConfigError):
        engine.set_mode("nope")  # type: ignore[arg-type]


# --- engine.test: rules vs mode ------------------------------------------------------------------


def test_first_match_wins_in_both_orders() -> None:
    allow_first = [ToolRule(tool="Bash", decision="allow"), ToolRule(tool="Bash", decision="deny")]
    deny_first = list(reversed(allow_first))
    assert PermissionEngine(rules=allow_first, project_root=ROOT).evaluate(pending()).behavior == "allow"
    assert PermissionEngine(rules=deny_first, project_root=ROOT).evaluate(pending()).behavior == "deny"


def test_explicit_deny_beats_yolo() -> None:
    engine = PermissionEngine(
        mode="yolo", rules=[{"kind": "bash", "pattern": "git push", "decision": "deny"}], project_root=ROOT
    )
    d = engine.evaluate(pending(command="git push origin main"))
    assert d == PermissionDecision("deny", "bash rule matched Bash.")


def test_allow_rule_beats_ask() -> None:
    engine = PermissionEngine(rules=[BashRule(pattern="git status", decision="allow")], project_root=ROOT)
    assert engine.evaluate(pending(command="git status --short")).behavior == "allow"


def test_invalid_call_shape_is_denied() -> None:
    engine = PermissionEngine(mode="yolo", project_root=ROOT)
    bad = PendingToolCall(tool_name="", tool_use_id="t", input={}, summary="", scope="read", cwd=ROOT)
    assert engine.evaluate(bad).behavior == "deny"


# --- rules.test: tool rules --------------------------------------------------------------------


def test_tool_rule_exact_and_star() -> None:
    engine = PermissionEngine(rules=[ToolRule(tool="Write", decision="deny")], project_root=ROOT)
    d = engine.evaluate(pending("Write", "write", file_path="/repo/a"))
    assert d == PermissionDecision("deny", "tool rule matched Write.")
    assert engine.evaluate(pending("Edit", "write", file_path="/repo/a")).behavior == "ask"
    star = PermissionEngine(mode="yolo", rules=[ToolRule(tool="*", decision="deny")], project_root=ROOT)
    assert star.evaluate(pending("Read", "read", file_path="/a")).reason == "tool rule matched Read."


def test_tool_rule_skill_arg() -> None:
    rules: list[Any] = [
        ToolRule(tool="Skill", arg="deploy", decision="deny"),
        ToolRule(tool="Skill", arg="*", decision="allow"),
    ]
    engine = PermissionEngine(rules=rules, project_root=ROOT)
    assert engine.evaluate(pending("Skill", "exec", skill="deploy")).behavior == "deny"
    assert engine.evaluate(pending("Skill", "exec", skill="/deploy")).behavior == "deny"
    assert engine.evaluate(pending("Skill", "exec", skill="review")).behavior == "allow"


def test_tool_rule_with_arg_never_matches_non_skill() -> None:
    for tool in ("Write", "*"):
        engine = PermissionEngine(rules=[ToolRule(tool=tool, arg="*", decision="deny")], project_root=ROOT)
        assert engine.evaluate(pending("Write", "write", file_path="/repo/a", skill="*")).behavior == "ask"


def test_add_rule_appends() -> None:
    engine = PermissionEngine(rules=[ToolRule(tool="Bash", decision="deny")], project_root=ROOT)
    engine.add_rule({"kind": "tool", "tool": "Bash", "decision": "allow"})
    assert len(engine.rules) == 2
    assert engine.evaluate(pending()).behavior == "deny"
    engine2 = PermissionEngine(project_root=ROOT)
    engine2.add_rule(ToolRule(tool="Skill", arg="review", decision="allow"))
    assert engine2.evaluate(pending("Skill", "exec", skill="review")).behavior == "allow"


def test_rules_are_copied() -> None:
    rules: list[Any] = [ToolRule(tool="Bash", decision="deny")]
    engine = PermissionEngine(rules=rules, project_root=ROOT)
    rules.clear()
    assert engine.evaluate(pending()).behavior == "deny"
    assert isinstance(engine.rules, tuple)


# --- parse_rule -------------------------------------------------------------------------------


def test_parse_rule_json_shapes() -> None:
    assert parse_rule({"kind": "bash", "pattern": "git status", "decision": "allow"}) == BashRule(
        pattern="git status", decision="allow"
    )
    assert parse_rule({"kind": "bash", "pattern": {"regex": "^ls"}, "decision": "allow"}) == BashRule(
        pattern=RegexPattern(regex="^ls"), decision="allow"
    )
    rule = parse_rule({"kind": "path", "paths": ["**/.env"], "decision": "deny"})
    assert isinstance(rule, PathRule)
    assert rule.tools == ["Write", "Edit"]
    assert parse_rule({"kind": "tool", "tool": "Skill", "arg": "x", "decision": "ask"}) == ToolRule(
        tool="Skill", arg="x", decision="ask"
    )
    typed = ToolRule(tool="Read", decision="allow")
    assert parse_rule(typed) is typed


def test_parse_rule_invalid_regex_is_accepted() -> None:
    rule = parse_rule({"kind": "bash", "pattern": {"regex": "(("}, "decision": "deny"})
    assert isinstance(rule, BashRule)


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"kind": "nope", "decision": "allow"}, "kind must be one of"),
        ({"tool": "Bash", "decision": "allow"}, "kind must be one of"),
        ({"kind": "tool", "decision": "allow"}, "tool"),
        ({"kind": "tool", "tool": "Bash", "decision": "maybe"}, "decision"),
        ({"kind": "tool", "tool": "Bash", "decision": "allow", "extra": 1}, "extra"),
        ({"kind": "path", "paths": [], "decision": "deny"}, "paths"),
        ({"kind": "path", "paths": "**/.env", "decision": "deny"}, "paths"),
        ({"kind": "bash", "pattern": "", "decision": "allow"}, "pattern"),
        ({"kind": "bash", "pattern": {"re": "x"}, "decision": "allow"}, "pattern"),
        ("not a rule", "expected a rule object"),
    ],
)
def test_parse_rule_errors(raw: Any, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_rule(raw)
    assert fragment in str(info.value)
    assert "permission rule" in str(info.value)


def test_engine_rejects_bad_rules() -> None:
    with pytest.raises(ConfigError):
        PermissionEngine(rules=[{"kind": "bash"}], project_root=ROOT)


# --- resolve: the can_use_tool contract -------------------------------------------------------


async def test_callback_receives_request() -> None:
    seen: list[CanUseToolRequest] = []

    async def cb(req: CanUseToolRequest) -> PermissionAllow:
        seen.append(req)
        return PermissionAllow()

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
    call = PendingToolCall(
        tool_name="Bash",
        tool_use_id="toolu_1",
        input={"command": "git status"},
        summary='Bash {"command":"git status"}',
        scope="exec",
        cwd=ROOT,
    )
    assert await engine.resolve(call, validate_bash) == PermissionDecision("allow")
    assert seen == [
        CanUseToolRequest(
            tool_name="Bash",
            tool_use_id="toolu_1",
            input={"command": "git status"},
            summary='Bash {"command":"git status"}',
            mode="default",
        )
    ]


async def test_no_callback() -> None:
    engine = PermissionEngine(project_root=ROOT)
    assert await engine.resolve(pending(), validate_bash) == PermissionDecision(
        "deny", "canUseTool callback is not configured"
    )


async def test_deny_message_as_given() -> None:
    async def cb(req: CanUseToolRequest) -> PermissionDeny:
        return PermissionDeny(message="User said no.")

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
    assert await engine.resolve(pending(), validate_bash) == PermissionDecision("deny", "User said no.")


async def test_callback_raises() -> None:
    async def cb(req: CanUseToolRequest) -> PermissionAllow:
        raise RuntimeError("ui crashed")

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
    d = await engine.resolve(pending(), validate_bash)
    assert d == PermissionDecision("deny", "permission callback failed or aborted")


async def test_callback_own_cancellation_is_a_deny() -> None:
    async def cb(req: CanUseToolRequest) -> PermissionAllow:
        fut: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        fut.cancel()
        await fut
        return PermissionAllow()

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
    d = await engine.resolve(pending(), validate_bash)
    assert d == PermissionDecision("deny", "permission callback failed or aborted")


async def test_caller_cancellation_propagates() -> None:
    started = asyncio.Event()

    async def cb(req: CanUseToolRequest) -> PermissionAllow:
        started.set()
        await asyncio.sleep(10)
        return PermissionAllow()

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
    task = asyncio.create_task(engine.resolve(pending(), validate_bash))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_updated_input_is_canonicalized() -> None:
    async def cb(req: CanUseToolRequest) -> PermissionAllow:
        return PermissionAllow(updated_input={"command": "  git status  "})

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
    d = await engine.resolve(pending(), validate_bash)
    assert d == PermissionDecision("allow", None, {"command": "git status", "canonical": True})


async def test_invalid_updated_input() -> None:
    async def cb(req: CanUseToolRequest) -> PermissionAllow:
        return PermissionAllow(updated_input={"command": ""})

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
    assert await engine.resolve(pending(), validate_bash) == PermissionDecision("deny", "updated input is invalid")


async def test_json_shaped_responses_are_accepted() -> None:
    responses: list[Any] = [
        {"behavior": "allow"},
        {"behavior": "allow", "updatedInput": {"command": " ls "}},
        {"behavior": "allow", "updated_input": {"command": " ls "}},
        {"behavior": "deny", "message": "nope"},
    ]
    expected = [
        PermissionDecision("allow"),
        PermissionDecision("allow", None, {"command": "ls", "canonical": True}),
        PermissionDecision("allow", None, {"command": "ls", "canonical": True}),
        PermissionDecision("deny", "nope"),
    ]
    for response, want in zip(responses, expected, strict=True):

        async def cb(req: CanUseToolRequest, response: Any = response) -> Any:
            return response

        engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
        assert await engine.resolve(pending(), validate_bash) == want


@pytest.mark.parametrize(
    "garbage",
    [
        None,
        [],
        {},
        "allow",
        True,
        {"behavior": "maybe"},
        {"behavior": "deny"},
        {"behavior": "deny", "message": 42},
        {"behavior": "allow", "updatedInput": []},
        {"behavior": "allow", "updatedInput": "x"},
        {"behavior": "ALLOW"},
    ],
)
async def test_malformed_responses(garbage: Any) -> None:
    async def cb(req: CanUseToolRequest) -> Any:
        return garbage

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
    d = await engine.resolve(pending(), validate_bash)
    assert d == PermissionDecision("deny", "permission callback returned an invalid response")


async def test_resolve_forced_ask() -> None:
    calls: list[str] = []

    async def cb(req: CanUseToolRequest) -> PermissionAllow:
        calls.append(req.tool_name)
        return PermissionAllow()

    # yolo would allow, but a forced ask still runs the callback
    engine = PermissionEngine(mode="yolo", can_use_tool=cb, project_root=ROOT)
    assert (await engine.resolve_forced_ask(pending(), validate_bash)).behavior == "allow"
    assert calls == ["Bash"]
    # an allow rule does not skip the callback either
    engine = PermissionEngine(
        mode="yolo", rules=[ToolRule(tool="Bash", decision="allow")], can_use_tool=cb, project_root=ROOT
    )
    await engine.resolve_forced_ask(pending(), validate_bash)
    assert calls == ["Bash", "Bash"]
    # a deny rule still wins, and the callback is not called
    engine = PermissionEngine(
        mode="yolo", rules=[ToolRule(tool="Bash", decision="deny")], can_use_tool=cb, project_root=ROOT
    )
    assert await engine.resolve_forced_ask(pending(), validate_bash) == PermissionDecision(
        "deny", "tool rule matched Bash."
    )
    assert calls == ["Bash", "Bash"]


async def test_request_mode_reflects_engine_mode() -> None:
    modes: list[str] = []

    async def cb(req: CanUseToolRequest) -> PermissionAllow:
        modes.append(req.mode)
        return PermissionAllow()

    engine = PermissionEngine(mode="acceptEdits", can_use_tool=cb, project_root=ROOT)
    await engine.resolve(pending(), validate_bash)
    assert modes == ["acceptEdits"]


async def test_sync_callback_is_accepted() -> None:
    def cb(req: CanUseToolRequest) -> PermissionDeny:
        return PermissionDeny(message="sync no")

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)  # type: ignore[arg-type]
    assert await engine.resolve(pending(), validate_bash) == PermissionDecision("deny", "sync no")


async def test_callback_returning_an_unrelated_model_is_invalid() -> None:
    from pydantic import BaseModel

    class Other(BaseModel):
        ok: bool = True

    async def cb(req: CanUseToolRequest) -> Any:
        return Other()

    engine = PermissionEngine(can_use_tool=cb, project_root=ROOT)
    d = await engine.resolve(pending(), validate_bash)
    assert d.reason == "permission callback returned an invalid response"
