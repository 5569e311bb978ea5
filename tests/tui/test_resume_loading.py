"""Resuming a session in the app: what is typed while its history loads is kept and sent."""

from __future__ import annotations

import asyncio

from skawld_core.messages import Message, TextBlock
from skawld_core.sessions import InMemorySessionStore
from skawld_core.sessions.store import StoredMessage
from skawld_core.testing import reply
from skawld_tui.app.widgets.blocks import UserMessage

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
