"""Per-turn overhead of the skawld loop over a bare loop on the same scripted stream.

A 200-turn session: each turn the model streams a little text and calls three
parallel-safe tools; the last turn answers. The bare loop iterates the same
provider streams and runs the same tools with `asyncio.gather`, with no events,
permissions, persistence or bookkeeping. Both run in this process, alternately,
so machine noise hits both. Goal: under 1 ms of overhead per turn.

    python bench/loop.py [--turns 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from skawld_core import Agent
from skawld_core.providers.base import ProviderRequest, ToolUseInputDelta, ToolUseStart
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, ScriptedTurn, reply, text, tool_call
from skawld_core.tools import Tool, ToolContext, ToolResult


class PathInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str


class EchoRead(Tool[PathInput]):
    name = "EchoRead"
    description = "Returns a fixed string."
    scope = "read"
    parallel_safe = True
    input_model = PathInput

    async def execute(self, value: PathInput, ctx: ToolContext) -> ToolResult:
        await asyncio.sleep(0)
        return ToolResult(content=f"contents of {value.path}")


def script(turns: int) -> list[ScriptedTurn]:
    out = [
        reply(
            text("Looking at the files now.", chunk=5),
            *(tool_call("EchoRead", {"path": f"src/file_{t}_{k}.py"}, id=f"t{t}_{k}", chunks=3) for k in range(3)),
        )
        for t in range(turns - 1)
    ]
    out.append(reply(text("All done.", chunk=3)))
    return out


async def bare_loop(turns: int) -> float:
    provider = ScriptedProvider(script(turns))
    tool = EchoRead()
    ctx = ToolContext(cwd=Path("."), session_id="s", run_id="r", tool_use_id="t")
    start = time.perf_counter()
    for _ in range(turns):
        buffers: dict[str, list[str]] = {}
        async for event in provider.stream(ProviderRequest(model="m", messages=[])):
            if isinstance(event, ToolUseStart):
                buffers[event.id] = []
            elif isinstance(event, ToolUseInputDelta):
                buffers[event.id].append(event.json_delta)
        calls = [tool.validate(json.loads("".join(parts))) for parts in buffers.values()]
        await asyncio.gather(*(tool.execute(c, ctx) for c in calls))
    return time.perf_counter() - start


async def skawld_loop(turns: int) -> float:
    agent = Agent(
        provider=ScriptedProvider(script(turns)),
        model="m",
        tools=[EchoRead()],
        session_store=InMemorySessionStore(),
        permission_mode="yolo",
    )
    session = await agent.session()
    start = time.perf_counter()
    async with session.run("go") as run:
        async for event in run:
            last: Any = event
    elapsed = time.perf_counter() - start
    assert last.type == "result" and last.subtype == "success", last
    await agent.close()
    return elapsed


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    await skawld_loop(10)  # warm up imports and caches
    bare: list[float] = []
    full: list[float] = []
    for _ in range(args.repeat):
        bare.append(await bare_loop(args.turns))
        full.append(await skawld_loop(args.turns))
    b, f = statistics.median(bare), statistics.median(full)
    per_turn_ms = (f - b) / args.turns * 1000
    print(f"turns={args.turns} repeat={args.repeat} (3 parallel tool calls per turn)")
    print(f"bare loop    median {b * 1000:8.1f} ms  ({b / args.turns * 1000:.3f} ms/turn)")
    print(f"skawld loop  median {f * 1000:8.1f} ms  ({f / args.turns * 1000:.3f} ms/turn)")
    print(f"ratio skawld/bare: {f / b:.2f}x")
    print(f"overhead per turn: {per_turn_ms:.3f} ms (goal < 1 ms) -> {'OK' if per_turn_ms < 1 else 'OVER'}")


if __name__ == "__main__":
    asyncio.run(main())
