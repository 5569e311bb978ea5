"""Resuming a session in the app: what is typed while its history loads is kept and sent."""

from __future__ import annotations

import asyncio

from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from skawld_core.sessions import InMemorySessionStore
from skawld_core.sessions.store import StoredMessage
from skawld_core.testing import reply
from skawld_tui.app.widgets.blocks import NoteLine, UserMessage
from skawld_tui.app.widgets.tool_panel import ToolPanel

from .helpers import SIZE, make_app, run_done, send, until


class GatedStore(InMemorySessionStore):
    """A real in-memory store whose full history load waits until `gate` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.loading = asyncio.Event()

    async def load_messages(self, id: str) -> list[StoredMessage]:
        self.loading.set()
        await self.gate.wait()
        return await super().load_messages(id)


def turns(n: int) -> list[Message]:
    out: list[Message] = []
    for i in range(n):
        out += [
            Message(role="user", content=[TextBlock(text=f"question {i}")]),
            Message(role="assistant", content=[TextBlock(text=f"answer {i}")]),
        ]
    return out


async def test_a_prompt_sent_while_the_session_loads_is_kept_and_sent() -> None:
    store = GatedStore()
    await store.create(id="old")
    await store.append_messages("old", turns(3))
    app = make_app([reply("sure")], store=store, resume_id="old")
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: store.loading.is_set(), pilot)
        await send(pilot, "typed while loading")
        app.prompt.set_text("a draft")  # typed, not sent yet
        await pilot.pause()
        store.gate.set()
        await run_done(pilot)
        shown = [u.text for u in app.query(UserMessage)]
        assert shown[-1] == "typed while loading"  # after the restored history, not cleared by it
        assert shown[:-1] == [f"question {i}" for i in range(3 - len(shown) + 1, 3)]
        assert app.prompt.text == "a draft"
        sent = app.test_provider.requests[0].messages  # type: ignore[attr-defined]
        assert len(sent) == 7 and sent[-1].text().endswith("typed while loading")
        assert app.session is not None
        assert app.query(UserMessage).last().history_index == 6  # its place in the history (rewind)


async def test_the_last_turns_show_before_the_history_loads_and_stay() -> None:
    store = GatedStore()
    await store.create(id="old")
    await store.append_messages("old", turns(300))
    app = make_app([], store=store, resume_id="old")
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.history_shown.is_set() and store.loading.is_set(), pilot)
        assert app.session is None and not app.session_ready.is_set()
        last = app.query(UserMessage).last()
        assert last.text == "question 299" and last.history_index == 598
        assert 0 < app.transcript.marker.hidden_messages < 598  # a tail only
        assert "restored 600 messages" in str(app.query(NoteLine).last().render())
        await until(lambda: not app.transcript.loading_earlier, pilot)
        hidden = app.transcript.marker.hidden_messages
        await pilot.press("ctrl+up")  # earlier turns, from the tail read first
        await until(lambda: app.transcript.marker.hidden_messages < hidden, pilot)
        await until(lambda: not app.transcript.loading_earlier, pilot)
        shown = [u.text for u in app.query(UserMessage)]
        assert shown == [f"question {i}" for i in range(300 - len(shown), 300)]
        assert app.transcript.marker.hidden_messages == 600 - 2 * len(shown)
        assert app.query(UserMessage).first().history_index == 600 - 2 * len(shown)
        store.gate.set()
        await until(lambda: app.session_ready.is_set(), pilot)
        assert app.session is not None and len(app.session.full_history) == 600
        assert app.query(UserMessage).last() is last  # the same widgets: nothing shown twice
        assert sum("restored" in str(n.render()) for n in app.query(NoteLine)) == 1


async def test_a_repaired_history_replaces_the_tail_shown_first() -> None:
    store = GatedStore()
    await store.create(id="old")
    call = Message(role="assistant", content=[ToolUseBlock(id="t1", name="Read", input={"file_path": "x"})])
    await store.append_messages("old", [*turns(2), Message(role="user", content=[TextBlock(text="read x")]), call])
    app = make_app([reply("ok")], store=store, resume_id="old")
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.history_shown.is_set() and store.loading.is_set(), pilot)
        await send(pilot, "typed while loading")
        store.gate.set()
        await run_done(pilot)
        assert app.session is not None
        repair = app.session.full_history[6].content[0]  # the dangling call answered, before the new prompt
        assert isinstance(repair, ToolResultBlock) and repair.tool_use_id == "t1" and repair.is_error
        panels = list(app.query(ToolPanel))
        assert len(panels) == 1 and panels[0].status == "error"
        shown = [u.text for u in app.query(UserMessage)]
        assert shown[-2:] == ["read x", "typed while loading"] and len(shown) == len(set(shown))
        notes = [str(n.render()) for n in app.query(NoteLine)]
        assert sum("restored 7 messages" in n for n in notes) == 1, notes


class StoreWithoutTail(InMemorySessionStore):
    """A store written before `load_tail` was part of the contract."""

    @property
    def load_tail(self) -> None:  # type: ignore[override]
        raise AttributeError("load_tail")


async def test_a_store_without_load_tail_shows_the_history_once_loaded() -> None:
    store = StoreWithoutTail()
    await store.create(id="old")
    await store.append_messages("old", turns(2))
    app = make_app([], store=store, resume_id="old")
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session is not None, pilot)
        await until(lambda: len(app.query(UserMessage)) == 2, pilot)
        assert [u.text for u in app.query(UserMessage)] == ["question 0", "question 1"]
