"""Task claims (`ClaimableTaskGraph`) for `PostgresSessionStore`: leases taken
with ``FOR UPDATE SKIP LOCKED``, so concurrent workers never get the same task."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ._pg_sql import NOW, TASK_ORDER, iso, jsonb, task_of
from .claims import GraphProgress, Outcome, TaskClaim
from .task_graph import json_copy

if TYPE_CHECKING:
    import asyncpg

T = TypeVar("T")

# A blocker that is not completed, or completed with outcome "failed", keeps a task from being ready.
UNBLOCKED = """NOT EXISTS (
  SELECT 1 FROM task_edges e JOIN tasks b ON b.session_id = e.session_id AND b.id = e.from_task_id
  WHERE e.session_id = t.session_id AND e.to_task_id = t.id
    AND (b.status <> 'completed' OR b.metadata->>'outcome' = 'failed'))"""
# `status <> 'completed'` lets claims walk tasks_claim_order_idx (a partial index) in claim order.
CLAIMABLE = """t.status <> 'completed' AND (t.status = 'pending'
  OR (t.status = 'in_progress' AND t.lease_expires_at IS NOT NULL AND t.lease_expires_at < clock_timestamp()))"""


class PostgresTaskClaims:
    """Mixin: the claim API over the store's `_run` plumbing. Every call is one statement."""

    if TYPE_CHECKING:

        async def _run(
            self, op: str, work: Callable[[asyncpg.Connection[Any]], Awaitable[T]], *, write: bool = True
        ) -> T: ...

    async def claim_task(self, session_id: str, worker: str, *, lease_seconds: float) -> TaskClaim | None:
        """Lease the lowest-id ready task to `worker` (``FOR UPDATE SKIP LOCKED``)."""

        async def work(conn: asyncpg.Connection[Any]) -> TaskClaim | None:
            row = await conn.fetchrow(
                f"""WITH pick AS (
                  SELECT t.session_id, t.id FROM tasks t
                  WHERE t.session_id = $1 AND {CLAIMABLE} AND {UNBLOCKED}
                  ORDER BY {TASK_ORDER} LIMIT 1 FOR UPDATE OF t SKIP LOCKED)
                UPDATE tasks u SET status = 'in_progress', owner = $2, lease_owner = $2,
                  lease_expires_at = clock_timestamp() + make_interval(secs => $3), attempts = u.attempts + 1,
                  metadata = u.metadata || jsonb_build_object('attempts', u.attempts + 1),
                  updated_at = GREATEST(clock_timestamp(), u.updated_at + interval '1 microsecond')
                FROM pick WHERE u.session_id = pick.session_id AND u.id = pick.id
                RETURNING u.id, u.subject, u.description, u.active_form, u.status, u.owner, u.metadata::text,
                  u.created_at, u.updated_at, u.lease_expires_at, u.attempts,
                  ARRAY(SELECT e.to_task_id FROM task_edges e WHERE e.session_id = u.session_id
                        AND e.from_task_id = u.id),
                  ARRAY(SELECT e.from_task_id FROM task_edges e WHERE e.session_id = u.session_id
                        AND e.to_task_id = u.id)""",
                session_id,
                worker,
                float(lease_seconds),
            )
            if row is None:
                return None
            tid = row[0]
            edges = [(tid, other) for other in row[11]] + [(other, tid) for other in row[12]]
            return TaskClaim(
                session_id=session_id,
                task=task_of(row[:9], edges),
                worker=worker,
                lease_expires_at=iso(row[9]),
                attempt=int(row[10]),
            )

        # One statement (one round trip, atomic on its own): no explicit transaction.
        return await self._run("claim task", work, write=False)

    async def heartbeat_task(self, session_id: str, task_id: str, worker: str, *, lease_seconds: float) -> bool:
        """Extend `worker`'s lease on the task; `False` if it no longer holds it."""

        async def work(conn: asyncpg.Connection[Any]) -> bool:
            status = await conn.execute(
                "UPDATE tasks SET lease_expires_at = clock_timestamp() + make_interval(secs => $4)"
                " WHERE session_id = $1 AND id = $2 AND lease_owner = $3 AND status = 'in_progress'",
                session_id,
                task_id,
                worker,
                float(lease_seconds),
            )
            return not status.endswith(" 0")

        return await self._run("heartbeat task", work, write=False)  # one statement

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
        """Mark the leased task completed with `outcome`, `result` and `details` in its metadata."""
        extra = json_copy(details or {}, "Task details")
        patch = jsonb({**extra, "outcome": outcome, "result": result, "worker": worker})

        async def work(conn: asyncpg.Connection[Any]) -> bool:
            status = await conn.execute(
                f"UPDATE tasks SET status = 'completed', lease_owner = NULL, lease_expires_at = NULL,"
                f" metadata = metadata || $4::jsonb, updated_at = {NOW}"
                " WHERE session_id = $1 AND id = $2 AND lease_owner = $3 AND status = 'in_progress'",
                session_id,
                task_id,
                worker,
                patch,
            )
            return not status.endswith(" 0")

        return await self._run("finish task", work, write=False)  # one statement

    async def release_task(self, session_id: str, task_id: str, worker: str, *, reason: str | None = None) -> bool:
        """Return the leased task to the pool (status `pending`, no owner; `reason` as ``last_error``)."""
        patch = jsonb({"last_error": reason} if reason is not None else {})

        async def work(conn: asyncpg.Connection[Any]) -> bool:
            status = await conn.execute(
                f"UPDATE tasks SET status = 'pending', owner = NULL, lease_owner = NULL, lease_expires_at = NULL,"
                f" metadata = metadata || $4::jsonb, updated_at = {NOW} WHERE session_id = $1 AND id = $2"
                " AND lease_owner = $3 AND status = 'in_progress'",
                session_id,
                task_id,
                worker,
                patch,
            )
            return not status.endswith(" 0")

        return await self._run("release task", work, write=False)  # one statement

    async def graph_progress(self, session_id: str) -> GraphProgress:
        """Counts of pending / ready / leased / done / failed tasks."""

        async def work(conn: asyncpg.Connection[Any]) -> GraphProgress:
            row = await conn.fetchrow(
                f"""SELECT
                  count(*) FILTER (WHERE t.status = 'pending'),
                  count(*) FILTER (WHERE {CLAIMABLE} AND {UNBLOCKED}),
                  count(*) FILTER (WHERE t.status = 'in_progress' AND t.lease_expires_at >= clock_timestamp()),
                  count(*) FILTER (WHERE t.status = 'completed' AND t.metadata->>'outcome' IS DISTINCT FROM 'failed'),
                  count(*) FILTER (WHERE t.status = 'completed' AND t.metadata->>'outcome' = 'failed')
                FROM tasks t WHERE t.session_id = $1""",
                session_id,
            )
            assert row is not None
            return GraphProgress(*(int(v) for v in row))

        return await self._run("graph progress", work, write=False)
