"""The engine of ``skawld work``: claim ready tasks from a shared task graph,
run each in its own session, record the outcome, repeat until drained.

`Worker.run()` starts `concurrency` slots. Each slot claims a task
(`ClaimableTaskGraph.claim_task`, leased for `lease_seconds`), heartbeats the
lease every third of it while the task's session runs, then calls
`finish_task` with outcome ``done`` (the run ended ``success``; result = its
final text) or ``failed`` (result = the subtype / error). A slot with nothing
to claim polls until the graph is drained: nothing ready and nothing leased
by anyone (a live lease may still finish and unblock more work, an expired one
makes its task ready again).

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
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.session import Session
    from skawld_core.sessions.claims import ClaimableTaskGraph, TaskClaim

# Metadata keys the claim machinery writes; they are not part of a task's prompt.
_RESERVED = frozenset({"attempts", "outcome", "result", "worker", "session", "duration_ms"})


@dataclass(frozen=True)
class WorkerOptions:
    """How a worker process claims and runs tasks."""

    task_list: str
    concurrency: int = 1
    lease_seconds: float = 60.0
    poll_seconds: float = 1.0
    name: str = field(default_factory=lambda: f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}")


@dataclass
class WorkSummary:
    done: int = 0
    failed: int = 0
    lost: int = 0
    released: int = 0


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
    """Drains one task graph with `concurrency` parallel sessions of `agent`."""

    def __init__(
        self,
        agent: Agent,
        store: ClaimableTaskGraph,
        options: WorkerOptions,
        *,
        log: Callable[[str], None],
        session_meta: Callable[[str], dict[str, Any]] | None = None,
    ) -> None:
        self.agent = agent
        self.store = store
        self.options = options
        self.log = log
        self.session_meta = session_meta or (lambda title: {"title": title})
        self.summary = WorkSummary()
        self._stopping = asyncio.Event()
        self._aborting = False
        self._running: dict[str, Session] = {}

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
        await asyncio.gather(*(self._slot(f"{self.options.name}:{k}") for k in range(slots)))
        s = self.summary
        self.log(f"finished: {s.done} done, {s.failed} failed, {s.lost} lost, {s.released} released")
        return s

    async def _slot(self, worker: str) -> None:
        graph = self.options.task_list
        while not self._stopping.is_set():
            claim = await self.store.claim_task(graph, worker, lease_seconds=self.options.lease_seconds)
            if claim is None:
                progress = await self.store.graph_progress(graph)
                if progress.drained:
                    return
                try:
                    await asyncio.wait_for(self._stopping.wait(), timeout=self.options.poll_seconds)
                except TimeoutError:
                    pass
                continue
            try:
                await self._run_task(claim)
            except Exception as exc:  # e.g. the store failed mid-task: give the task back, carry on
                self.log(f"#{claim.task.id} could not run: {type(exc).__name__}: {exc}")
                try:
                    await self.store.release_task(graph, claim.task.id, worker)
                except Exception:
                    pass  # the lease expires by itself
                try:
                    await asyncio.wait_for(self._stopping.wait(), timeout=self.options.poll_seconds)
                except TimeoutError:
                    pass

    async def _run_task(self, claim: TaskClaim) -> None:
        task, graph, worker = claim.task, claim.session_id, claim.worker
        meta = {
            **self.session_meta(task.subject),
            "task": {"list": graph, "id": task.id, "attempt": claim.attempt, "worker": worker},
        }
        session = await self.agent.session(meta=meta)
        self._running[worker] = session
        self.log(f"claimed #{task.id} {task.subject!r} (attempt {claim.attempt}) session {session.id}")
        lost = asyncio.Event()
        beat = asyncio.create_task(self._heartbeat(claim, session, lost))
        started = time.monotonic()
        result: Any = None
        error: str | None = None
        try:
            async with session.run(task_prompt(claim)) as run:
                async for event in run:
                    if event.type == "result":
                        result = event
                    elif event.type == "error":
                        error = event.error.message
        except Exception as exc:  # the task failed; the worker carries on
            error = f"{type(exc).__name__}: {exc}"
        finally:
            beat.cancel()
            self._running.pop(worker, None)
        elapsed = time.monotonic() - started
        if lost.is_set():
            self.summary.lost += 1
            self.log(f"lost the lease on #{task.id}; another worker will run it")
            return
        if self._aborting:
            if await self.store.release_task(graph, task.id, worker):
                self.summary.released += 1
                self.log(f"released #{task.id} back to the pool")
            return
        ok = result is not None and result.subtype == "success"
        if ok:
            text = result.final_text or ""
        else:
            subtype = result.subtype if result is not None else "crashed"
            text = f"{subtype}: {error}" if error else subtype
        details = {"session": session.id, "duration_ms": round(elapsed * 1000)}
        if not await self.store.finish_task(
            graph, task.id, worker, outcome="done" if ok else "failed", result=text, details=details
        ):
            self.summary.lost += 1
            self.log(f"lost the lease on #{task.id} before it finished; its result was dropped")
            return
        if ok:
            self.summary.done += 1
            self.log(f"done #{task.id} in {elapsed:.1f}s")
        else:
            self.summary.failed += 1
            self.log(f"failed #{task.id} in {elapsed:.1f}s: {text[:200]}")

    async def _heartbeat(self, claim: TaskClaim, session: Session, lost: asyncio.Event) -> None:
        interval = max(self.options.lease_seconds / 3, 0.05)
        while True:
            await asyncio.sleep(interval)
            try:
                held = await self.store.heartbeat_task(
                    claim.session_id, claim.task.id, claim.worker, lease_seconds=self.options.lease_seconds
                )
            except Exception as exc:  # a transient store error: try again next beat
                self.log(f"heartbeat for #{claim.task.id} failed: {exc}")
                continue
            if not held:
                lost.set()
                session.abort()
                return
