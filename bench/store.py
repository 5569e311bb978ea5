"""Benchmark the session stores side by side: `SqliteSessionStore` and
`PostgresSessionStore` (on a throwaway local server this script starts).

    python bench/store.py [--messages 10000] [--runs 5] [--tasks 2000] [--workers 8] [--no-postgres]

For each store: appends realistic loop traffic (assistant turns with text +
tool_use, tool results of ~1-2 KB, 1-2 messages per append) one call at a
time (p50 / p95 latency per `append_messages`), then times a resume (`load` +
`load_messages`) in a fresh store instance, against baselines measured in the
same run on the same rows (raw driver fetch, and + `json.loads`). Then task
claims per second: `--workers` store objects (like separate processes) claim
and finish `--tasks` tasks from one shared graph. Then tasks per second of one `skawld work`
worker with 1 to 32 slots beside a plain SKIP LOCKED claim loop (`bench/worker_slots.py`).
Goals: resume under 0.5 s; append p50 under 2 ms over loopback.
Set SKAWLD_BENCH_PG_DSN to use an existing server instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.worker_slots import bench_worker_slots
from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from skawld_core.sessions import CreateTaskInput
from skawld_core.sessions.postgres import PostgresSessionStore
from skawld_core.sessions.sqlite import SqliteSessionStore

WORDS = [
    "the",
    "agent",
    "reads",
    "files",
    "runs",
    "tests",
    "edits",
    "code",
    "and",
    "reports",
    "what",
    "changed",
    "in",
    "the",
    "repository",
]


def _prose(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words))


def make_batches(total: int, seed: int = 7) -> list[list[Message]]:
    """Loop-like batches of 1-2 messages adding up to `total` messages."""
    rng = random.Random(seed)
    batches: list[list[Message]] = [[Message(role="user", content=[TextBlock(text=_prose(rng, 40))])]]
    count, turn = 1, 0
    while count < total:
        turn += 1
        calls = [
            ToolUseBlock(
                id=f"toolu_{turn}_{i}",
                name=rng.choice(["Read", "Grep", "Bash", "Edit"]),
                input={"path": f"src/module_{rng.randint(1, 99)}.py", "pattern": _prose(rng, 4)},
            )
            for i in range(rng.choice([1, 1, 2]))
        ]
        assistant = Message(role="assistant", content=[TextBlock(text=_prose(rng, 30)), *calls])
        results = Message(
            role="user",
            content=[
                ToolResultBlock(tool_use_id=c.id, content=_prose(rng, rng.randint(150, 300)), is_error=False)
                for c in calls
            ],
        )
        if rng.random() < 0.5:
            batches += [[assistant], [results]]
        else:
            batches.append([assistant, results])
        count += 2
    flat = [m for b in batches for m in b][:total]
    out: list[list[Message]] = []
    i = 0
    for b in batches:
        if i >= total:
            break
        out.append(flat[i : i + len(b)])
        i += len(b)
    return out


def _time(fn: Callable[[], object], runs: int) -> tuple[float, object]:
    samples: list[float] = []
    result: object = None
    for _ in range(runs):
        start = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


async def _atime(fn: Callable[[], Awaitable[object]], runs: int) -> tuple[float, object]:
    samples: list[float] = []
    result: object = None
    for _ in range(runs):
        start = time.perf_counter()
        result = await fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples), result


def _pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def bench_messages(
    name: str, make: Callable[[], Any], batches: list[list[Message]], runs: int
) -> dict[str, float]:
    """Append every batch one call at a time, then resume `runs` times in fresh stores."""
    n_messages = sum(len(b) for b in batches)
    writer = make()
    session = await writer.create(id=f"bench-{uuid.uuid4().hex[:8]}", meta={"title": "bench"})
    latencies: list[float] = []
    start = time.perf_counter()
    for batch in batches:
        t0 = time.perf_counter()
        await writer.append_messages(session.id, batch)
        latencies.append(time.perf_counter() - t0)
    append_s = time.perf_counter() - start
    await writer.close()
    resume_samples: list[float] = []
    for _ in range(runs):
        store = make()
        await store.list_sessions(limit=1)  # connect (and migrate) outside the timing, as a running app has
        t0 = time.perf_counter()
        record = await store.load(session.id)
        messages = await store.load_messages(session.id)
        resume_samples.append(time.perf_counter() - t0)
        await store.close()
        assert record is not None and [m.seq for m in messages] == list(range(1, n_messages + 1))
    return {
        "session": session.id,  # type: ignore[dict-item]
        "append_total": append_s,
        "append_p50": _pct(latencies, 0.5),
        "append_p95": _pct(latencies, 0.95),
        "resume": statistics.median(resume_samples),
    }


async def bench_claims(make: Callable[[], Any], n_tasks: int, n_workers: int) -> float:
    """Claims per second: `n_workers` store objects drain one graph of `n_tasks` tasks."""
    setup = make()
    graph = (await setup.create(id=f"claims-{uuid.uuid4().hex[:8]}")).id
    for k in range(n_tasks):
        await setup.create_task(graph, CreateTaskInput(subject=f"t{k}", description="d"))
    await setup.close()
    workers = [make() for _ in range(n_workers)]
    for w in workers:
        await w.list_sessions(limit=1)
    claimed: list[str] = []

    async def drain(store: Any, name: str) -> None:
        while (claim := await store.claim_task(graph, name, lease_seconds=60)) is not None:
            claimed.append(claim.task.id)
            await store.finish_task(graph, claim.task.id, name, outcome="done", result="ok")

    start = time.perf_counter()
    await asyncio.gather(*(drain(w, f"w{i}") for i, w in enumerate(workers)))
    elapsed = time.perf_counter() - start
    for w in workers:
        await w.close()
    assert sorted(claimed, key=int) == [str(k) for k in range(1, n_tasks + 1)], "a task was claimed twice or lost"
    return n_tasks / elapsed


async def pg_baselines(dsn: str, session_id: str, runs: int) -> tuple[float, float, float]:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:

        async def fetch() -> list[Any]:
            return list(
                await conn.fetch(
                    "SELECT seq, appended_at, message_json FROM messages WHERE session_id = $1 ORDER BY seq",
                    session_id,
                )
            )

        async def with_json() -> list[object]:
            return [json.loads(r[2]) for r in await fetch()]

        fetch_s, _ = await _atime(fetch, runs)
        json_s, _ = await _atime(with_json, runs)
        trips: list[float] = []
        for _ in range(500):
            t0 = time.perf_counter()
            await conn.fetchval("SELECT 1")
            trips.append(time.perf_counter() - t0)
    finally:
        await conn.close()
    return fetch_s, json_s, _pct(trips, 0.5)


def _report(name: str, r: dict[str, float], n_batches: int, baselines: tuple[float, float]) -> None:
    fetch_s, json_s = baselines
    print(f"[{name}]")
    print(
        f"  append: total {r['append_total']:.2f} s for {n_batches} calls; per call p50 {r['append_p50'] * 1e3:.2f} ms,"
        f" p95 {r['append_p95'] * 1e3:.2f} ms   goal p50 < 2 ms: {'OK' if r['append_p50'] < 0.002 else 'OVER'}"
    )
    print(
        f"  resume (load + load_messages, fresh store): {r['resume'] * 1e3:.1f} ms"
        f"   goal < 500 ms: {'OK' if r['resume'] < 0.5 else 'OVER'}"
    )
    print(f"  baseline raw fetch:          {fetch_s * 1e3:.1f} ms (resume is {r['resume'] / fetch_s:.1f}x)")
    print(f"  baseline raw fetch + json:   {json_s * 1e3:.1f} ms (resume is {r['resume'] / json_s:.1f}x)")


async def _pg_server() -> tuple[str, Any]:
    """A DSN (SKAWLD_BENCH_PG_DSN, else a throwaway durable server) and the server to stop, if any."""
    dsn = os.environ.get("SKAWLD_BENCH_PG_DSN")
    if dsn:
        return dsn, None
    from skawld_core.testing.postgres_server import start_postgres

    server = start_postgres(durable=True)
    return server.dsn, server


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--worker-tasks", type=int, default=200, help="tasks per worker-slots run")
    parser.add_argument("--worker-rounds", type=int, default=3, help="interleaved rounds of the worker-slots runs")
    parser.add_argument("--only-worker-slots", action="store_true", help="run only the worker-slots section")
    args = parser.parse_args()

    if args.only_worker_slots:
        await bench_worker_slots(*await _pg_server(), args.worker_tasks, args.worker_rounds)
        return
    batches = make_batches(args.messages)
    n_messages = sum(len(b) for b in batches)
    print(f"messages: {n_messages} in {len(batches)} appends; claims: {args.tasks} tasks, {args.workers} workers")
    results: dict[str, tuple[dict[str, float], float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sessions.db"
        sq = await bench_messages("sqlite", lambda: SqliteSessionStore(path), batches, args.runs)

        def raw_fetch() -> list[tuple[int, str, str]]:
            with sqlite3.connect(path) as conn:
                return conn.execute(
                    "SELECT seq, appended_at, message_json FROM messages WHERE session_id = ? ORDER BY seq",
                    (sq["session"],),
                ).fetchall()

        fetch_s, _ = _time(raw_fetch, args.runs)
        json_s, _ = _time(lambda: [json.loads(row[2]) for row in raw_fetch()], args.runs)
        _report("sqlite (WAL, synchronous=NORMAL)", sq, len(batches), (fetch_s, json_s))
        sq_claims = await bench_claims(lambda: SqliteSessionStore(path), args.tasks, args.workers)
        print(f"  claims: {sq_claims:.0f} claim+finish per second with {args.workers} workers")
        results["sqlite"] = (sq, sq_claims, fetch_s)
    if args.no_postgres:
        return
    server = None
    dsn = os.environ.get("SKAWLD_BENCH_PG_DSN")
    if not dsn:
        from skawld_core.testing.postgres_server import PostgresServerUnavailable, start_postgres

        try:
            server = start_postgres(durable=True)
        except PostgresServerUnavailable as exc:
            print(f"[postgres] skipped: {exc}")
            return
        dsn = server.dsn
    try:
        await bench_worker_slots(dsn, None, args.worker_tasks, args.worker_rounds)
        schema = f"bench_{uuid.uuid4().hex[:8]}"
        pg = await bench_messages("postgres", lambda: PostgresSessionStore(dsn, schema=schema), batches, args.runs)
        base = await pg_baselines(f"{dsn}?options=-csearch_path%3D{schema}", str(pg["session"]), args.runs)
        _report("postgres (local server, fsync on, synchronous_commit off, loopback TCP)", pg, len(batches), base[:2])
        print(
            f"  baseline round trip (SELECT 1) p50: {base[2] * 1e3:.2f} ms"
            f" (append p50 is {pg['append_p50'] / base[2]:.1f} round trips)"
        )
        durable = await bench_messages(
            "postgres-sync",
            lambda: PostgresSessionStore(dsn, schema=schema, synchronous_commit=True),
            batches[:500],
            1,
        )
        print(
            f"  with synchronous_commit=True (first 500 appends): p50 {durable['append_p50'] * 1e3:.2f} ms,"
            f" p95 {durable['append_p95'] * 1e3:.2f} ms"
        )
        pg_claims = await bench_claims(lambda: PostgresSessionStore(dsn, schema=schema), args.tasks, args.workers)
        print(f"  claims: {pg_claims:.0f} claim+finish per second with {args.workers} workers")
        sq, sq_claims, _ = results["sqlite"]
        print("[postgres vs sqlite, same run]")
        print(f"  append p50 {pg['append_p50'] / sq['append_p50']:.1f}x, resume {pg['resume'] / sq['resume']:.2f}x,")
        print(f"  claims/s {pg_claims / sq_claims:.2f}x")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    asyncio.run(main())
