"""Tasks per second of one `skawld work` worker (`skawld_tui.cli.worker.Worker`) on PostgreSQL for
1, 2, 4, 8, 16 and 32 slots, with a fake model that answers at once, each beside a baseline run
in the same process on the same server: a plain claim loop (`slots` coroutines on a pool of
`slots` connections, each claiming with ``FOR UPDATE SKIP LOCKED`` and marking the task done,
no sessions). Called by bench/store.py.

Each run is the real thing: a real `Worker` with N slots drains a fresh list of independent tasks
(its own store and pool, sized as `skawld work` sizes it). The machine is shared and its load
drifts, so after a warm-up drain the slot counts are measured in `rounds` interleaved rounds (1, 2,
... 32, then again), and each figure is the median; the load average is printed before and after,
and so is the worker process's CPU time per task (which the load moves much less than tasks/s).
The goal: the worker's tasks/s does not fall as slots grow (ratio vs 1 slot >= 1). On two cores
the worker's process and the server's backends each keep about one core busy from 2-4 slots on,
so more slots should hold that figure, not raise it.
"""

from __future__ import annotations

import math
import os
import resource
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
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


async def worker_tasks_per_second(
    dsn: str, slots: int, n_tasks: int, *, cwd: Path, server_cpu: Callable[[], float] = lambda: math.nan
) -> tuple[float, float, float]:
    """Drain a fresh list of `n_tasks` independent tasks with one worker of `slots` slots:
    tasks/s, and the CPU milliseconds per task of this process and of the server meanwhile."""
    store, graph = await _new_list(dsn, n_tasks, 2 * slots + 2)  # as `skawld work` sizes it
    agent = Agent(provider=FunctionProvider(lambda req: "done"), model="fake", tools=[], session_store=store, cwd=cwd)
    options = WorkerOptions(task_list=graph, concurrency=slots, lease_seconds=60, poll_seconds=0.2)
    worker = Worker(agent, store, options, log=lambda line: None)
    start, cpu, server = time.perf_counter(), _cpu_s(), server_cpu()
    summary = await worker.run()
    elapsed, cpu, server = time.perf_counter() - start, _cpu_s() - cpu, server_cpu() - server
    await agent.close()
    await store.close()
    assert summary.done == n_tasks, summary
    return n_tasks / elapsed, cpu * 1000 / n_tasks, server * 1000 / n_tasks


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def server_cpu_of(data_dir: Path) -> Callable[[], float]:
    """CPU seconds used so far by the local server whose data directory is `data_dir`: the
    postmaster (with its exited backends) and its live children. NaN where /proc is missing."""

    def cpu() -> float:
        try:
            postmaster = int((data_dir / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return math.nan
        ticks = 0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue  # exited meanwhile
            fields = text[text.rindex(")") + 2 :].split()  # state, ppid, ..., utime (11), stime, cutime, cstime
            if int(stat.parent.name) == postmaster:
                ticks += sum(int(f) for f in fields[11:15])
            elif int(fields[1]) == postmaster:
                ticks += int(fields[11]) + int(fields[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    return cpu


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


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
        data_dir = getattr(server, "data_dir", None)
        return await _slots(dsn, n_tasks, rounds, server_cpu_of(data_dir) if data_dir else lambda: math.nan)
    finally:
        if server is not None:
            server.stop()


async def _slots(
    dsn: str, n_tasks: int, rounds: int, server_cpu: Callable[[], float]
) -> dict[int, tuple[float, float]]:
    print(
        f"[worker slots] {n_tasks} tasks per drain, fake model answering at once, one worker process;"
        f" median of {rounds} interleaved rounds after a warm-up; load average {_load()}"
    )
    samples: dict[int, list[tuple[float, float, float, float]]] = {s: [] for s in SLOTS}
    with tempfile.TemporaryDirectory() as tmp:
        await worker_tasks_per_second(dsn, 4, n_tasks, cwd=Path(tmp))  # imports, first connections
        for _ in range(rounds):
            for slots in SLOTS:
                worker, cpu_ms, server_ms = await worker_tasks_per_second(
                    dsn, slots, n_tasks, cwd=Path(tmp), server_cpu=server_cpu
                )
                plain = await plain_loop_tasks_per_second(dsn, slots, n_tasks)
                samples[slots].append((worker, plain, cpu_ms, server_ms))
    out = {s: (statistics.median(v[0] for v in vs), statistics.median(v[1] for v in vs)) for s, vs in samples.items()}
    first = out[SLOTS[0]][0]
    for slots, (worker, plain) in out.items():
        spread = [round(v[0]) for v in samples[slots]]
        cpu_ms = statistics.median(v[2] for v in samples[slots])
        server_ms = statistics.median(v[3] for v in samples[slots])
        print(
            f"  {slots:>2} slots: {worker:6.1f} tasks/s (runs {spread}); {worker / first:.2f}x vs 1 slot;"
            f" CPU ms/task: worker {cpu_ms:.2f}, server {server_ms:.2f};"
            f" plain SKIP LOCKED loop {plain:7.1f} tasks/s, the worker is {worker / plain:.3f}x of it"
        )
    lowest = min(out[s][0] / first for s in SLOTS)
    print(f"  lowest ratio vs 1 slot: {lowest:.2f}x   goal >= 1.00: {'OK' if lowest >= 1 else 'FELL'}")
    print(f"  load average after: {_load()}")
    return out
