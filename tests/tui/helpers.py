"""Building apps over scripted agents for the pilot and snapshot tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import TextArea

from skawld_core import Agent
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, ScriptedTurn
from skawld_tui.app.skawld_app import SkawldApp

SIZE = (100, 32)


class AppForTests(SkawldApp):
    """No durations and no welcome block on screen (snapshots stay stable)."""

    SHOW_TIMINGS = False
    SHOW_WELCOME = False  # tests/tui/test_run_welcome.py shows it


def make_app(
    turns: Iterable[ScriptedTurn] = (),
    *,
    tools: list[Any] | None = None,
    store: InMemorySessionStore | None = None,
    resume_id: str | None = "test-session",
    mode: str = "default",
    cwd: Path | None = None,
    model: str = "test-model",
    provider: Any = None,
    **agent_kwargs: Any,
) -> AppForTests:
    """An app whose agent replays `turns`; `app.provider` and `app.store` are exposed."""
    provider = provider or ScriptedProvider(list(turns))
    store = store or InMemorySessionStore()
    # The status bar shows the sandbox state; keep snapshots the same on machines without bwrap.
    agent_kwargs.setdefault("sandbox", "off")

    def factory(can_use_tool: Callable[..., Any], ask_user: Any) -> Agent:
        return Agent(
            provider=provider,
            model=model,
            tools=tools if tools is not None else [],
            permission_mode=mode,  # type: ignore[arg-type]
            can_use_tool=can_use_tool,
            ask_user=ask_user,
            session_store=store,
            cwd=cwd or Path(__file__).parent,
            include_partial_messages=True,
            **agent_kwargs,
        )

    app = AppForTests(agent_factory=factory, resume_id=resume_id)
    app.test_provider = provider  # type: ignore[attr-defined]
    app.test_store = store  # type: ignore[attr-defined]
    return app


async def until(predicate: Callable[[], Any], pilot: Pilot[Any], timeout: float = 5.0) -> None:
    """Pause the pilot until `predicate()` is true (bounded)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.01)


async def ready(pilot: Pilot[Any]) -> None:
    """Wait for the session to open; stop cursor blink for stable screenshots."""
    app: SkawldApp = pilot.app  # type: ignore[assignment]
    for ta in app.query(TextArea):
        ta.cursor_blink = False
    await until(lambda: app.session_ready.is_set(), pilot)


async def send(pilot: Pilot[Any], text: str) -> None:
    """Type `text` into the prompt and press Enter."""
    app: SkawldApp = pilot.app  # type: ignore[assignment]
    app.prompt.set_text(text)
    await pilot.press("enter")


async def run_done(pilot: Pilot[Any], runs: int = 1) -> None:
    """Wait until `runs` runs have finished."""
    app: SkawldApp = pilot.app  # type: ignore[assignment]
    await until(lambda: app.runs_completed >= runs and not app.running, pilot)
    await pilot.pause()


def plain_agent_factory(
    provider: Any,
    *,
    cwd: Path,
    tools: Iterable[Any] = (),
    store: InMemorySessionStore | None = None,
    model: str = "test-model",
    **agent_kwargs: Any,
) -> Callable[..., Agent]:
    """The `agent_factory` `run_plain` takes: an unsandboxed agent on `provider`
    with the plain mode's `can_use_tool` / `ask_user` wired in."""

    def build(can_use_tool: Any, ask_user: Any) -> Agent:
        return Agent(
            provider=provider,
            model=model,
            tools=list(tools),
            can_use_tool=can_use_tool,
            ask_user=ask_user,
            session_store=store if store is not None else InMemorySessionStore(),
            cwd=cwd,
            sandbox="off",
            **agent_kwargs,
        )

    return build
