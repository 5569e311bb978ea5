"""`claude-agent-sdk` (the official Python package) driving the installed `skawld` through
``cli_path``, against the local wire server: every message must parse into the SDK's types."""

from __future__ import annotations

import json
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeAgentOptions,
    ClaudeSDKClient,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionUpdate,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    create_sdk_mcp_server,
    query,
    tool,
)
from claude_agent_sdk.types import PermissionRuleValue

from tests.cli.harness import MODEL, CliEnv, skawld_command
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(120)

PRICE = {"test-model": {"input": 3, "output": 15}}  # USD per million tokens


def options(cli: CliEnv, **kw: Any) -> ClaudeAgentOptions:
    cli.write_user_config({"pricing": PRICE})
    return ClaudeAgentOptions(
        cli_path=skawld_command()[0],
        cwd=str(cli.repo),
        env=cli.env,
        model=MODEL,
        extra_args={"base-url": cli.srv.url},
        **kw,
    )


async def collect(prompt: str, opts: ClaudeAgentOptions) -> list[Any]:
    return [m async for m in query(prompt=prompt, options=opts)]


def tool_results(messages: list[Any]) -> dict[str, ToolResultBlock]:
    return {
        b.tool_use_id: b
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for b in m.content
        if isinstance(b, ToolResultBlock)
    }


