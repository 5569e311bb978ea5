"""Small in-memory tools for loop, scheduler and app tests (the reference's mock tools)."""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, ConfigDict

from skawld_core.tools import Tool, ToolContext, ToolResult


class PathInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str


class MockRead(Tool[PathInput]):
    """Parallel-safe read; optionally gated per path by an asyncio.Event."""

    name = "MockRead"
    description = "Read a path (test double)."
    scope = "read"
    parallel_safe = True
    input_model = PathInput

    def __init__(self, name: str = "MockRead") -> None:
        self.name = name
        self.calls: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}
        self.running = 0
        self.max_running = 0

    def summarize(self, value: PathInput) -> str:
        return f"{self.name} {value.path}"

    async def execute(self, value: PathInput, ctx: ToolContext) -> ToolResult:
        self.calls.append(value.path)
        self.running += 1
        self.max_running = max(self.max_running, self.running)
        try:
            gate = self.gates.get(value.path)
            if gate is not None:
                await gate.wait()
            return ToolResult(content=f"read {value.path}")
        finally:
            self.running -= 1


class MockWrite(Tool[PathInput]):
    name = "MockWrite"
    description = "Write a path (test double)."
    scope = "write"
    parallel_safe = False
    input_model = PathInput

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def execute(self, value: PathInput, ctx: ToolContext) -> ToolResult:
        self.calls.append(value.path)
        return ToolResult(content="write result")


class MockExec(Tool[PathInput]):
    name = "MockExec"
    description = "Run something (test double)."
    scope = "exec"
    parallel_safe = False
    input_model = PathInput

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.gate: asyncio.Event | None = None
        self.started = asyncio.Event()
        self.cancelled = False

    async def execute(self, value: PathInput, ctx: ToolContext) -> ToolResult:
        self.calls.append(value.path)
        self.started.set()
        try:
            if self.gate is not None:
                await self.gate.wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolResult(content=f"ran {value.path}")


class MockAlwaysFail(Tool[PathInput]):
    name = "MockAlwaysFail"
    description = "Raises (test double)."
    scope = "write"
    parallel_safe = False
    input_model = PathInput

    async def execute(self, value: PathInput, ctx: ToolContext) -> ToolResult:
        raise RuntimeError("kaboom")


class EmittingTool(Tool[PathInput]):
    """Emits two interim events through ctx.emit, then returns."""

    name = "Emitter"
    description = "Emits events (test double)."
    scope = "read"
    parallel_safe = True
    input_model = PathInput

    async def execute(self, value: PathInput, ctx: ToolContext) -> ToolResult:
        from skawld_core import HookErrorEvent

        assert ctx.emit is not None
        ctx.emit(HookErrorEvent(hook_event="Progress", message=f"{value.path} 1", tool_use_id=ctx.tool_use_id))
        await asyncio.sleep(0)
        ctx.emit(HookErrorEvent(hook_event="Progress", message=f"{value.path} 2", tool_use_id=ctx.tool_use_id))
        return ToolResult(content="emitted")


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]
