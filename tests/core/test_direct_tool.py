"""`Session.run_tool` (one tool call outside a turn) and `run(context=...)`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skawld_core import Agent
from skawld_core.events import Event, PermissionRequestEvent, ToolCallEndEvent, ToolCallStartEvent
from skawld_core.messages import TextBlock
from skawld_core.permissions import CanUseToolRequest, PermissionAllow, PermissionDeny
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply
from skawld_core.tools.bash import BashTool
from skawld_core.tools.read import ReadTool


def _agent(tmp_path: Path, provider: ScriptedProvider | None = None, **kwargs: Any) -> Agent:
    return Agent(
        provider=provider or ScriptedProvider(),
        model="test-model",
        tools=kwargs.pop("tools", [BashTool(), ReadTool()]),
        session_store=InMemorySessionStore(),
        cwd=tmp_path,
        sandbox="off",
        **kwargs,
    )


async def test_a_direct_bash_call_runs_through_the_permission_callback(tmp_path: Path) -> None:
    asked: list[str] = []

    async def can_use_tool(req: CanUseToolRequest) -> PermissionAllow:
        asked.append(str(req.input["command"]))
        return PermissionAllow()

    agent = _agent(tmp_path, can_use_tool=can_use_tool)
    session = await agent.session()
    events: list[Event] = []

    async def sink(event: Event) -> None:
        events.append(event)

    block = await session.run_tool("Bash", {"command": "echo hi; echo oops >&2; touch made"}, on_event=sink)
    assert asked == ["echo hi; echo oops >&2; touch made"]
    assert block.content == "hi\n\n---\noops\n\nexit: 0" and not block.is_error
    assert (tmp_path / "made").exists()
    kinds = [type(e) for e in events]
    assert kinds[0] is PermissionRequestEvent
    assert ToolCallStartEvent in kinds and kinds[-1] is ToolCallEndEvent
    assert session.full_history == []  # nothing entered the conversation
    await agent.close()


async def test_a_denied_direct_call_does_not_run(tmp_path: Path) -> None:
    async def can_use_tool(req: CanUseToolRequest) -> PermissionDeny:
        return PermissionDeny(message="no thanks")

    agent = _agent(tmp_path, can_use_tool=can_use_tool)
    session = await agent.session()
    block = await session.run_tool("Bash", {"command": "touch made"})
    assert block.is_error and "no thanks" in str(block.content)
    assert not (tmp_path / "made").exists()
    await agent.close()


async def test_read_deny_rules_apply_and_a_private_tool_can_be_given(tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("top secret\n")
    (tmp_path / "open.txt").write_text("hello\n")
    agent = _agent(
        tmp_path,
        tools=[],  # the model has no Read; the user's call brings its own
        permission_rules=[{"kind": "path", "tools": ["Read"], "paths": ["secret.txt"], "decision": "deny"}],
    )
    session = await agent.session()
    denied = await session.run_tool("Read", {"file_path": str(tmp_path / "secret.txt")}, tool=ReadTool())
    assert denied.is_error and "top secret" not in str(denied.content)
    ok = await session.run_tool("Read", {"file_path": str(tmp_path / "open.txt")}, tool=ReadTool())
    assert not ok.is_error and "hello" in str(ok.content)
    missing = await session.run_tool("Read", {"file_path": str(tmp_path / "open.txt")})
    assert missing.is_error and "not registered" in str(missing.content)
    await agent.close()


async def test_run_context_blocks_precede_the_prompt(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply("ok")])
    agent = _agent(tmp_path, provider=provider, tools=[])
    session = await agent.session()
    async with session.run("the prompt", context=["<bash-input>ls</bash-input>", "ctx two"]) as run:
        async for _ in run:
            pass
    texts = [b.text for b in provider.requests[0].messages[-1].content if isinstance(b, TextBlock)]
    at = texts.index("the prompt")
    assert texts[at - 2 : at] == ["<bash-input>ls</bash-input>", "ctx two"]
    await agent.close()


async def test_steer_context_blocks_precede_the_steered_prompt(tmp_path: Path) -> None:
    from skawld_core.messages import ImageBlock
    from skawld_core.testing import tool_call

    (tmp_path / "a.txt").write_text("a\n")
    provider = ScriptedProvider(
        [reply(tool_call("Read", {"file_path": str(tmp_path / "a.txt")}, id="r1")), reply("done")]
    )
    agent = _agent(tmp_path, provider=provider, tools=[ReadTool()])
    session = await agent.session()
    image = {"media_type": "image/png", "data": "iVBORw0KGgo="}
    async with session.run("first") as run:
        async for event in run:
            if event.type == "tool_call_start":
                session.steer("steered", context=["<bash-input>pwd</bash-input>"], images=[image])
    steered = provider.requests[1].messages[-1].content
    texts = [b.text for b in steered if isinstance(b, TextBlock)]
    assert texts[:2] == ["<bash-input>pwd</bash-input>", "steered"]
    assert isinstance(steered[-1], ImageBlock)
    await agent.close()