async def test_query_runs_a_multi_turn_tool_session(cli: CliEnv) -> None:
    (cli.repo / "answer.txt").write_text("answer = 41\n")
    path = str(cli.repo / "answer.txt")
    cli.srv.anthropic.enqueue(
        turn(text("Let me look."), tool_call("Read", {"file_path": path}, id="r1")),
        turn(tool_call("Edit", {"file_path": path, "old_string": "41", "new_string": "42"}, id="e1")),
        turn(tool_call("Bash", {"command": "cat answer.txt"}, id="b1")),
        turn(text("Changed the answer to 42.")),
    )
    opts = options(cli, max_turns=8, permission_mode="acceptEdits", allowed_tools=["Bash(cat:*)"])
    messages = await collect("make it 42", opts)

    init, *rest = messages
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["schema_version"] == 1 and init.data["model"] == MODEL
    assert init.data["permissionMode"] == "acceptEdits" and "Read" in init.data["tools"]
    result = rest[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "success" and not result.is_error
    assert result.result == "Changed the answer to 42." and result.num_turns == 4
    assert result.session_id == init.data["session_id"]
    uses = [b for m in rest if isinstance(m, AssistantMessage) for b in m.content if isinstance(b, ToolUseBlock)]
    assert [(u.id, u.name) for u in uses] == [("r1", "Read"), ("e1", "Edit"), ("b1", "Bash")]
    assert all(m.session_id == result.session_id for m in rest if isinstance(m, AssistantMessage))
    results = tool_results(rest)
    assert "answer = 41" in str(results["r1"].content) and "42" in str(results["b1"].content)
    assert not any(r.is_error for r in results.values())
    assert (cli.repo / "answer.txt").read_text() == "answer = 42\n"
    # Four turns of 10 input + 42 output tokens at $3 / $15 per million.
    assert result.usage is not None and result.usage["input_tokens"] == 40 and result.usage["output_tokens"] == 168
    assert result.total_cost_usd == pytest.approx((40 * 3 + 168 * 15) / 1e6)
    assert result.model_usage is not None and result.model_usage[MODEL]["costUSD"] == pytest.approx(
        result.total_cost_usd
    )
    assert result.permission_denials == []


async def test_client_can_use_tool_denies_one_call_and_rewrites_another(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Bash", {"command": "touch denied.txt"}, id="b1")),
        turn(tool_call("Bash", {"command": "touch original.txt"}, id="b2")),
        turn(tool_call("Bash", {"command": "touch c.txt"}, id="b3")),
        turn(text("done")),
    )
    asked: list[tuple[str, dict[str, Any], str | None]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        asked.append((name, tool_input, ctx.tool_use_id))
        if tool_input["command"] == "touch denied.txt":
            return PermissionResultDeny(message="no shell today")
        rule = PermissionRuleValue(tool_name="Bash", rule_content="touch c.txt")
        return PermissionResultAllow(
            updated_input={"command": "touch rewritten.txt"},
            updated_permissions=[PermissionUpdate(type="addRules", rules=[rule], behavior="allow")],
        )

    async with ClaudeSDKClient(options(cli, can_use_tool=can_use_tool)) as client:
        await client.query("make some files")
        messages = [m async for m in client.receive_response()]

    assert [(n, i["command"], t) for n, i, t in asked] == [
        ("Bash", "touch denied.txt", "b1"),
        ("Bash", "touch original.txt", "b2"),
    ]
    results = tool_results(messages)
    assert results["b1"].is_error and "no shell today" in str(results["b1"].content)
    assert not results["b2"].is_error and not results["b3"].is_error
    assert (cli.repo / "rewritten.txt").exists() and (cli.repo / "c.txt").exists()
    assert not (cli.repo / "denied.txt").exists() and not (cli.repo / "original.txt").exists()
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "done"
    assert result.permission_denials is not None
    assert [(d["tool_name"], d["tool_use_id"], d["tool_input"]["command"]) for d in result.permission_denials] == [
        ("Bash", "b1", "touch denied.txt")
    ]


async def test_interrupt_mid_stream_then_the_session_goes_on(cli: CliEnv) -> None:
    held = turn(text("This answer will never be fini", chunks=6), gate_after=3)
    cli.srv.anthropic.enqueue(held, turn(text("second answer")))
    opts = options(cli, include_partial_messages=True)
    async with ClaudeSDKClient(opts) as client:
        await client.query("start a long answer")
        first: list[Any] = []
        async for message in client.receive_messages():
            first.append(message)
            if isinstance(message, StreamEvent) and message.event["type"] == "content_block_delta":
                await client.interrupt()
            if isinstance(message, ResultMessage):
                break
        held.gate.set()
        await client.query("and now?")
        second = [m async for m in client.receive_response()]
    result = first[-1]
    assert isinstance(result, ResultMessage) and result.is_error and result.subtype == "error_during_execution"
    assert not any(isinstance(m, AssistantMessage) for m in first)
    done = second[-1]
    assert isinstance(done, ResultMessage) and done.result == "second answer"
    assert done.session_id == result.session_id


async def test_pre_tool_use_hook_callback_blocks_a_call(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Bash", {"command": "touch blocked.txt"}, id="b1")),
        turn(text("the hook said no")),
    )
    seen: list[dict[str, Any]] = []

    async def guard(data: Any, tool_use_id: str | None, ctx: Any) -> dict[str, Any]:
        seen.append({"input": data, "tool_use_id": tool_use_id})
        return {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "hooks forbid touching files",
            }
        }

    opts = options(cli, permission_mode="bypassPermissions", hooks={"PreToolUse": [HookMatcher("Bash", [guard])]})
    messages = await collect("touch it", opts)
    assert len(seen) == 1 and seen[0]["tool_use_id"] == "b1"
    assert seen[0]["input"]["hook_event_name"] == "PreToolUse"
    assert seen[0]["input"]["tool_input"]["command"] == "touch blocked.txt"
    results = tool_results(messages)
    assert results["b1"].is_error and "hooks forbid touching files" in str(results["b1"].content)
    assert not (cli.repo / "blocked.txt").exists()
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "the hook said no"


async def test_in_process_sdk_mcp_tool(cli: CliEnv) -> None:
    calls: list[dict[str, Any]] = []

    @tool("add", "Add two integers", {"a": int, "b": int})
    async def add(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}

    server = create_sdk_mcp_server("calc", tools=[add])
    cli.srv.anthropic.enqueue(
        turn(tool_call("mcp__calc__add", {"a": 2, "b": 3}, id="m1")),
        turn(text("2 + 3 = 5")),
    )
    opts = options(cli, mcp_servers={"calc": server}, allowed_tools=["mcp__calc"])
    messages = await collect("add 2 and 3", opts)
    init = messages[0]
    assert isinstance(init, SystemMessage) and "mcp__calc__add" in init.data["tools"]
    assert {"name": "calc", "status": "connected"} in init.data["mcp_servers"]
    assert calls == [{"a": 2, "b": 3}]
    assert str(tool_results(messages)["m1"].content) == "5"
    tools_sent = [t["name"] for t in cli.srv.anthropic.requests[0].body["tools"]]
    assert "mcp__calc__add" in tools_sent


async def test_json_schema_gives_structured_output_after_one_corrective_retry(cli: CliEnv) -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    cli.srv.anthropic.enqueue(turn(text('{"answer": "forty-two"}')), turn(text('{"answer": 42}')))
    opts = options(cli, output_format={"type": "json_schema", "schema": schema})
    messages = await collect("what is the answer?", opts)
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    assert result.structured_output == {"answer": 42}
    system = json.dumps(cli.srv.anthropic.requests[0].body["system"])
    assert '\\"answer\\"' in system  # the schema is in the instructions
    retry = cli.srv.anthropic.requests[1].body["messages"][-1]
    assert "did not match the required JSON Schema" in json.dumps(retry)


async def test_resume_continues_the_same_conversation(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("noted: kumquat")), turn(text("you said kumquat")))
    first = await collect("remember the word kumquat", options(cli))
    sid = first[-1].session_id
    second = await collect("what was the word?", options(cli, resume=sid))
    assert isinstance(second[-1], ResultMessage) and second[-1].session_id == sid
    history = json.dumps(cli.srv.anthropic.requests[1].body["messages"])
    assert "kumquat" in history and "noted: kumquat" in history


