"""A SIGKILL mid-tool never leaves an invalid transcript (DESIGN decision 1)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skawld_core import Agent, Message, ToolResultBlock
from skawld_core.sessions import SqliteSessionStore
from skawld_core.testing import ScriptedProvider, reply
from skawld_core.transcript import dangling_tool_uses

CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    from pathlib import Path
    from pydantic import BaseModel
    from skawld_core import Agent, to_json
    from skawld_core.sessions import SqliteSessionStore
    from skawld_core.testing import ScriptedProvider, reply, tool_call
    from skawld_core.tools import Tool, ToolContext, ToolResult

    class In(BaseModel):
        path: str

    class Hang(Tool[In]):
        name = "Hang"; description = "blocks forever"; scope = "read"; parallel_safe = True; input_model = In
        async def execute(self, value, ctx):
            Path(value.path).write_text("running")
            await asyncio.Event().wait()
            return ToolResult(content="never")

    async def main():
        db, marker = sys.argv[1], sys.argv[2]
        provider = ScriptedProvider([
            reply("reading"),
            reply(tool_call("Hang", {"path": marker}, id="t-hang"), tool_call("Hang", {"path": marker + "2"}, id="t-2")),
        ])
        agent = Agent(provider=provider, model="m", tools=[Hang()], session_store=SqliteSessionStore(db))
        session = await agent.session(id="crash-1")
        for prompt in ("first", "second"):
            async with session.run(prompt) as run:
                async for event in run:
                    print(to_json(event), flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.timeout(60)
async def test_sigkill_mid_tool_then_resume_in_new_process(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    marker = tmp_path / "marker"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    child = subprocess.Popen(
        [sys.executable, str(script), str(db), str(marker)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert child.stdout is not None
    acknowledged: list[Message] = []
    for line in child.stdout:
        event = json.loads(line)
        if event["type"] in ("user", "assistant"):
            acknowledged.append(Message.model_validate(event["message"]))
        if event["type"] == "tool_call_start" and event["tool_use_id"] == "t-2":
            break
    while not marker.exists():  # the tool is really running
        await asyncio.sleep(0.01)
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL

    provider = ScriptedProvider([reply("resumed fine")])
    async with Agent(provider=provider, model="m", tools=[], session_store=SqliteSessionStore(db)) as agent:
        session = await agent.session(id="crash-1")
        view = session.provider_view
        # everything acknowledged before the kill is there, in order
        assert view[: len(acknowledged)] == acknowledged
        assert dangling_tool_uses(view) == []
        repair = view[-1]
        assert [(b.tool_use_id, b.is_error) for b in repair.content if isinstance(b, ToolResultBlock)] == [
            ("t-hang", True),
            ("t-2", True),
        ]
        async with session.run("continue") as run:
            events = [e async for e in run]
        assert events[-1].type == "result" and events[-1].subtype == "success"  # type: ignore[union-attr]
        sent = provider.requests[0].messages
        answered = {b.tool_use_id for m in sent for b in m.content if isinstance(b, ToolResultBlock)}
        used = {b.id for m in sent for b in m.tool_uses()}
        assert used <= answered
