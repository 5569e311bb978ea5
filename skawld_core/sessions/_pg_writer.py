"""The writer lock of `PostgresSessionStore` (`RunGuardStore`), held where the writes happen.

`run_guard` takes a connection from the pool and a session-level advisory lock
on it, bumps the session's epoch in `session_writers` (with this process's pid
and host, for the error a second writer gets), and keeps that connection for
the block. Every append to the session goes through that connection and checks
the epoch in the same statement. So a dead lock connection cannot go unnoticed:
the next append fails on it, and the store then takes the lock again on a new
connection only if no one else took it meanwhile (the epoch is unchanged and
the messages after the last known `seq` are none or exactly this append's);
otherwise it raises `SessionFencedError` and writes nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import SessionStoreError
from ..messages import Message
from ._pg_errors import caught, is_closed, is_transient, store_error
from ._pg_sql import ISO, NOW
from .store import StoredMessage
from .writer import SessionBusyError, SessionFencedError, WriterIdentity, release_fully, this_process

T = TypeVar("T")

_OWN_BACKEND_GRACE_S = 5.0
_NAMING_TRIES = 40  # x 25 ms: how long a refused writer waits to learn who holds the lock

APPEND = f"""WITH w AS (SELECT 1 FROM session_writers WHERE session_id = $1 AND epoch = $4),
s AS (
  UPDATE sessions SET next_seq = next_seq + $2, updated_at = {NOW} WHERE id = $1 AND EXISTS (SELECT 1 FROM w)
  RETURNING next_seq - $2 AS start, updated_at),
ins AS (
  INSERT INTO messages (session_id, seq, appended_at, message_json)
  SELECT $1, s.start + m.ord - 1, s.updated_at, m.body
  FROM s, unnest($3::text[]) WITH ORDINALITY AS m(body, ord))
SELECT s.start, {ISO.format("s.updated_at")} FROM s"""

# Try the session-level advisory lock and, only when it was got, start a new epoch naming this
# process; with the last seq. (Taken in a statement that then fails, the lock stays with the
# connection, which the caller then closes.)
TAKE = """WITH l AS (SELECT pg_try_advisory_lock(hashtextextended($5, 0)) AS got),
w AS (
  INSERT INTO session_writers (session_id, epoch, pid, host, started, since)
  SELECT $1, 1, $2, $3, $4, clock_timestamp() FROM l WHERE l.got
  ON CONFLICT (session_id) DO UPDATE SET
    epoch = session_writers.epoch + 1, pid = $2, host = $3, started = $4, since = clock_timestamp()
  RETURNING epoch)
