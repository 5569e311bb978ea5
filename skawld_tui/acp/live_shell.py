"""Bash's output, live in the editor: each call's stdout and stderr are streamed as
``tool_call_update`` content (status ``in_progress``) while the command runs.

The command keeps running in skawld's own sandbox, never in an ACP client terminal
(``terminal/create``): the sandboxed launch hands bubblewrap its arguments, the script and the
seccomp program as inherited file descriptors, which a process the editor starts cannot get, and
the editor's terminal is no sandbox. So the editor sees the output as text, not as an embedded
terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from acp import helpers

from skawld_core.tools.base import ToolContext, ToolResult
from skawld_core.tools.bash import BashInput, BashTool

LIVE_TAIL_CHARS = 16_000
"""How much of the latest output each update carries (an update replaces the content shown)."""


class _LiveOutput:
    """One call's output so far and the sender that keeps the editor up to date, coalescing the
    pieces that arrive while an update is on its way."""

    def __init__(self, send: Callable[[str], Any]) -> None:
        self._send = send
        self._tail = ""
        self._dirty = False
        self._task: asyncio.Task[None] | None = None

    def add(self, text: str) -> None:
        self._tail = (self._tail + text)[-LIVE_TAIL_CHARS:]
        self._dirty = True
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        while self._dirty:
            self._dirty = False
            with contextlib.suppress(Exception):  # the client went away: the result still ends the call
                await self._send(self._tail)

    async def finish(self) -> None:
        if self._task is not None:
            await self._task


class LiveBashTool(BashTool):
    """Bash whose output reaches the editor while the command runs."""

    def __init__(self, conn: Any, session_id: Callable[[], str]) -> None:
        self._conn = conn
        self._session_id = session_id
        self._live: dict[str, _LiveOutput] = {}

    def output_seen(self, ctx: ToolContext, text: str) -> None:
        live = self._live.get(ctx.tool_use_id)
        if live is None:
            live = self._live[ctx.tool_use_id] = _LiveOutput(lambda tail: self._update(ctx.tool_use_id, tail))
        live.add(text)

    async def _update(self, tool_use_id: str, tail: str) -> None:
        update = helpers.update_tool_call(
            tool_use_id, status="in_progress", content=[helpers.tool_content(helpers.text_block(tail))]
        )
        await self._conn.session_update(self._session_id(), update)

    async def execute(self, value: BashInput, ctx: ToolContext) -> ToolResult:
        try:
            return await super().execute(value, ctx)
        finally:  # the live updates go out before the call's result does
            live = self._live.pop(ctx.tool_use_id, None)
            if live is not None:
                await live.finish()
