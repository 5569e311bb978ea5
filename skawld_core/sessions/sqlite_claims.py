"""Task claims (`ClaimableTaskGraph`) for `SqliteSessionStore`, so ``skawld work``
also runs on one machine without a server.

Each claim is one ``BEGIN IMMEDIATE`` transaction (SQLite's write lock makes it
atomic across processes). Leases live in their own table, `task_leases`,
created on first use (``CREATE TABLE IF NOT EXISTS``; the main schema version
is unchanged); expiry times are Unix seconds of the machine's clock.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import aiosqlite

from .claims import GraphProgress, Outcome, TaskClaim
from .rows import dumps
from .task_graph import json_copy

T = TypeVar("T")

_LEASES = """CREATE TABLE IF NOT EXISTS task_leases (
  session_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  worker TEXT,
  expires_at REAL,
  attempts INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (session_id, task_id),
  FOREIGN KEY (session_id, task_id) REFERENCES tasks(session_id, id) ON DELETE CASCADE
)"""
_FROM = "FROM tasks t LEFT JOIN task_leases l ON l.session_id = t.session_id AND l.task_id = t.id"
_CLAIMABLE = "(t.status = 'pending' OR (t.status = 'in_progress' AND l.expires_at IS NOT NULL AND l.expires_at < ?))"
_UNBLOCKED = """NOT EXISTS (
  SELECT 1 FROM task_edges e JOIN tasks b ON b.session_id = e.session_id AND b.id = e.from_task_id
  WHERE e.session_id = t.session_id AND e.to_task_id = t.id
    AND (b.status <> 'completed' OR json_extract(b.metadata_json, '$.outcome') = 'failed'))"""


class SqliteTaskClaims:
    """Mixin: the claim API over the store's `_run` / `_load_task` plumbing."""

    _run: Callable[..., Awaitable[Any]]
    _load_task: Callable[..., Awaitable[Any]]
    _edges: Callable[..., Awaitable[Any]]
    _clock: Any

    async def _claims(self, op: str, work: Callable[[aiosqlite.Connection], Awaitable[T]]) -> T:
        """Run `work` in a ``BEGIN IMMEDIATE`` transaction, with the lease table in place."""

        async def wrapped(conn: aiosqlite.Connection) -> T:
            await conn.execute(_LEASES)
            return await work(conn)

        result: T = await self._run(op, wrapped, "write")
        return result

    async def claim_task(self, session_id: str, worker: str, *, lease_seconds: float) -> TaskClaim | None:
        """Lease the lowest-id ready task to `worker` (one ``BEGIN IMMEDIATE`` transaction)."""

        async def work(conn: aiosqlite.Connection) -> TaskClaim | None:
            now = time.time()
            cursor = await conn.execute(
                f"SELECT t.id, t.metadata_json, COALESCE(l.attempts, 0) {_FROM} WHERE t.session_id = ? AND {_CLAIMABLE}"
                f" AND {_UNBLOCKED} ORDER BY CAST(t.id AS INTEGER), t.id LIMIT 1",
                (session_id, now),
            )
            row = await cursor.fetchone()
            if row is None:
                return None
            task_id, metadata_json, attempts = str(row[0]), row[1], int(row[2]) + 1
            metadata = {**json.loads(metadata_json), "attempts": attempts}
            expires = now + lease_seconds
            await conn.execute(
                "UPDATE tasks SET status = 'in_progress', owner = ?, metadata_json = ?, updated_at = ?"
                " WHERE session_id = ? AND id = ?",
                (worker, dumps(metadata), self._clock.now(), session_id, task_id),
            )
            await conn.execute(
                "INSERT INTO task_leases (session_id, task_id, worker, expires_at, attempts) VALUES (?, ?, ?, ?, ?)"
                " ON CONFLICT (session_id, task_id) DO UPDATE SET worker = excluded.worker,"
                " expires_at = excluded.expires_at, attempts = excluded.attempts",
                (session_id, task_id, worker, expires, attempts),
            )
            task = await self._load_task(conn, session_id, task_id, await self._edges(conn, session_id))
            stamp = _iso(expires)
            return TaskClaim(session_id=session_id, task=task, worker=worker, lease_expires_at=stamp, attempt=attempts)

        return await self._claims("claim task", work)

    async def heartbeat_task(self, session_id: str, task_id: str, worker: str, *, lease_seconds: float) -> bool:
        """Extend `worker`'s lease; `False` if it no longer holds it."""

        async def work(conn: aiosqlite.Connection) -> bool:
            cursor = await conn.execute(
                "UPDATE task_leases SET expires_at = ? WHERE session_id = ? AND task_id = ? AND worker = ?"
                " AND EXISTS (SELECT 1 FROM tasks WHERE session_id = ? AND id = ? AND status = 'in_progress')",
                (time.time() + lease_seconds, session_id, task_id, worker, session_id, task_id),
            )
            return cursor.rowcount > 0

        return await self._claims("heartbeat task", work)

    async def finish_task(
        self,
        session_id: str,
        task_id: str,
        worker: str,
        *,
        outcome: Outcome,
        result: str,
        details: Mapping[str, Any] | None = None,
    ) -> bool:
        """Complete the leased task with `outcome`, `result` and `details` in its metadata."""
        extra = json_copy(details or {}, "Task details")

        async def work(conn: aiosqlite.Connection) -> bool:
            if not await _holds(conn, session_id, task_id, worker):
                return False
            cursor = await conn.execute(
                "SELECT metadata_json FROM tasks WHERE session_id = ? AND id = ?", (session_id, task_id)
            )
            row = await cursor.fetchone()
            assert row is not None
            metadata = {**json.loads(row[0]), **extra, "outcome": outcome, "result": result, "worker": worker}
            await conn.execute(
                "UPDATE tasks SET status = 'completed', metadata_json = ?, updated_at = ? WHERE session_id = ? AND id = ?",
                (dumps(metadata), self._clock.now(), session_id, task_id),
            )
            await _free_lease(conn, session_id, task_id)
            return True

        return await self._claims("finish task", work)

    async def release_task(self, session_id: str, task_id: str, worker: str, *, reason: str | None = None) -> bool:
        """Return the leased task to the pool (status `pending`, no owner; `reason` as ``last_error``)."""

        async def work(conn: aiosqlite.Connection) -> bool:
            if not await _holds(conn, session_id, task_id, worker):
                return False
            await conn.execute(
                "UPDATE tasks SET status = 'pending', owner = NULL, updated_at = ?,"
                " metadata_json = CASE WHEN ? IS NULL THEN metadata_json"
                " ELSE json_set(metadata_json, '$.last_error', ?) END WHERE session_id = ? AND id = ?",
                (self._clock.now(), reason, reason, session_id, task_id),
            )
            await _free_lease(conn, session_id, task_id)
            return True

        return await self._claims("release task", work)

    async def graph_progress(self, session_id: str) -> GraphProgress:
        """Counts of pending / ready / leased / done / failed tasks."""

        async def work(conn: aiosqlite.Connection) -> GraphProgress:
            now = time.time()
            failed = "json_extract(t.metadata_json, '$.outcome') = 'failed'"
            cursor = await conn.execute(
                f"""SELECT
                  COALESCE(SUM(t.status = 'pending'), 0),
                  COALESCE(SUM({_CLAIMABLE} AND {_UNBLOCKED}), 0),
                  COALESCE(SUM(t.status = 'in_progress' AND l.expires_at >= ?), 0),
                  COALESCE(SUM(t.status = 'completed' AND NOT COALESCE({failed}, 0)), 0),
                  COALESCE(SUM(t.status = 'completed' AND COALESCE({failed}, 0)), 0)
                {_FROM} WHERE t.session_id = ?""",
                (now, now, session_id),
            )
            row = await cursor.fetchone()
            assert row is not None
            return GraphProgress(*(int(v) for v in row))

        return await self._claims("graph progress", work)


async def _holds(conn: aiosqlite.Connection, session_id: str, task_id: str, worker: str) -> bool:
    cursor = await conn.execute(
        f"SELECT 1 {_FROM} WHERE t.session_id = ? AND t.id = ? AND t.status = 'in_progress' AND l.worker = ?",
        (session_id, task_id, worker),
    )
    return await cursor.fetchone() is not None


async def _free_lease(conn: aiosqlite.Connection, session_id: str, task_id: str) -> None:
    await conn.execute(
        "UPDATE task_leases SET worker = NULL, expires_at = NULL WHERE session_id = ? AND task_id = ?",
        (session_id, task_id),
    )


def _iso(epoch: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
