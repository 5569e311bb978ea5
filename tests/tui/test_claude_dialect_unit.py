"""`skawld_tui.headless.claude_dialect` and `claude_control` on real runs of a scripted agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import AssistantMessage, StreamEvent, ThinkingBlock, UserMessage
from claude_agent_sdk._internal.message_parser import parse_message

from skawld_core.agent import Agent
from skawld_core.hooks import HookAllow, HookBlock, HookContinue, HookDeny, PostToolUseOutcome
from skawld_core.hooks.claude_format import claude_hook_outcome
from skawld_core.pricing import PriceTable, parse_price_overrides
from skawld_core.sessions.memory import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, thinking, tool_call
from skawld_tui.headless.claude_control import _tool_matcher, apply_permission_updates
from skawld_tui.headless.claude_dialect import ClaudeEmitter


def agent(tmp_path: Path, *turns: Any, **kw: Any) -> Agent:
    return Agent(
        provider=ScriptedProvider(list(turns)),
        model="m1",
        session_store=InMemorySessionStore(),
        cwd=tmp_path,
        permission_mode="yolo",
        **kw,
    )


async def test_emitter_shapes_parse_as_sdk_messages(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hi\n")
    pricing = PriceTable(parse_price_overrides({"m1": {"input": 1_000_000, "output": 0}}))
    a = agent(
        tmp_path,
        reply(thinking("let me see"), "Reading.", tool_call("Read", {"file_path": str(tmp_path / "a.txt")}, id="r1")),
        reply("It says hi."),
        include_partial_messages=True,
        pricing=pricing,
    )
    out: list[dict[str, Any]] = []
    async with a:
        session = await a.session()
        emitter = ClaudeEmitter(out.append, session.id, model=lambda: "m1", pricing=pricing, partial=True)
        async with session.run("read it") as run:
            async for event in run:
                emitter.event(event)
    envelope = emitter.tally.envelope(emitter.result, session.id)
    parsed = [parse_message(m) for m in [*out, envelope]]
    assert None not in parsed
    assistant = [p for p in parsed if isinstance(p, AssistantMessage)]
    assert [type(p.content[0]).__name__ for p in assistant] == [
        "ThinkingBlock",
        "TextBlock",
        "ToolUseBlock",
        "TextBlock",
    ]
    first = assistant[0].content[0]
    assert isinstance(first, ThinkingBlock) and first.signature == ""  # no signature from this provider
    assert len({p.message_id for p in assistant[:3]}) == 1 and assistant[3].message_id != assistant[0].message_id
    stream = [p.event for p in parsed if isinstance(p, StreamEvent)]
    assert stream[0]["message"]["id"] == assistant[0].message_id
    deltas = [e["delta"]["type"] for e in stream if e["type"] == "content_block_delta"]
    assert deltas[:2] == ["thinking_delta", "text_delta"] and "input_json_delta" in deltas
    starts = [e["content_block"]["type"] for e in stream if e["type"] == "content_block_start"]
    assert starts == ["thinking", "text", "tool_use", "text"]
    assert any(isinstance(p, UserMessage) for p in parsed)
    assert envelope["num_turns"] == 2 and envelope["total_cost_usd"] == 20.0  # 2 turns x 10 input tokens x $1
    assert [m["cost_usd"] for m in out if m["type"] == "assistant"] == [10.0, 10.0, 10.0, 10.0]


def test_hook_outcomes_and_matchers() -> None:
    def _outcome(event: str, out: dict[str, Any]) -> Any:  # as a claude-agent-sdk host's callback is read
        return claude_hook_outcome(event, out, keep_going_on_stop=True)

    def _matches(pattern: str | None, name: str) -> bool:
        return _tool_matcher(pattern)(name)

    pre = {"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}}
    assert _outcome("PreToolUse", pre) == HookAllow(updated_input={"command": "ls"})
    assert _outcome("PreToolUse", {"decision": "block", "reason": "no"}) == HookDeny("no")
    assert _outcome("PreToolUse", {"hookSpecificOutput": {"updatedInput": {"a": 1}}}) == HookContinue(
        updated_input={"a": 1}
    )
    assert _outcome("PreToolUse", {}) is None
    assert _outcome("UserPromptSubmit", {"decision": "block", "reason": "off topic"}) == HookBlock("off topic")
    ctx = {"hookSpecificOutput": {"additionalContext": "remember X"}}
    assert _outcome("UserPromptSubmit", ctx) == HookContinue(additional_context="remember X")
    assert _outcome("PostToolUse", ctx) == PostToolUseOutcome("remember X")
    assert _outcome("Stop", {"continue": False, "stopReason": "keep going"}) == HookBlock("keep going")
    assert _matches("Edit|Write", "Write") and not _matches("Edit|Write", "Bash")
    assert _matches("mcp__.*", "mcp__gh__list") and _matches(None, "Bash") and _matches("*", "Bash")
    assert not _matches("Bash", "BashOutput")


async def test_permission_updates_change_rules_and_mode(tmp_path: Path) -> None:
    async with agent(tmp_path) as a:
        a.set_permission_mode("default")
        updates = [
            {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}], "behavior": "allow"},
            {"type": "addRules", "rules": [{"toolName": "Read"}], "behavior": "deny"},
            {"type": "setMode", "mode": "acceptEdits"},
        ]
        apply_permission_updates(a, updates)
        assert a.permission_mode == "acceptEdits"
        assert [r.model_dump(exclude_none=True) for r in a.permissions.rules] == [
            {"kind": "bash", "pattern": "npm test", "decision": "allow"},
            {"kind": "tool", "tool": "Read", "decision": "deny"},
        ]
