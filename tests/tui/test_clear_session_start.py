"""`/clear` (and `/new`) in the app opens a session whose SessionStart hooks run with source
"clear", as after Claude Code's `/clear` (the hooks' matching: tests/core/test_session_start_matchers.py)."""

from __future__ import annotations

from pathlib import Path

from skawld_core.hooks import HookContext, HookContinue, SessionStartInput
from skawld_core.testing import reply

from .helpers import SIZE, make_app, ready, run_done, send, until

SOURCES: list[str] = []


async def record(inp: SessionStartInput, ctx: HookContext) -> HookContinue:
    SOURCES.append(inp.source)
    return HookContinue()


async def test_clear_starts_a_session_with_source_clear(tmp_path: Path) -> None:
    SOURCES.clear()
    app = make_app([reply("one"), reply("two")], cwd=tmp_path, hooks={"SessionStart": [record]})
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await run_done(pilot)
        first = app.session
        await send(pilot, "/clear")
        await until(lambda: app.session is not first, pilot)
        await send(pilot, "again")
        await run_done(pilot)
    assert SOURCES == ["startup", "clear"]
