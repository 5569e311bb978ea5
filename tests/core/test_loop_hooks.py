"""Hooks wired through the loop and scheduler (reference scheduler-hooks.test, loop-hooks.test)."""

from __future__ import annotations

from typing import Any

from skawld_core import ErrorEvent, Event, HookErrorEvent, ResultEvent, TextBlock, ToolResultBlock, UserEvent
from skawld_core.hooks import (
    HookAllow,
    HookAsk,
    HookBlock,
    HookContext,
    HookContinue,
    HookDeny,
    HookEntry,
    Hooks,
    PostToolUseOutcome,
)
from skawld_core.permissions import CanUseToolRequest, PermissionAllow
from skawld_core.testing import ScriptedProvider, reply, tool_call
from tests.support.mock_tools import types

from .conftest import MakeAgent


async def run_all(agent: Any, prompt: str = "go") -> list[Event]:
    session = await agent.session()
    async with session.run(prompt) as run:
        return [e async for e in run]


def results(events: list[Event]) -> list[ToolResultBlock]:
    return [
        b
        for e in events
        if isinstance(e, UserEvent) and e.subtype == "tool_result"
        for b in e.message.content
        if isinstance(b, ToolResultBlock)
    ]


def one_call(name: str, path: str = "a") -> ScriptedProvider:
    return ScriptedProvider([reply(tool_call(name, {"path": path}, id="tu-1")), reply("done")])


async def test_pre_tool_use_deny(make_agent: MakeAgent) -> None:
    post_calls: list[Any] = []

    async def deny(inp: Any, ctx: HookContext) -> HookDeny:
        return HookDeny(reason="blocked by policy")

    async def post(inp: Any, ctx: HookContext) -> None:
        post_calls.append(inp)

    agent = make_agent(
        one_call("MockWrite"), hooks=Hooks(pre_tool_use=[HookEntry(deny)], post_tool_use=[HookEntry(post)])
    )
    events = await run_all(agent)
    assert results(events)[0].content == "Tool call denied: blocked by policy"
    assert agent.tools.get("MockWrite").calls == []  # type: ignore[union-attr]
    assert post_calls == [] and "permission_request" not in types(events)


async def test_pre_tool_use_allow_bypasses_ask(make_agent: MakeAgent) -> None:
    called: list[str] = []

    async def allow(inp: Any, ctx: HookContext) -> HookAllow:
        return HookAllow()

    async def can_use_tool(req: CanUseToolRequest) -> PermissionAllow:
        called.append(req.tool_use_id)
        return PermissionAllow()

    agent = make_agent(one_call("MockWrite"), hooks=Hooks(pre_tool_use=[HookEntry(allow)]), can_use_tool=can_use_tool)
    events = await run_all(agent)
    assert called == [] and not results(events)[0].is_error


async def test_pre_tool_use_rewrite_reaches_permission_request_and_execute(make_agent: MakeAgent) -> None:
    async def rewrite(inp: Any, ctx: HookContext) -> HookContinue:
        return HookContinue(updated_input={"path": "/staged"})

    async def can_use_tool(req: CanUseToolRequest) -> PermissionAllow:
        assert req.input == {"path": "/staged"}
        return PermissionAllow()

    agent = make_agent(one_call("MockWrite"), hooks=Hooks(pre_tool_use=[HookEntry(rewrite)]), can_use_tool=can_use_tool)
    events = await run_all(agent)
    request = next(e for e in events if e.type == "permission_request")
    start = next(e for e in events if e.type == "tool_call_start")
    assert request.requests[0].input == {"path": "/staged"}  # type: ignore[union-attr]
    assert start.input == {"path": "/staged"}  # type: ignore[union-attr]
    assert agent.tools.get("MockWrite").calls == ["/staged"]  # type: ignore[union-attr]


async def test_pre_tool_use_ask_forces_callback_in_yolo_but_deny_rule_wins(make_agent: MakeAgent) -> None:
    called: list[str] = []

    async def ask(inp: Any, ctx: HookContext) -> HookAsk:
        return HookAsk()

    async def can_use_tool(req: CanUseToolRequest) -> PermissionAllow:
        called.append(req.tool_name)
        return PermissionAllow()

    hooks = Hooks(pre_tool_use=[HookEntry(ask)])
    await run_all(make_agent(one_call("MockRead"), hooks=hooks, permission_mode="yolo", can_use_tool=can_use_tool))
    assert called == ["MockRead"]
    called.clear()
    events = await run_all(
        make_agent(
            one_call("MockRead"),
            hooks=hooks,
            permission_mode="yolo",
            can_use_tool=can_use_tool,
            permission_rules=[{"kind": "tool", "tool": "MockRead", "decision": "deny"}],
        )
    )
    assert called == [] and results(events)[0].is_error


async def test_raising_pre_tool_use_fails_closed(make_agent: MakeAgent) -> None:
    async def crash(inp: Any, ctx: HookContext) -> None:
        raise RuntimeError("guard crashed")

    events = await run_all(make_agent(one_call("MockRead"), hooks=Hooks(pre_tool_use=[HookEntry(crash)])))
    errors = [e for e in events if isinstance(e, HookErrorEvent)]
    assert [(e.hook_event, e.tool_use_id) for e in errors] == [("PreToolUse", "tu-1")]
    assert results(events)[0].content == "Tool call denied: Hook failed: guard crashed"


