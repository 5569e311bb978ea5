"""The app, resuming a session whose writer lock another process holds: a dialog offers a fork."""

from __future__ import annotations

from pathlib import Path

from skawld_core.messages import Message, TextBlock
from skawld_core.sessions.sqlite import SqliteSessionStore
from skawld_tui.app.screens.confirm import ConfirmScreen
from tests.tui.helpers import make_app, until


async def test_a_busy_session_offers_a_fork_and_writes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    holder = SqliteSessionStore(db)  # another writer (here: another store object holding the lock)
    await holder.create(id="busy-session", meta={"title": "held elsewhere"})
    await holder.append_messages("busy-session", [Message(role="user", content=[TextBlock(text="hello")])])
    store = SqliteSessionStore(db)
    app = make_app([], store=store, resume_id="busy-session", cwd=tmp_path)  # type: ignore[arg-type]
    async with holder.run_guard("busy-session"), app.run_test() as pilot:
        await until(lambda: isinstance(app.screen, ConfirmScreen), pilot)
        assert "is running in another process" in app.screen.body
        await pilot.press("y")
        await until(lambda: app.session is not None, pilot)
        assert app.session is not None and app.session.id != "busy-session"
        copied = await store.load_messages(app.session.id)
        assert next(m.message.model_dump(exclude_none=True) for m in copied)["content"][0]["text"] == "hello"
    assert len(await holder.load_messages("busy-session")) == 1  # nothing written to the held session
    await holder.close()
    await store.close()
