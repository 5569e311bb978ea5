"""The writer lock of `SqliteSessionStore` (`RunGuardStore`): a row per session in
`session_writers` with the holder's pid, host and start time, and the session's
writer epoch.

Taking the lock is one ``BEGIN IMMEDIATE`` transaction: a row whose holder is
alive (`writer.is_alive`) refuses it with `SessionBusyError`; a free row, or one
left by a crashed holder, is taken and its epoch bumped. An append made while
the lock is held checks, in its own transaction, that the row still names this
epoch and process (`check_fence`), so a writer that lost the lock cannot write.
The table is created on first use (``CREATE TABLE IF NOT EXISTS``; the schema
version is unchanged).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite

from .writer import SessionBusyError, SessionFencedError, WriterIdentity, is_alive, release_fully, this_process

_WRITERS = """CREATE TABLE IF NOT EXISTS session_writers (
  session_id TEXT PRIMARY KEY,
  epoch INTEGER NOT NULL DEFAULT 0,
  pid INTEGER,
  host TEXT,
  started TEXT
)"""


class SqliteRunGuard:
    """Mixin: `run_guard` and the append fence over the store's `_run` plumbing."""

    _run: Callable[..., Awaitable[Any]]
    _held: dict[str, int]

    @asynccontextmanager
    async def run_guard(self, session_id: str) -> AsyncIterator[None]:
        """Hold the session's writer lock for the block; `SessionBusyError` if a live process holds it."""
        me = this_process()
        if session_id in self._held:
            raise SessionBusyError(session_id, me)

        async def take(conn: aiosqlite.Connection) -> int:
            await conn.execute(_WRITERS)
            cursor = await conn.execute(
                "SELECT epoch, pid, host, started FROM session_writers WHERE session_id = ?", (session_id,)
            )
            row = await cursor.fetchone()
            if row is not None and row[1] is not None:
                owner = WriterIdentity(pid=int(row[1]), host=str(row[2]), started=str(row[3] or ""))
                if is_alive(owner):
                    raise SessionBusyError(session_id, owner)
            epoch = (int(row[0]) if row is not None else 0) + 1
            await conn.execute(
                "INSERT INTO session_writers (session_id, epoch, pid, host, started) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (session_id) DO UPDATE SET epoch = excluded.epoch, pid = excluded.pid,"
                " host = excluded.host, started = excluded.started",
                (session_id, epoch, me.pid, me.host, me.started),
            )
            return epoch

        epoch: int = await self._run("take the session's writer lock", take, "write")
        self._held[session_id] = epoch
        try:
            yield
        finally:
            self._held.pop(session_id, None)

            async def release(conn: aiosqlite.Connection) -> None:
                await conn.execute(
                    "UPDATE session_writers SET pid = NULL, host = NULL, started = NULL"
                    " WHERE session_id = ? AND epoch = ?",
                    (session_id, epoch),
                )

            await release_fully(self._run("release the session's writer lock", release, "write"))

    async def check_fence(self, conn: aiosqlite.Connection, session_id: str) -> None:
        """Inside a write transaction: raise `SessionFencedError` unless this store still
        holds the session's lock at the epoch it took (no-op for a session it does not hold)."""
        epoch = self._held.get(session_id)
        if epoch is None:
            return
        cursor = await conn.execute("SELECT epoch, pid FROM session_writers WHERE session_id = ?", (session_id,))
        row = await cursor.fetchone()
        if row is None or int(row[0]) != epoch or row[1] != os.getpid():
            raise SessionFencedError(session_id)