async def test_post_tool_use_context_is_appended(make_agent: MakeAgent) -> None:
    async def post(inp: Any, ctx: HookContext) -> PostToolUseOutcome:
        return PostToolUseOutcome(additional_context="remember the tests")

    events = await run_all(
        make_agent(one_call("MockWrite"), hooks=Hooks(post_tool_use=[HookEntry(post)]), permission_mode="yolo")
    )
    assert results(events)[0].content == ("write result\n\n<system-reminder>\nremember the tests\n</system-reminder>")


async def test_raising_post_tool_use_leaves_content(make_agent: MakeAgent) -> None:
    async def post(inp: Any, ctx: HookContext) -> None:
        raise RuntimeError("post boom")

    events = await run_all(
        make_agent(one_call("MockWrite"), hooks=Hooks(post_tool_use=[HookEntry(post)]), permission_mode="yolo")
    )
    assert results(events)[0].content == "write result"
    assert any(isinstance(e, HookErrorEvent) and e.hook_event == "PostToolUse" for e in events)


async def test_user_prompt_submit_context_and_block(make_agent: MakeAgent) -> None:
    async def context(inp: Any, ctx: HookContext) -> HookContinue:
        if "secret" in inp.prompt:
            return HookBlock(reason="contains a secret")  # type: ignore[return-value]
        return HookContinue(additional_context="branch: main")

    provider = ScriptedProvider([reply("ok"), reply("ok2")])
    agent = make_agent(provider, hooks=Hooks(user_prompt_submit=[HookEntry(context)]))
    session = await agent.session()
    async with session.run("my secret") as run:
        blocked = [e async for e in run]
    assert types(blocked) == ["system", "error", "result"]
    assert isinstance(blocked[1], ErrorEvent)
    assert (blocked[1].error.name, blocked[1].error.message, blocked[1].error.retryable) == (
        "HookError",
        "contains a secret",
        False,
    )
    assert await agent.store.load_messages(session.id) == []
    async with session.run("fine") as run:
        events = [e async for e in run]
    prompt = provider.requests[0].messages[0].content
    assert prompt[1] == TextBlock(text="fine")
    assert prompt[2] == TextBlock(text="<system-reminder>\nbranch: main\n</system-reminder>")
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "success"


async def test_stop_hook_block_continues_once(make_agent: MakeAgent) -> None:
    seen: list[bool] = []

    async def stop(inp: Any, ctx: HookContext) -> HookBlock | None:
        seen.append(inp.stop_hook_active)
        return None if inp.stop_hook_active else HookBlock(reason="tests still red")

    provider = ScriptedProvider([reply("first"), reply("second")])
    events = await run_all(make_agent(provider, hooks=Hooks(stop=[HookEntry(stop)])))
    stop_user = [e for e in events if isinstance(e, UserEvent) and e.subtype == "stop_hook"]
    assert len(stop_user) == 1
    assert stop_user[0].message.content == [TextBlock(text="<system-reminder>\ntests still red\n</system-reminder>")]
    assert types(events).count("assistant") == 2 and seen == [False, True]
    assert isinstance(events[-1], ResultEvent) and events[-1].final_text == "second"


async def test_stop_hook_blocking_hits_turn_limit(make_agent: MakeAgent) -> None:
    async def stop(inp: Any, ctx: HookContext) -> HookBlock:
        return HookBlock(reason="again")

    events = await run_all(make_agent(ScriptedProvider([reply("x")]), hooks=Hooks(stop=[HookEntry(stop)]), max_turns=1))
    assert isinstance(events[-2], ErrorEvent) and events[-2].error.name == "TurnLimitError"


async def test_raising_stop_hook_fails_open(make_agent: MakeAgent) -> None:
    async def stop(inp: Any, ctx: HookContext) -> None:
        raise RuntimeError("stop boom")

    events = await run_all(make_agent(ScriptedProvider([reply("x")]), hooks=Hooks(stop=[HookEntry(stop)])))
    errors = [e for e in events if isinstance(e, HookErrorEvent)]
    assert [(e.hook_event, "stop boom" in e.message) for e in errors] == [("Stop", True)]
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "success"


async def test_steer_blocked_by_hook_rejects_only_that_steer(make_agent: MakeAgent) -> None:
    import asyncio

    from skawld_core import HookError

    async def guard(inp: Any, ctx: HookContext) -> HookBlock | None:
        return HookBlock(reason="no secrets") if "secret" in inp.prompt else None

    provider = ScriptedProvider([reply(tool_call("MockRead", {"path": "a"})), reply("done")])
    session = await make_agent(provider, hooks=Hooks(user_prompt_submit=[HookEntry(guard)])).session()
    futures: list[asyncio.Future[None]] = []
    async with session.run("go") as run:
        events = []
        async for e in run:
            events.append(e)
            if isinstance(e, UserEvent) and e.subtype == "tool_result":
                futures += [session.steer("a secret"), session.steer("plain")]
    steering = [e for e in events if isinstance(e, UserEvent) and e.subtype == "steering"]
    assert [e.message.content for e in steering] == [[TextBlock(text="plain")]]
    assert "error" not in types(events)
    try:
        await futures[0]
        raise AssertionError("blocked steer should fail")
    except HookError as exc:
        assert str(exc) == "no secrets"
    await futures[1]
