"""Pilot tests of the figures a user reads right after `--continue` and after Esc: the status
line shows the restored session's tokens (its stored usage, or its size estimated and marked
``~``), never ``0 tok``; an aborted run's footer never shows made-up ``0 in / 0 out``."""

from __future__ import annotations

from typing import Any

import pytest

from skawld_core.messages import Usage
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import reply, tool_call
from skawld_tui.app.widgets.blocks import AssistantMarkdown, NoteLine
from skawld_tui.commands.context import measure
from skawld_tui.transcript_model import format_tokens
from tests.support.mock_tools import MockRead

from .helpers import SIZE, make_app, ready, run_done, send, until
from .test_app import stored_history
from .test_run_keys import held_stream

pytestmark = pytest.mark.timeout(60)


def footers(app: Any) -> list[str]:
    return [str(n.render()).strip() for n in app.query(NoteLine) if n.has_class("run-footer")]


def status_text(app: Any) -> str:
    return str(app.status.render_info())


async def _store(meta: dict[str, Any] | None = None) -> InMemorySessionStore:
    store = InMemorySessionStore()
    await store.create(id="old-session", meta=meta)
    await store.append_messages("old-session", stored_history())
    return store


async def test_a_restored_session_without_stored_usage_shows_its_estimated_size() -> None:
    app = make_app([reply("continuing")], store=await _store(), resume_id="old-session")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.agent is not None and app.session is not None
        size = measure(app.agent, app.session).used
        assert size > 0
        assert app.status.info.tokens == size and app.status.info.size_estimated
        assert f"~{format_tokens(size)} tok" in status_text(app)
        assert " 0 tok" not in status_text(app)
        await send(pilot, "and now?")
        await run_done(pilot)
        assert app.status.info.tokens == 15 and "  15 tok" in status_text(app)  # counted: no ~ any more


async def test_a_restored_session_with_stored_usage_shows_it() -> None:
    usage = {"input_tokens": 12_000, "output_tokens": 345}
    app = make_app([], store=await _store({"usage": usage}), resume_id="old-session")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.status.info.tokens == 12_345 and not app.status.info.size_estimated
        assert "  12.3k tok" in status_text(app)


async def test_escape_during_the_first_answer_shows_no_made_up_token_counts() -> None:
    turn, _ = held_stream()
    app = make_app([turn])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "talk")
        await until(lambda: bool(app.query(AssistantMarkdown)), pilot)
        await pilot.press("escape")
        await run_done(pilot)
        assert footers(app)[-1] == "aborted"


async def test_escape_after_a_finished_call_shows_what_it_used() -> None:
    first = reply(tool_call("Read", {"file_path": "a.py"}, id="r1"), usage=Usage(input_tokens=1500, output_tokens=40))
    turn, _ = held_stream()
    app = make_app([first, turn], tools=[MockRead()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "read it")
        await until(lambda: bool(app.query(AssistantMarkdown)), pilot)
        await pilot.press("escape")
        await run_done(pilot)
        assert footers(app)[-1].startswith("aborted · 1.5k in / 40 out")


def test_the_footer_keeps_zero_counts_of_a_finished_run() -> None:
    from skawld_core.events import ResultEvent
    from skawld_tui.transcript_model import run_footer

    event = ResultEvent.model_construct(subtype="success", duration_ms=5.0, total_usage=Usage(), usage_estimated=False)
    assert run_footer(event, "test-model", show_timings=False) == "  success · 0 in / 0 out"
    aborted = ResultEvent.model_construct(
        subtype="aborted", duration_ms=5.0, total_usage=Usage(), usage_estimated=False
    )
    assert run_footer(aborted, None, show_timings=True) == "  aborted · 5ms"
