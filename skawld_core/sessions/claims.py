"""Claiming ready tasks from a shared task graph (`ClaimableTaskGraph`), and
the cross-process one-active-run guard (`RunGuardStore`).

Both are optional capabilities beside the `SessionStore` protocol; a store
offers them by implementing the methods. `PostgresSessionStore` and
`SqliteSessionStore` implement both.

A task is *ready* when it is `pending` (or `in_progress` under a lease that
has expired) and every task that blocks it is `completed` with an outcome that
is not ``failed``. `claim_task` leases one ready task to a worker atomically:
no two workers get the same task while its lease is live. The worker calls
`heartbeat_task` to extend the lease and `finish_task` to record the result
(exactly once: only the holder of a live lease can finish a task);
a worker that dies stops heartbeating, its lease expires, and the task is
ready again, so a task's *execution* is at least once (a worker that lost its
lease may have done part of the work). The outcome is kept in the task's
metadata: ``outcome`` (``"done"`` or ``"failed"``), ``result`` (text),
``attempts`` (grows with every claim: the task's fencing token) and
``last_error`` (why the last attempt was released).
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from .store import Task

Outcome = Literal["done", "failed"]


@dataclass(frozen=True)
class TaskClaim:
    """A leased task: the worker owns it until `lease_expires_at` (ISO-8601 UTC)."""

    session_id: str
    task: Task
    worker: str
    lease_expires_at: str
    attempt: int


@dataclass(frozen=True)
class GraphProgress:
    """Counts over one task graph, for deciding whether it is drained."""

    pending: int
    ready: int
    leased: int
    done: int
    failed: int

    @property
    def drained(self) -> bool:
        """No ready task and nothing running: more claims cannot succeed."""
        return self.ready == 0 and self.leased == 0


@runtime_checkable
class ClaimableTaskGraph(Protocol):
    """A task graph that workers in many processes can claim tasks from."""

    async def claim_task(self, session_id: str, worker: str, *, lease_seconds: float) -> TaskClaim | None:
        """Lease one ready task (lowest id first) to `worker`, or `None` if none is ready."""
        ...

    async def heartbeat_task(self, session_id: str, task_id: str, worker: str, *, lease_seconds: float) -> bool:
        """Extend `worker`'s lease; `False` if the worker no longer holds it."""
        ...

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
        """Complete a leased task with its outcome (and `details` merged into its
        metadata); `False` if the lease was lost."""
        ...

    async def release_task(self, session_id: str, task_id: str, worker: str, *, reason: str | None = None) -> bool:
        """Give a leased task back to the pool unfinished (status `pending`); `reason` is kept
        as ``metadata.last_error``."""
        ...

    async def graph_progress(self, session_id: str) -> GraphProgress:
        """How many tasks are pending, ready, leased, done and failed."""
        ...


@runtime_checkable
class RunGuardStore(Protocol):
    """A store that can hold "this session has an active run" across processes."""

    def run_guard(self, session_id: str) -> AbstractAsyncContextManager[None]:
        """Hold the session's writer lock for the `async with` block; raises
        `SessionBusyError` (a `ConfigError`) when another process holds it. The
        lock is released if the holder dies. Appends made by this store to the
        session while it is held carry the writer epoch and raise
        `SessionFencedError` once the lock was lost (see `writer`)."""
        ...
