"""Waking workers when a task may have become ready (`PostgresSessionStore.task_ready`).

A trigger (schema migration 3) sends ``NOTIFY skawld_tasks_<schema>, <list>``
whenever a task is added, finished or released. The store listens on one
pooled connection, opened on the first `task_ready` call (one, however many slots ask
at once: each extra one was a connection kept for ever and one more copy of every
notification), and sets the
`asyncio.Event` of the list named in each notification. A lease that expires
sends nothing, so a waiter still polls, just rarely.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ._pg_errors import caught, is_closed, store_error


class PostgresTaskListener:
    """Mixin: `task_ready` over the store's pool."""

    schema: str
    _dsn: str
    _ready: dict[str, asyncio.Event]
    _listener: Any
    _listen_guard: tuple[asyncio.AbstractEventLoop, asyncio.Lock] | None = None

    if TYPE_CHECKING:

        async def _get_pool(self) -> Any: ...

    async def task_ready(self, session_id: str) -> asyncio.Event:
        """An event set whenever a task of list `session_id` is added, finished or released
        (clear it before looking for work, then wait on it)."""
        event = self._ready.setdefault(session_id, asyncio.Event())
        if self._listener is not None and is_closed(self._listener):  # lost with its server: listen again
            dead, self._listener = self._listener, None
            try:
                await (await self._get_pool()).release(dead)  # or the pool counts it as in use for ever
            except Exception:
                pass  # the pool already took it back
        if self._listener is None:
            async with self._listen_lock():  # one listener: slots asking at once must not each open one
                if self._listener is None:
                    self._listener = await self._listen()
        return event

    def _listen_lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._listen_guard is None or self._listen_guard[0] is not loop:
            self._listen_guard = (loop, asyncio.Lock())
        return self._listen_guard[1]

    async def _listen(self) -> Any:
        """A pooled connection listening on the store's channel, kept until `_stop_listening`."""
        import asyncpg  # lazy: optional dependency, loaded with the store

        pool = await self._get_pool()
        try:
            conn = await pool.acquire()
        except caught(asyncpg) as exc:
            raise store_error("listen for ready tasks", exc, self._dsn) from None
        try:
            await conn.add_listener(f"skawld_tasks_{self.schema}", self._on_notify)
        except BaseException as exc:
            await pool.release(conn)
            if isinstance(exc, caught(asyncpg)):
                raise store_error("listen for ready tasks", exc, self._dsn) from None
            raise
        return conn

    def _on_notify(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        event = self._ready.get(payload)
        if event is not None:
            event.set()

    async def _stop_listening(self, pool: Any) -> None:
        conn, self._listener = self._listener, None
        if conn is None:
            return
        try:
            await conn.remove_listener(f"skawld_tasks_{self.schema}", self._on_notify)
            await pool.release(conn)
        except Exception:
            try:
                conn.terminate()
            except Exception:
                pass  # already closed
