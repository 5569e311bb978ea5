"""The engine of ``skawld work``: claim ready tasks from a shared task graph,
run each in its own session, record the outcome, repeat until drained.

`Worker.run()` starts `concurrency` slots. Each slot claims a task
(`ClaimableTaskGraph.claim_task`, leased for `lease_seconds`), runs it while
`_keep_lease` heartbeats every third of the lease, then calls `finish_task`
with outcome ``done`` (the run ended ``success``; result = its final text) or
``failed`` (result = the subtype / error). Slots take turns to claim (one claim
in flight per worker). A slot with nothing to claim waits until it is woken (the
store's "a task may be ready" notification, relayed to each slot, or the end of
one of this worker's tasks) or for `poll_seconds`, until the graph is drained:
nothing ready and nothing leased by anyone.

Under faults:

- every store call (claim, heartbeat, finish, release) is retried through
  transient errors with backoff and jitter (`store_retry`), for at most
  `store_retry_seconds`; a run that ends on a transient store error gives its
  task back (``released``) instead of failing it;
- the lease has a local deadline (`task_lease`): past it, the task's tool
  calls are refused and its run aborted, whether or not the database answers;
- a task claimed more than `max_attempts` times ends ``failed`` with the
  reason of its last release.

`stop()` (first SIGTERM/SIGINT) claims nothing more and lets running tasks
finish; `abort()` (second signal) aborts the running sessions and releases
their tasks back to the pool at once.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from skawld_core.errors import SessionStoreError
from skawld_core.events import ErrorInfo
from skawld_core.session_env import clear_session_env, set_session_env
from skawld_core.sessions.retry import retrying

from .task_lease import LeaseGate, TaskLease, local_clock

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.session import Session
    from skawld_core.sessions.claims import ClaimableTaskGraph, Outcome, TaskClaim

T = TypeVar("T")

# Metadata keys the claim machinery writes; they are not part of a task's prompt.
_RESERVED = frozenset({"attempts", "outcome", "result", "worker", "session", "duration_ms", "last_error"})


@dataclass(frozen=True)
class WorkerOptions:
    """How a worker process claims and runs tasks.

    `store_retry_seconds` bounds how long one store call (claim, heartbeat, finish) is
    retried through transient faults; `max_attempts` is how many claims a task gets
    before a further claim ends it ``failed`` (a task whose runs never finish).
    """

    task_list: str
    concurrency: int = 1
    lease_seconds: float = 60.0
    poll_seconds: float = 1.0
    max_attempts: int = 3
    store_retry_seconds: float = 120.0
    name: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}")


@dataclass
class WorkSummary:
    done: int = 0
    failed: int = 0
    lost: int = 0
    released: int = 0
    errors: int = 0  # slots that stopped on a store error past the retry budget


def task_prompt(claim: TaskClaim) -> str:
    """The prompt a task runs with: its subject and description, then its metadata as JSON."""
    task = claim.task
    parts = [task.subject.strip()]
    if task.description.strip() and task.description.strip() != task.subject.strip():
        parts.append(task.description.strip())
    meta = {k: v for k, v in task.metadata.items() if k not in _RESERVED}
    if meta:
        parts.append("Task metadata:\n```json\n" + json.dumps(meta, indent=2, ensure_ascii=False) + "\n```")
    return "\n\n".join(parts)


class Worker:
    """Drains one task graph with `concurrency` parallel sessions of `agent`.

    `gate` (a `LeaseGate` registered as a PreToolUse hook of `agent`) refuses the tool
    calls of a task whose lease is gone by the local clock; without it only the abort
    at the local deadline stops such a task.
    """

    def __init__(
        self,
        agent: Agent,
        store: ClaimableTaskGraph,
        options: WorkerOptions,
        *,
        log: Callable[[str], None],
        session_meta: Callable[[str], dict[str, Any]] | None = None,
        gate: LeaseGate | None = None,
    ) -> None:
        self.agent = agent
        self.store = store
        self.options = options
        self.log = log
        self.session_meta = session_meta or (lambda title: {"title": title})
        self.gate = gate or LeaseGate()
        self.summary = WorkSummary()
        self._stopping = asyncio.Event()
        self._aborting = False
        self._running: dict[str, Session] = {}
        self._wakes: dict[str, asyncio.Event] = {}  # per slot: a task of the list may be ready
        # One claim in flight per worker: slots claiming at once only made the database skip
        # and recheck each other's just-claimed rows (their claims cost more as slots grew).
        self._claiming = asyncio.Lock()

    def stop(self) -> None:
        """Claim nothing more; running tasks finish."""
        if not self._stopping.is_set():
            self.log("stopping: finishing running tasks (signal again to abort them)")
        self._stopping.set()

    def abort(self) -> None:
        """Abort running tasks now; their tasks go back to the pool."""
        self._stopping.set()
        self._aborting = True
        for session in list(self._running.values()):
            session.abort()

    async def run(self) -> WorkSummary:
        """Run until the graph is drained or `stop()` / `abort()`."""
        slots = max(1, self.options.concurrency)
        self.log(
            f"worker {self.options.name}: list {self.options.task_list!r}, concurrency {slots}, "
            f"lease {self.options.lease_seconds:g}s"
        )
        names = [f"{self.options.name}:{k}" for k in range(slots)]
        self._wakes = {name: asyncio.Event() for name in names}
        ready = await self._ready_event(self.options.task_list)  # listening before the first claim
        relay = asyncio.create_task(self._relay(ready)) if ready is not None else None
        try:
            await asyncio.gather(*(self._slot(name) for name in names))
        finally:
            if relay is not None:
                relay.cancel()
                await asyncio.gather(relay, return_exceptions=True)
        s = self.summary
        self.log(f"finished: {s.done} done, {s.failed} failed, {s.lost} lost, {s.released} released")
        return s

    async def _store(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        return await retrying(call, what=what, budget_s=self.options.store_retry_seconds, log=self.log)

    async def _pause(self, ready: asyncio.Event | None = None) -> None:
        """Wait `poll_seconds`, or less: until `stop()`, or until `ready` (a notification that a
        task of the list was added, finished or released) is set."""
        waits = [asyncio.ensure_future(self._stopping.wait())]
        if ready is not None:
            waits.append(asyncio.ensure_future(ready.wait()))
        try:
            await asyncio.wait(waits, timeout=self.options.poll_seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waits:
                waiter.cancel()

    async def _ready_event(self, graph: str) -> asyncio.Event | None:
        """The store's "a task may be ready" event for `graph`, when it has one (PostgreSQL)."""
        task_ready = getattr(self.store, "task_ready", None)
        if task_ready is None:
            return None
        try:
            event: asyncio.Event = await task_ready(graph)
        except SessionStoreError:
            return None  # poll instead
        return event

    async def _relay(self, ready: asyncio.Event) -> None:
        """Hand the store's "a task may be ready" notification to every slot, each of which
        clears its own wake before claiming: one shared event cleared by each slot let a slot
        swallow the wake of another that was about to wait (it then slept for `poll_seconds`).
        Every `poll_seconds` the store is asked again, which renews a lost listener."""
        graph = self.options.task_list
        while not self._stopping.is_set():
            await self._pause(ready)
            if ready.is_set():
                ready.clear()
                self._wake_slots()
            ready = await self._ready_event(graph) or ready

    def _wake_slots(self) -> None:
        for wake in self._wakes.values():
            wake.set()

    async def _slot(self, worker: str) -> None:
        try:
            await self._claim_and_run(worker)
        except SessionStoreError as exc:  # past the retry budget: this slot stops, the others go on
            self.summary.errors += 1
            self.log(f"slot {worker} stopped: {exc}")
        except Exception as exc:  # a bug: stop this slot (its lease expires), not the whole worker
            self.summary.errors += 1
            self.log(f"slot {worker} stopped on an unexpected error: {type(exc).__name__}: {exc}")

    async def _claim_and_run(self, worker: str) -> None:
        graph, lease_s = self.options.task_list, self.options.lease_seconds
        wake = self._wakes[worker]
        while not self._stopping.is_set():
            wake.clear()  # before claiming: a task freed from now on wakes this slot
            async with self._claiming:
                if self._stopping.is_set():
                    return
                sent = local_clock()  # after the wait for our turn: the local deadline counts from here
                claim = await self._store("claim", lambda: self.store.claim_task(graph, worker, lease_seconds=lease_s))
            if claim is None:
                progress = await self._store("progress", lambda: self.store.graph_progress(graph))
                if progress.drained:
                    return
                await self._pause(wake)
                continue
            lease = TaskLease(claim, lease_s, sent)
            if claim.attempt > self.options.max_attempts:
                await self._give_up(lease)
            else:
                try:
                    await self._run_task(lease)
                except Exception as exc:  # e.g. the store failed mid-task: give the task back, carry on
                    self.log(f"#{claim.task.id} could not run: {type(exc).__name__}: {exc}")
                    await self._release(lease, f"{type(exc).__name__}: {exc}")
                    await self._pause()
            # Our task ended: this worker's idle slots look again now. The server notifies a
            # finish only when it can unblock a task or drain the list (migration 5).
            self._wake_slots()

    async def _give_up(self, lease: TaskLease) -> None:
        task, max_attempts = lease.claim.task, self.options.max_attempts
        last = task.metadata.get("last_error") or "its worker stopped or lost the lease"
        plural = "s" if max_attempts != 1 else ""
        text = f"gave up after {max_attempts} unfinished attempt{plural} (last: {last})"
        if await self._finish(lease, ok=False, text=text, details={}):
            self.summary.failed += 1
            self.log(f"failed #{task.id}: {text}")

    async def _release(self, lease: TaskLease, reason: str) -> bool:
        claim = lease.claim
        try:
            return await self._store(
                "release",
                lambda: self.store.release_task(claim.session_id, claim.task.id, claim.worker, reason=reason[:500]),
            )
        except SessionStoreError:
            return False  # the lease expires by itself

    async def _run_task(self, lease: TaskLease) -> None:
        claim = lease.claim
        task, graph, worker = claim.task, claim.session_id, claim.worker
        meta = {
            **self.session_meta(task.subject),
            "task": {"list": graph, "id": task.id, "attempt": claim.attempt, "worker": worker},
        }
        session = await self._store("open session", lambda: self.agent.session(meta=meta))
        self._running[worker] = session
        lease.on_lost = session.abort
        self.gate.watch(session.id, lease)
        set_session_env(session.id, lease.env())
        self.log(f"claimed #{task.id} {task.subject!r} (attempt {claim.attempt}) session {session.id}")
        keeper = asyncio.create_task(self._keep_lease(lease))
        started = time.monotonic()
        result: Any = None
        error: Any = None
        try:
            async with session.run(task_prompt(claim)) as run:
                async for event in run:
                    if event.type == "result":
                        result = event
                    elif event.type == "error":
                        error = event.error
        except Exception as exc:  # the task failed; the worker carries on
            retryable = bool(getattr(exc, "retryable", False))
            error = ErrorInfo(name=type(exc).__name__, message=str(exc), retryable=retryable)
        finally:
            keeper.cancel()
            self._running.pop(worker, None)
            self.gate.forget(session.id)
            clear_session_env(session.id)
        elapsed = time.monotonic() - started
        if lease.lost.is_set():
            self.summary.lost += 1
            self.log(f"lost the lease on #{task.id} ({lease.reason}); stopped it, another worker will run it")
            return
        transient = error is not None and error.retryable and error.name == "SessionStoreError"
        if self._aborting or transient:
            reason = "aborted by a signal" if self._aborting else f"store fault during the run: {error.message}"
            if await self._release(lease, reason):
                self.summary.released += 1
                self.log(f"released #{task.id} back to the pool ({reason[:200]})")
            return
        ok = result is not None and result.subtype == "success"
        if ok:
            text = result.final_text or ""
        else:
            subtype = result.subtype if result is not None else "crashed"
            text = f"{subtype}: {error.message}" if error is not None else subtype
        details = {"session": session.id, "duration_ms": round(elapsed * 1000)}
        if not await self._finish(lease, ok=ok, text=text, details=details):
            self.summary.lost += 1
            self.log(f"lost the lease on #{task.id} before it finished; its result was dropped")
            return
        if ok:
            self.summary.done += 1
            self.log(f"done #{task.id} in {elapsed:.1f}s")
        else:
            self.summary.failed += 1
            self.log(f"failed #{task.id} in {elapsed:.1f}s: {text[:200]}")

    async def _finish(self, lease: TaskLease, *, ok: bool, text: str, details: dict[str, Any]) -> bool:
        """Record the outcome; `False` when the lease was lost. A finish retried after a lost
        connection may already have landed: it counts as ours when the task is completed by
        this worker at this attempt."""
        claim = lease.claim
        sid, tid, worker = claim.session_id, claim.task.id, claim.worker
        outcome: Outcome = "done" if ok else "failed"
        try:
            finished = await self._store(
                "finish",
                lambda: self.store.finish_task(sid, tid, worker, outcome=outcome, result=text, details=details),
            )
        except SessionStoreError as exc:
            if exc.retryable:
                raise
            # not storable as it is (and not a passing fault): record the failure to store it
            note = f"the result could not be stored: {exc}"[:2000]
            finished = await self._store(
                "finish",
                lambda: self.store.finish_task(sid, tid, worker, outcome="failed", result=note, details=details),
            )
        if finished:
            return True
        task = await self._store("check finish", lambda: self.store.get_task(sid, tid))  # type: ignore[attr-defined]
        return bool(
            task is not None
            and task.status == "completed"
            and task.metadata.get("worker") == worker
            and task.metadata.get("attempts") == claim.attempt
        )

    async def _keep_lease(self, lease: TaskLease) -> None:
        """Heartbeat every third of the lease; lose it at the local deadline if no renewal got through."""
        claim, lease_s = lease.claim, self.options.lease_seconds
        interval = max(lease_s / 3, 0.05)
        next_beat = local_clock() + interval
        while True:
            await asyncio.sleep(max(min(next_beat, lease.deadline) - local_clock(), 0))
            if not lease.valid():
                return
            sent = local_clock()
            try:
                held = await asyncio.wait_for(
                    self.store.heartbeat_task(claim.session_id, claim.task.id, claim.worker, lease_seconds=lease_s),
                    timeout=max(lease.deadline - sent, 0.01),
                )
            except (TimeoutError, SessionStoreError) as exc:  # try again soon; the deadline decides
                self.log(f"heartbeat for #{claim.task.id} failed: {exc or type(exc).__name__}")
                next_beat = local_clock() + min(interval, 0.25)
                continue
            if not held:
                lease.lose("another worker holds the lease")
                return
            lease.renewed(sent)
            next_beat = sent + interval
