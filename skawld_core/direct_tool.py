"""Running one tool call outside a turn (the app's `!cmd` and `@file`).

The call goes through the same `Scheduler` a model's call does: input
validation, PreToolUse hooks, the permission engine (an "ask" reaches the
agent's `can_use_tool`), the sandbox and process containment of the tool, and
PostToolUse hooks. Nothing is written to the conversation: the caller decides
what of the result the model sees.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .events import Event
from .hooks import HookContext
from .messages import ToolResultBlock, ToolUseBlock
from .scheduler import Scheduler
from .tools.registry import ToolRegistry

if TYPE_CHECKING:
    from .host import RunSession
    from .tools.base import AnyTool, ToolContext

EventSink = Callable[[Event], Awaitable[None]]


async def _drop(_: Event) -> None:
    return None


async def run_tool_call(
    session: RunSession,
    name: str,
    input: dict[str, Any],
    *,
    on_event: EventSink | None = None,
    tool_use_id: str | None = None,
    tool: AnyTool | None = None,
) -> ToolResultBlock:
    """Run the tool `name` once with `input` in `session`'s context, between runs.

    `on_event` receives the call's events (`permission_request`,
    `tool_call_start`, interim output, `tool_call_end`) so a UI can show a panel.
    A denied call comes back as an error result, as it would to the model.
    `tool` runs that tool instance instead of looking `name` up in the session's
    registry (the user may attach a file with Read when the model has no Read).
    It may run while a run is active (the user's call beside the model's).
    """
    agent = session.agent
    run_id = str(uuid.uuid4())
    sink = on_event or _drop
    pending: list[Event] = []  # interim events (tool output), delivered in order

    def emit_nowait(event: Event) -> None:
        pending.append(event)

    async def emit(event: Event) -> None:
        while pending:
            await sink(pending.pop(0))
        await sink(event)

    def make_context(call_id: str, emit_cb: Callable[[Event], None]) -> ToolContext:
        return session.tool_context(run_id, call_id, emit_cb)

    hook_context = None
    if agent.hooks is not None:
        hook_context = HookContext(session_id=session.id, run_id=run_id, cwd=str(agent.cwd))
    scheduler = Scheduler(
        registry=ToolRegistry([tool]) if tool is not None else session.tools,
        permissions=agent.permissions,
        hooks=agent.hooks,
        hook_context=hook_context,
        make_context=make_context,
        emit=emit,
        emit_nowait=emit_nowait,
        cwd=agent.cwd,
        set_mode=agent.set_permission_mode,
    )
    block = ToolUseBlock(id=tool_use_id or f"toolu_user_{uuid.uuid4().hex[:20]}", name=name, input=input)
    results = await scheduler.run([block])
    while pending:
        await sink(pending.pop(0))
    return results[0]
