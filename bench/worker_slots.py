"""Tasks per second of one `skawld work` worker (`skawld_tui.worker.Worker`) on PostgreSQL for
1, 2, 4, 8, 16 and 32 slots, with a fake model that answers at once, each beside a baseline run
in the same process on the same server: the same worker waking only by polling (no LISTEN/NOTIFY).
Called by bench/store.py.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from skawld_core.agent import Agent
from skawld_core.sessions import CreateTaskInput
from skawld_core.sessions.postgres import PostgresSessionStore
from skawld_core.testing import FunctionProvider
from skawld_tui.cli.worker import Worker, WorkerOptions

SLOTS = (1, 2, 4, 8, 16, 32)


class PollingStore(PostgresSessionStore):
    """The store without its task-ready notifications: the worker polls (the baseline)."""

    task_ready = None  # type: ignore[assignment]


async def tasks_per_second(dsn: str, slots: int, n_tasks: int, *, notify: bool, cwd: Path) -> float:
    """Drain a fresh list of `n_tasks` independent tasks with one worker of `slots` slots."""
    make = PostgresSessionStore if notify else PollingStore
    store = make(dsn, schema=f"slots_{uuid.uuid4().hex[:8]}", max_connections=2 * slots + 2)
    graph = (await store.create(id="bench")).id
    for k in range(n_tasks):
        await store.create_task(graph, CreateTaskInput(subject=f"task {k}", description="answer"))
    agent = Agent(provider=FunctionProvider(lambda req: "done"), model="fake", tools=[], session_store=store, cwd=cwd)
    options = WorkerOptions(task_list=graph, concurrency=slots, lease_seconds=60, poll_seconds=0.2)
    worker = Worker(agent, store, options, log=lambda line: None)
    start = time.perf_counter()
    summary = await worker.run()
    elapsed = time.perf_counter() - start
    await agent.close()
    await store.close()
    assert summary.done == n_tasks, summary
    return n_tasks / elapsed


async def bench_worker_slots(dsn: str, server: Any, n_tasks: int) -> dict[int, tuple[float, float]]:
    """Print and return ``{slots: (tasks/s with NOTIFY, tasks/s polling)}``; stops `server` (if any) after."""
    try:
        return await _slots(dsn, n_tasks)
    finally:
        if server is not None:
            server.stop()


async def _slots(dsn: str, n_tasks: int) -> dict[int, tuple[float, float]]:
    print(f"[worker slots] {n_tasks} tasks per run, fake model answering at once, one worker process")
    out: dict[int, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for slots in SLOTS:
            notified = await tasks_per_second(dsn, slots, n_tasks, notify=True, cwd=Path(tmp))
            polled = await tasks_per_second(dsn, slots, n_tasks, notify=False, cwd=Path(tmp))
            out[slots] = (notified, polled)
            print(
                f"  {slots:>2} slots: {notified:6.1f} tasks/s (baseline, polling only: {polled:6.1f} tasks/s;"
                f" {notified / polled:.2f}x)"
            )
    first = out[SLOTS[0]][0]
    print("  scaling vs 1 slot: " + ", ".join(f"{s}: {v[0] / first:.2f}x" for s, v in out.items()))
    return out
