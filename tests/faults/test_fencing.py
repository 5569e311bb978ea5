"""Fenced appends on SQLite: a writer whose lock was taken over (its process judged dead) cannot
append; a crashed holder's lock is taken over at once; the second writer in one process is refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from skawld_core.messages import Message, TextBlock
from skawld_core.sessions.sqlite import SqliteSessionStore
from skawld_core.sessions.writer import SessionBusyError, SessionFencedError

HELLO = [Message(role="user", content=[TextBlock(text="hello")])]


def _pretend_holder_died(db: Path, session_id: str) -> None:
    """Make the lock row name a pid that does not exist (what a crash leaves behind)."""
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE session_writers SET pid = 2147483646, started = '' WHERE session_id = ?", (session_id,))


async def test_a_writer_whose_lock_was_taken_over_is_fenced(tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    first, second = SqliteSessionStore(db), SqliteSessionStore(db)
    await first.create(id="s")
    async with first.run_guard("s"):
        await first.append_messages("s", HELLO)
        with pytest.raises(SessionBusyError, match=r"session s is running in another process \(pid \d+ on host"):
            async with second.run_guard("s"):
                pass
        _pretend_holder_died(db, "s")
        async with second.run_guard("s"):  # a dead holder does not block
            await second.append_messages("s", HELLO)
            with pytest.raises(SessionFencedError, match="no longer holds the session's writer lock"):
                await first.append_messages("s", HELLO)
    assert [m.seq for m in await second.load_messages("s")] == [1, 2]  # the fenced append wrote nothing
    async with first.run_guard("s"):  # released by both on exit
        pass
    await first.close()
    await second.close()