async def test_fork_session_continues_in_a_copy(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("noted: fig")), turn(text("you said fig")))
    first = await collect("remember the word fig", options(cli))
    sid = first[-1].session_id
    forked = await collect("what was the word?", options(cli, resume=sid, fork_session=True))
    assert isinstance(forked[-1], ResultMessage) and forked[-1].result == "you said fig"
    assert forked[-1].session_id != sid
    assert "noted: fig" in json.dumps(cli.srv.anthropic.requests[1].body["messages"])


async def test_partial_messages_stream_events(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("streamed in pieces", chunks=4)))
    messages = await collect("stream please", options(cli, include_partial_messages=True))
    events = [m.event for m in messages if isinstance(m, StreamEvent)]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "".join(e["delta"]["text"] for e in events if e["type"] == "content_block_delta") == "streamed in pieces"
    final = [m for m in messages if isinstance(m, AssistantMessage)]
    assert [b.text for m in final for b in m.content if isinstance(b, TextBlock)] == ["streamed in pieces"]
    assert final[0].message_id == events[0]["message"]["id"]


async def test_client_switches_model_and_permission_mode(cli: CliEnv) -> None:
    target = str(cli.repo / "new.txt")
    cli.srv.anthropic.enqueue(
        turn(tool_call("Write", {"file_path": target, "content": "x"}, id="w1")),
        turn(text("could not write")),
        turn(tool_call("Write", {"file_path": target, "content": "hello"}, id="w2")),
        turn(text("wrote it")),
    )
    async with ClaudeSDKClient(options(cli)) as client:
        await client.query("write the file")
        first = [m async for m in client.receive_response()]
        await client.set_permission_mode("plan")  # accepted (skawld has plan mode), then left again
        await client.set_permission_mode("acceptEdits")
        await client.set_model("other-model")
        await client.query("try again")
        second = [m async for m in client.receive_response()]
    assert tool_results(first)["w1"].is_error
    assert not tool_results(second)["w2"].is_error and (cli.repo / "new.txt").read_text() == "hello"
    assert [r.body["model"] for r in cli.srv.anthropic.requests] == [MODEL, MODEL, "other-model", "other-model"]
    init = next(m for m in second if isinstance(m, SystemMessage))
    assert init.data["model"] == "other-model" and init.data["permissionMode"] == "acceptEdits"