SELECT l.got, (SELECT epoch FROM w), (SELECT next_seq - 1 FROM sessions WHERE id = $1) FROM l"""


@dataclass
class WriterLease:
    """A held writer lock: its connection (replaced after a recovery; `None` once it was lost and
    handed back, until a recovery gets a new one), epoch and last known seq. `lost` is the fault
    that took the connection, named by errors until the lock is taken again."""

    key: str
    epoch: int
    conn: Any
    last_seq: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    lost: BaseException | None = None


class PostgresRunGuard:
    """Mixin: `run_guard` and the fenced append over the store's pool."""

    _held: dict[str, WriterLease]
    _dsn: str
    schema: str

    if TYPE_CHECKING:

        async def _get_pool(self) -> Any: ...

    async def _on_writer_connection(
        self, session_id: str, op: str, work: Callable[[Any], Awaitable[T]]
    ) -> tuple[bool, T | None]:
        """Run one statement of `work` on the connection holding `session_id`'s writer lock, when this
        store holds it: a running session then needs one connection, not a second pooled one for its
        other writes. ``(False, None)`` when it cannot (not held, or the lock's connection is lost:
        the next append takes the lock again); the caller then uses the pool."""
        import asyncpg  # lazy: optional dependency, loaded with the store

        lease = self._held.get(session_id)
        if lease is None:
            return False, None
        async with lease.lock:
            conn = lease.conn
            if conn is None or is_closed(conn):
                return False, None
            try:
                return True, await work(conn)
            except caught(asyncpg) as exc:
                if is_transient(exc) and is_closed(conn):
                    return False, None
                raise store_error(op, exc, self._dsn) from None

    def _lock_key(self, session_id: str) -> str:
        return f"skawld-run:{self.schema}:{session_id}"

    @asynccontextmanager
    async def run_guard(self, session_id: str) -> AsyncIterator[None]:
        """Hold the session's writer lock for the block; `SessionBusyError` if another holds it."""
        if session_id in self._held:
            raise SessionBusyError(session_id, this_process())
        lease = await self._take(session_id, self._lock_key(session_id))
        self._held[session_id] = lease
        try:
            yield
        finally:
            self._held.pop(session_id, None)
            await release_fully(self._give_back(session_id, lease))

    async def _take(self, session_id: str, key: str, *, epoch: int | None = None) -> WriterLease:
        """Acquire a pooled connection holding the lock; a new epoch, or `epoch` kept (recovery)."""
        import asyncpg  # lazy: optional dependency, loaded with the store

        pool = await self._get_pool()
        try:
            conn = await pool.acquire()
        except caught(asyncpg) as exc:
            raise store_error("take the session's writer lock", exc, self._dsn) from None
        try:
            if epoch is None:  # the lock, a new epoch and the last seq, in one round trip
                me = this_process()
                row = await conn.fetchrow(TAKE, session_id, me.pid, me.host, me.started, key)
                if not row[0]:
                    raise await _refusal(conn, session_id, recovering=False)
                epoch, last = row[1], row[2]
            else:
                if not await self._try_lock(conn, session_id, key, epoch):
                    raise await _refusal(conn, session_id, recovering=True)
                last = await _last_seq_at(conn, session_id, key, epoch)
        except BaseException as exc:
            await _discard(pool, conn)
            if isinstance(exc, caught(asyncpg)):
                raise store_error("take the session's writer lock", exc, self._dsn) from None
            raise
        return WriterLease(key=key, epoch=int(epoch), conn=conn, last_seq=int(last or 0))

    async def _try_lock(self, conn: Any, session_id: str, key: str, epoch: int | None) -> bool:
        """Try the advisory lock. Recovering (`epoch` given), keep trying for a few seconds while
        the holder is still this process at that epoch: the backend of the connection we just
        closed, which lets the lock go as soon as it sees the connection is gone."""
        deadline = time.monotonic() + _OWN_BACKEND_GRACE_S
        while True:
            if await conn.fetchval("SELECT pg_try_advisory_lock(hashtextextended($1, 0))", key):
                return True
            if epoch is None or time.monotonic() > deadline:
                return False
            me = this_process()
            row = await conn.fetchrow("SELECT epoch, pid, host FROM session_writers WHERE session_id = $1", session_id)
            if row is None or (row[0], row[1], row[2]) != (epoch, me.pid, me.host):
                return False
            await asyncio.sleep(0.02)

    async def _give_back(self, session_id: str, lease: WriterLease) -> None:
        pool = await self._get_pool()
        conn = lease.conn
        if conn is None:
            return  # the lock went with its lost connection
        try:
            # One round trip: the row stops naming this process, and the lock goes (a process that
            # takes it at once waits on the row until this statement commits).
            await conn.execute(
                "WITH w AS (UPDATE session_writers SET pid = NULL, host = NULL, started = NULL"
                " WHERE session_id = $1 AND epoch = $2) SELECT pg_advisory_unlock(hashtextextended($3, 0))",
                session_id,
                lease.epoch,
                lease.key,
            )
            await pool.release(conn)
        except Exception:
            await _discard(pool, conn)  # closing the connection drops the lock too

    async def _append_held(
        self, lease: WriterLease, session_id: str, payloads: Sequence[str], copies: Sequence[Message]
    ) -> list[StoredMessage]:
        """Append on the lease's connection; after a connection fault, retake the lock and settle."""
        import asyncpg  # lazy: optional dependency, loaded with the store

        async with lease.lock:
            try:
                if lease.conn is None:  # lost earlier and not taken again yet
                    assert lease.lost is not None
                    row = await self._recover(lease, session_id, payloads, lease.lost)
                else:
                    row = await _append(lease, session_id, payloads)
            except caught(asyncpg) as exc:
                if not is_transient(exc) or not is_closed(lease.conn):
                    # A refused statement (disk full, a timeout) on a live connection: the lock is
                    # still held and nothing was written, so the caller may simply try again.
                    raise store_error("append messages", exc, self._dsn) from None
                row = await self._recover(lease, session_id, payloads, exc)
            start, at = int(row[0]), str(row[1])
            lease.last_seq = start + len(payloads) - 1
            return [StoredMessage(seq=start + i, appended_at=at, message=m) for i, m in enumerate(copies)]

    async def _recover(self, lease: WriterLease, session_id: str, payloads: Sequence[str], cause: BaseException) -> Any:
        import asyncpg  # lazy: optional dependency, loaded with the store

        pool = await self._get_pool()
        if lease.conn is not None:
            # Handed back to the pool: from here on, no call may touch it (it would raise
            # "released back to the pool", or reach a connection another caller holds).
            conn, lease.conn, lease.lost = lease.conn, None, cause
            await _discard(pool, conn)
        try:
            fresh = await self._take(session_id, lease.key, epoch=lease.epoch)
        except SessionStoreError as exc:
            if isinstance(exc, SessionFencedError):
                raise
            raise store_error("append messages", cause, self._dsn) from None
        lease.conn, lease.lost = fresh.conn, None
        try:
            landed = await lease.conn.fetch(
                f"SELECT seq, {ISO.format('appended_at')}, message_json FROM messages"
                " WHERE session_id = $1 AND seq > $2 ORDER BY seq",
                session_id,
                lease.last_seq,
            )
            if landed and [r[2] for r in landed] == list(payloads):  # the lost connection had committed it
                return (landed[0][0], landed[0][1])
            if landed:
                raise SessionFencedError(session_id, "messages were appended by another writer")
            return await _append(lease, session_id, payloads)
        except caught(asyncpg) as exc:
            raise store_error("append messages", exc, self._dsn) from None


