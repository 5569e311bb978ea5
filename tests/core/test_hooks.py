"""HookRunner: matchers, ordering, composition, rewrites, fail-open/closed, timeouts, validation (hooks.test)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from skawld_core.errors import ConfigError, ToolInputError
from skawld_core.events import HookErrorEvent
from skawld_core.hooks import (
    HookAllow,
    HookAsk,
    HookBlock,
    HookContext,
    HookContinue,
    HookDeny,
    HookEntry,
    HookRunner,
    Hooks,
    PostToolUseInput,
    PostToolUseOutcome,
    PreCompactInput,
    PreToolUseInput,
    StopInput,
    UserPromptSubmitInput,
    matcher_matches,
)

CTX = HookContext(session_id="s1", run_id="r1", cwd="/repo")


def pre(tool: str = "Bash", **inp: Any) -> PreToolUseInput:
    inp = inp or {"command": "ls"}
    return PreToolUseInput(tool_name=tool, tool_use_id="tu-1", input=inp, summary=f"{tool} {json.dumps(inp)}")


def revalidate(raw: dict[str, Any]) -> tuple[dict[str, Any], str]:
    if not isinstance(raw.get("command"), str):
        raise ToolInputError("bad shape: command must be a string")
    canonical = {"command": raw["command"].strip()}
    return canonical, f"Bash {json.dumps(canonical)}"


def recorder(log: list[str], name: str, outcome: Any = None) -> Any:
    async def hook(inp: Any, ctx: HookContext) -> Any:
        log.append(name)
        return outcome

    return hook


def test_context_cwd_is_a_path() -> None:
    assert CTX.cwd == Path("/repo")


# --- matchers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("matcher", "tool", "hit"),
    [
        ("Bash", "Bash", True),
        ("Ba*", "Bash", True),
        ("*", "Bash", True),
        (None, "Bash", True),
        ("bash", "Bash", False),
        ("Bas", "Bash", False),
        ("Ba?h", "Bash", False),  # only `*` is special
        ("mcp__github__*", "mcp__github__create_issue", True),
        ("*", "mcp__github__create_issue", True),
        ("mcp__gitlab__*", "mcp__github__create_issue", False),
        ("Read|Write", "Read", False),  # literal, not a regex
        ("*Read*", "MockReadFast", True),
    ],
)
def test_matcher(matcher: str | None, tool: str, hit: bool) -> None:
    assert matcher_matches(matcher, tool) is hit


async def test_matching_hooks_fire_in_registration_order() -> None:
    log: list[str] = []
    runner = HookRunner(
        {
            "PreToolUse": [
                HookEntry(hook=recorder(log, "exact"), matcher="Bash"),
                HookEntry(hook=recorder(log, "prefix"), matcher="Ba*"),
                HookEntry(hook=recorder(log, "lower"), matcher="bash"),
                HookEntry(hook=recorder(log, "star"), matcher="*"),
                HookEntry(hook=recorder(log, "none")),
            ]
        }
    )
    result = await runner.pre_tool_use(pre(), CTX, revalidate)
    assert log == ["exact", "prefix", "star", "none"]
    assert result.decision == "continue"
    assert result.errors == []


async def test_mcp_matchers() -> None:
    log: list[str] = []
    runner = HookRunner(
        Hooks(
            pre_tool_use=[
                HookEntry(hook=recorder(log, "gh"), matcher="mcp__github__*"),
                HookEntry(hook=recorder(log, "star"), matcher="*"),
                HookEntry(hook=recorder(log, "none")),
                HookEntry(hook=recorder(log, "bash"), matcher="Bash"),
            ]
        )
    )
    await runner.pre_tool_use(pre("mcp__github__create_issue", title="x"), CTX, revalidate)
    assert log == ["gh", "star", "none"]


# --- PreToolUse composition ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcomes", "decision"),
    [
        ([None, None], "continue"),
        ([HookContinue(), None], "continue"),
        ([HookAllow()], "allow"),
        ([HookAllow(), HookAsk()], "ask"),
        ([HookAsk(), HookAllow()], "ask"),
        ([HookAllow(), HookContinue()], "allow"),
        ([HookAsk(), HookDeny("no")], "deny"),
        ([{"decision": "allow"}], "allow"),
        ([{"behavior": "ask"}], "ask"),
    ],
)
async def test_pre_tool_use_composition(outcomes: list[Any], decision: str) -> None:
    log: list[str] = []
    runner = HookRunner({"pre_tool_use": [recorder(log, str(i), o) for i, o in enumerate(outcomes)]})
    result = await runner.pre_tool_use(pre(), CTX, revalidate)
    assert result.decision == decision


async def test_deny_short_circuits() -> None:
    log: list[str] = []
    runner = HookRunner(
        {"preToolUse": [recorder(log, "a", HookDeny("blocked by policy")), recorder(log, "b", HookAllow())]}
    )
    result = await runner.pre_tool_use(pre(), CTX, revalidate)
    assert log == ["a"]
    assert (result.decision, result.reason) == ("deny", "blocked by policy")


async def test_rewrite_is_threaded_revalidated_and_resummarized() -> None:
    seen: list[PreToolUseInput] = []

    async def first(inp: PreToolUseInput, ctx: HookContext) -> HookContinue:
        seen.append(inp)
        return HookContinue(updated_input={"command": "  git status  "})

    async def second(inp: PreToolUseInput, ctx: HookContext) -> None:
        seen.append(inp)

    runner = HookRunner({"PreToolUse": [first, second]})
    result = await runner.pre_tool_use(pre(command="ls"), CTX, revalidate)
    assert seen[0].input == {"command": "ls"}
    assert seen[1].input == {"command": "git status"}
    assert seen[1].summary == 'Bash {"command": "git status"}'
    assert result.decision == "continue"
    assert result.input == {"command": "git status"}
    assert result.summary == 'Bash {"command": "git status"}'


async def test_allow_with_rewrite() -> None:
    runner = HookRunner({"PreToolUse": [recorder([], "a", HookAllow(updated_input={"command": "pwd"}))]})
    result = await runner.pre_tool_use(pre(), CTX, revalidate)
    assert (result.decision, result.input) == ("allow", {"command": "pwd"})


async def test_invalid_rewrite_denies() -> None:
    runner = HookRunner({"PreToolUse": [recorder([], "a", HookContinue(updated_input={"command": 5}))]})
    result = await runner.pre_tool_use(pre(), CTX, revalidate)
    assert result.decision == "deny"
    assert result.reason is not None
    assert result.reason.startswith("invalid hook rewrite")
    assert "bad shape" in result.reason
    assert result.input == {"command": "ls"}


async def test_raise_fails_closed() -> None:
    async def boom(inp: Any, ctx: HookContext) -> None:
        raise RuntimeError("boom")

    runner = HookRunner({"PreToolUse": [boom, recorder([], "later", HookAllow())]})
    result = await runner.pre_tool_use(pre(), CTX, revalidate)
    assert (result.decision, result.reason) == ("deny", "Hook failed: boom")
    assert result.errors == [HookErrorEvent(hook_event="PreToolUse", message="boom", tool_use_id="tu-1")]


async def test_timeout_fails_closed() -> None:
    async def slow(inp: Any, ctx: HookContext) -> None:
        await asyncio.sleep(5)

    runner = HookRunner({"PreToolUse": [{"hook": slow, "timeoutMs": 20}]})
    result = await runner.pre_tool_use(pre(), CTX, revalidate)
    assert result.decision == "deny"
    assert result.reason == "Hook failed: Hook timed out after 20ms"
    assert result.errors == [
        HookErrorEvent(hook_event="PreToolUse", message="Hook timed out after 20ms", tool_use_id="tu-1")
    ]


async def test_hook_raising_timeout_error_is_not_reported_as_a_timeout() -> None:
    async def hook(inp: Any, ctx: HookContext) -> None:
        raise TimeoutError("upstream timed out")

    runner = HookRunner({"PreToolUse": [hook]})
    result = await runner.pre_tool_use(pre(), CTX, revalidate)
    assert result.reason == "Hook failed: upstream timed out"


async def test_invalid_outcome_fails_closed() -> None:
    runner = HookRunner({"PreToolUse": [recorder([], "a", "allow")]})
    result = await runner.pre_tool_use(pre(), CTX, revalidate)
    assert result.decision == "deny"
    assert result.reason is not None and result.reason.startswith("Hook failed: invalid PreToolUse outcome")
    assert len(result.errors) == 1


async def test_caller_cancellation_propagates() -> None:
    started = asyncio.Event()

    async def slow(inp: Any, ctx: HookContext) -> None:
        started.set()
        await asyncio.sleep(10)

    runner = HookRunner({"PreToolUse": [slow]})
    task = asyncio.create_task(runner.pre_tool_use(pre(), CTX, revalidate))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_sync_hook_functions_are_accepted() -> None:
    def sync_hook(inp: Any, ctx: HookContext) -> HookDeny:
        return HookDeny("sync says no")

    runner = HookRunner({"PreToolUse": [sync_hook]})
    assert (await runner.pre_tool_use(pre(), CTX, revalidate)).reason == "sync says no"


# --- PostToolUse ------------------------------------------------------------------------------


def post(tool: str = "Write") -> PostToolUseInput:
    return PostToolUseInput(
        tool_name=tool, tool_use_id="tu-1", input={}, content="write result", is_error=False, duration_ms=3
    )


async def test_post_tool_use_collects_context_and_fails_open() -> None:
    async def boom(inp: Any, ctx: HookContext) -> None:
        raise ValueError("post boom")

    runner = HookRunner(
        {
            "PostToolUse": [
                recorder([], "1", PostToolUseOutcome(additional_context="first")),
                recorder([], "2", PostToolUseOutcome(additional_context="")),
                recorder([], "3", None),
                boom,
                recorder([], "4", {"additionalContext": "second"}),
                HookEntry(hook=recorder([], "5", PostToolUseOutcome(additional_context="x")), matcher="Read"),
            ]
        }
    )
    result = await runner.post_tool_use(post(), CTX)
    assert result.additional_context == ["first", "second"]
    assert result.errors == [HookErrorEvent(hook_event="PostToolUse", message="post boom", tool_use_id="tu-1")]


# --- UserPromptSubmit -----------------------------------------------------------------------------


async def test_user_prompt_submit() -> None:
    log: list[str] = []

    async def boom(inp: Any, ctx: HookContext) -> None:
        raise RuntimeError("ups boom")

    runner = HookRunner(
        {
            "user_prompt_submit": [
                recorder(log, "ctx1", HookContinue(additional_context="c1")),
                boom,
                recorder(log, "void"),
                recorder(log, "ctx2", HookContinue(additional_context="c2")),
                recorder(log, "block1", HookBlock("contains a secret")),
                recorder(log, "block2", HookBlock("second")),
            ]
        }
    )
    result = await runner.user_prompt_submit(UserPromptSubmitInput(prompt="my secret", source="run"), CTX)
    assert result.block_reason == "contains a secret"
    assert log == ["ctx1", "void", "ctx2", "block1"]
    assert result.errors == [HookErrorEvent(hook_event="UserPromptSubmit", message="ups boom")]
    assert result.errors[0].tool_use_id is None


async def test_user_prompt_submit_context_accumulates() -> None:
    runner = HookRunner(
        {
            "UserPromptSubmit": [
                recorder([], "a", HookContinue(additional_context="one")),
                recorder([], "b", {"additionalContext": "two"}),
            ]
        }
    )
    result = await runner.user_prompt_submit(UserPromptSubmitInput(prompt="p", source="steer"), CTX)
    assert (result.block_reason, result.additional_context) == (None, ["one", "two"])


async def test_user_prompt_submit_ignores_matcher() -> None:
    runner = HookRunner({"UserPromptSubmit": [HookEntry(hook=recorder([], "a", HookBlock("x")), matcher="Bash")]})
    assert (await runner.user_prompt_submit(UserPromptSubmitInput(prompt="p"), CTX)).block_reason == "x"


# --- Stop -------------------------------------------------------------------------------------


async def test_stop_first_block_wins_and_fails_open() -> None:
    seen: list[StopInput] = []

    async def boom(inp: StopInput, ctx: HookContext) -> None:
        seen.append(inp)
        raise RuntimeError("stop boom")

    async def guard(inp: StopInput, ctx: HookContext) -> HookBlock | None:
        seen.append(inp)
        return None if inp.stop_hook_active else HookBlock("tests still red")

    runner = HookRunner({"stop": [boom, guard, recorder([], "x", HookBlock("other"))]})
    first = await runner.stop(StopInput(stop_reason="end_turn", final_text="done", stop_hook_active=False), CTX)
    assert first.block_reason == "tests still red"
    assert first.errors == [HookErrorEvent(hook_event="Stop", message="stop boom")]

    runner2 = HookRunner({"stop": [boom, guard]})
    second = await runner2.stop(StopInput(stop_reason="end_turn", final_text="done", stop_hook_active=True), CTX)
    assert second.block_reason is None
    assert seen[-1].stop_hook_active is True


# --- PreCompact --------------------------------------------------------------------------------


async def test_pre_compact_is_observational() -> None:
    seen: list[PreCompactInput] = []

    async def obs(inp: PreCompactInput, ctx: HookContext) -> HookBlock:
        seen.append(inp)
        return HookBlock("ignored")

    async def boom(inp: PreCompactInput, ctx: HookContext) -> None:
        raise RuntimeError("pc boom")

    runner = HookRunner({"PreCompact": [obs, boom]})
    errors = await runner.pre_compact(
        PreCompactInput(trigger="threshold", messages_before=30, tokens_before=155000), CTX
    )
    assert seen == [PreCompactInput(trigger="threshold", messages_before=30, tokens_before=155000)]
    assert errors == [HookErrorEvent(hook_event="PreCompact", message="pc boom")]
    assert await HookRunner({"PreCompact": [obs]}).pre_compact(PreCompactInput("forced", 3, 0), CTX) == []


# --- has / construction ------------------------------------------------------------------------


def test_has() -> None:
    runner = HookRunner({"PreToolUse": [HookEntry(hook=recorder([], "a"), matcher="Bash")]})
    assert runner.has("PreToolUse")
    assert runner.has("pre_tool_use")
    assert runner.has("PreToolUse", "Bash")
    assert not runner.has("PreToolUse", "Read")
    assert not runner.has("PostToolUse")
    assert not runner.has("Stop")
    assert not runner.has("Bogus")
    assert not HookRunner(None).has("PreToolUse")


async def noop(inp: Any, ctx: HookContext) -> None:
    return None


@pytest.mark.parametrize(
    "config",
    [
        {"PreToolUse": noop},  # not a list
        {"PreToolUse": [{"matcher": "Bash"}]},  # missing hook
        {"PreToolUse": [{"hook": "not callable"}]},
        {"PreToolUse": [{"hook": noop, "timeoutMs": 0}]},
        {"PreToolUse": [{"hook": noop, "timeoutMs": -5}]},
        {"PreToolUse": [{"hook": noop, "timeout_ms": float("inf")}]},
        {"PreToolUse": [{"hook": noop, "timeout_ms": float("nan")}]},
        {"PreToolUse": [{"hook": noop, "timeout_ms": "100"}]},
        {"PreToolUse": [{"hook": noop, "timeout_ms": True}]},
        {"PreToolUse": [{"hook": noop, "matcher": 5}]},
        {"PreToolUse": [HookEntry(hook=noop, matcher=5)]},  # type: ignore[arg-type]
        {"PreToolUse": [HookEntry(hook=noop, timeout_ms=0)]},
        {"PreToolUse": [42]},
        {"OnSomething": []},
        {"PreToolUse": [{"hook": noop, "bogus": 1}]},
        Hooks(stop=[HookEntry(hook="nope")]),  # type: ignore[arg-type]
        ["not", "a", "mapping"],
    ],
)
def test_construction_validation(config: Any) -> None:
    with pytest.raises(ConfigError):
        HookRunner(config)


def test_construction_accepts_every_key_style() -> None:
    runner = HookRunner(
        {
            "PreToolUse": [noop],
            "postToolUse": [{"hook": noop, "matcher": "Read", "timeoutMs": 10}],
            "user_prompt_submit": (noop,),
            "Stop": [{"hooks": [noop, noop]}],
            "preCompact": [],
        }
    )
    hooks = runner.hooks
    assert len(hooks.pre_tool_use) == 1
    assert hooks.post_tool_use[0].timeout_ms == 10
    assert len(hooks.stop) == 2
    assert runner.has("UserPromptSubmit")
    assert not runner.has("PreCompact")
