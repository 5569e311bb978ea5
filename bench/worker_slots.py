"""Tasks per second of one `skawld work` worker (`skawld_tui.cli.worker.Worker`) on PostgreSQL for
1, 2, 4, 8, 16 and 32 slots, with a fake model that answers at once, each beside a baseline run
in the same process on the same server: a plain claim loop (`slots` coroutines on a pool of
`slots` connections, each claiming with ``FOR UPDATE SKIP LOCKED`` and marking the task done,
no sessions). Called by bench/store.py.

The machine is shared and its load drifts, so after a warm-up drain the slot counts are measured
in `rounds` interleaved rounds (1, 2, ... 32, then again), and each figure is the median.
The goal: the worker's tasks/s does not fall as slots grow (ratio vs 1 slot >= 1).
"""

from __future__ import annotations

import statistics
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

_CLAIM = """UPDATE tasks SET status = 'in_progress', lease_owner = $2,
  lease_expires_at = clock_timestamp() + interval '60 seconds', attempts = attempts + 1
WHERE session_id = $1 AND id = (
  SELECT id FROM tasks WHERE session_id = $1 AND status = 'pending'
  ORDER BY length(id), id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id"""
_FINISH = "UPDATE tasks SET status = 'completed', lease_owner = NULL WHERE session_id = $1 AND id = $2"


async def _new_list(dsn: str, n_tasks: int, max_connections: int) -> tuple[PostgresSessionStore, str]:
    store = PostgresSessionStore(dsn, schema=f"slots_{uuid.uuid4().hex[:8]}", max_connections=max_connections)
    graph = (await store.create(id="bench")).id
    for k in range(n_tasks):
        await store.create_task(graph, CreateTaskInput(subject=f"task {k}", description="answer"))
    return store, graph


async def worker_tasks_per_second(dsn: str, slots: int, n_tasks: int, *, cwd: Path) -> float:
    """Drain a fresh list of `n_tasks` independent tasks with one worker of `slots` slots."""
    store, graph = await _new_list(dsn, n_tasks, 2 * slots + 2)  # as `skawld work` sizes it
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


async def plain_loop_tasks_per_second(dsn: str, slots: int, n_tasks: int) -> float:
    """The baseline: `slots` coroutines claiming with SKIP LOCKED and finishing, nothing else."""
    import asyncio

    import asyncpg

    store, graph = await _new_list(dsn, n_tasks, 4)
    schema = store.schema
    await store.close()
    pool = await asyncpg.create_pool(
        dsn, min_size=slots, max_size=slots, server_settings={"search_path": schema, "synchronous_commit": "off"}
    )
    done: list[str] = []

    async def loop(name: str) -> None:
        async with pool.acquire() as conn:
            while (tid := await conn.fetchval(_CLAIM, graph, name)) is not None:
                await conn.execute(_FINISH, graph, tid)
                done.append(tid)

    start = time.perf_counter()
    await asyncio.gather(*(loop(f"w{k}") for k in range(slots)))
    elapsed = time.perf_counter() - start
    await pool.close()
    assert len(done) == n_tasks == len(set(done))
    return n_tasks / elapsed


async def bench_worker_slots(dsn: str, server: Any, n_tasks: int, rounds: int = 3) -> dict[int, tuple[float, float]]:
    """Print and return ``{slots: (worker tasks/s, plain loop tasks/s)}`` (medians); stops `server` (if any) after."""
    try:
        return await _slots(dsn, n_tasks, rounds)
    finally:
        if server is not None:
            server.stop()


async def _slots(dsn: str, n_tasks: int, rounds: int) -> dict[int, tuple[float, float]]:
    print(
        f"[worker slots] {n_tasks} tasks per drain, fake model answering at once, one worker process;"
        f" median of {rounds} interleaved rounds after a warm-up"
    )
    samples: dict[int, list[tuple[float, float]]] = {s: [] for s in SLOTS}
    with tempfile.TemporaryDirectory() as tmp:
        await worker_tasks_per_second(dsn, 4, n_tasks, cwd=Path(tmp))  # imports, first connections
        for _ in range(rounds):
            for slots in SLOTS:
                worker = await worker_tasks_per_second(dsn, slots, n_tasks, cwd=Path(tmp))
                plain = await plain_loop_tasks_per_second(dsn, slots, n_tasks)
                samples[slots].append((worker, plain))
    out = {s: (statistics.median(w for w, _ in v), statistics.median(p for _, p in v)) for s, v in samples.items()}
    first = out[SLOTS[0]][0]
    for slots, (worker, plain) in out.items():
        spread = [round(w) for w, _ in samples[slots]]
        print(
            f"  {slots:>2} slots: {worker:6.1f} tasks/s (runs {spread}); {worker / first:.2f}x vs 1 slot;"
            f" plain SKIP LOCKED loop {plain:7.1f} tasks/s, the worker is {worker / plain:.3f}x of it"
        )
    lowest = min(out[s][0] / first for s in SLOTS)
    print(f"  lowest ratio vs 1 slot: {lowest:.2f}x   goal >= 1.00: {'OK' if lowest >= 1 else 'FELL'}")
    return out