async def _append(lease: WriterLease, session_id: str, payloads: Sequence[str]) -> Any:
    row = await lease.conn.fetchrow(APPEND, session_id, len(payloads), list(payloads), lease.epoch)
    if row is None:
        exists = await lease.conn.fetchval("SELECT 1 FROM sessions WHERE id = $1", session_id)
        if exists is None:
            raise SessionStoreError(f"Session {session_id!r} not found")
        raise SessionFencedError(session_id)
    return row


async def _refusal(conn: Any, session_id: str, *, recovering: bool) -> SessionStoreError | SessionBusyError:
    """The error for a lock someone else holds, naming them once they have named themselves."""
    owner = await _holder(conn, session_id)
    for _ in range(_NAMING_TRIES):  # the holder took the lock but has not yet named itself
        if owner is not None:
            break
        await asyncio.sleep(0.025)
        owner = await _holder(conn, session_id)
    if recovering:
        return SessionFencedError(session_id, f"{owner.describe() if owner else 'another process'} holds it")
    return SessionBusyError(session_id, owner)


async def _last_seq_at(conn: Any, session_id: str, key: str, epoch: int) -> int | None:
    """The session's last seq, when the writer epoch is still `epoch` (a recovery on a fresh connection)."""
    row = await conn.fetchrow(
        "SELECT w.epoch, (SELECT next_seq - 1 FROM sessions WHERE id = $1) FROM session_writers w WHERE w.session_id = $1",
        session_id,
    )
    if row is None or row[0] != epoch:
        await conn.execute("SELECT pg_advisory_unlock(hashtextextended($1, 0))", key)
        raise SessionFencedError(session_id, "another process wrote to it while the lock was lost")
    return row[1] if row[1] is None else int(row[1])


async def _holder(conn: Any, session_id: str) -> WriterIdentity | None:
    row = await conn.fetchrow("SELECT pid, host, started FROM session_writers WHERE session_id = $1", session_id)
    return WriterIdentity(int(row[0]), str(row[1]), str(row[2] or "")) if row and row[0] else None


async def _discard(pool: Any, conn: Any) -> None:
    """Close `conn` (dropping any lock it holds) and hand it back to the pool."""
    try:
        conn.terminate()
    except Exception:
        pass  # already closed or taken back by the pool
    try:
        await pool.release(conn)
    except Exception:
        pass
