"""Benchmark `SqliteSessionStore`: 10,000 appended messages, then a resume.

    python bench/store.py [--messages 10000] [--runs 5]

Appends realistic loop traffic (assistant turns with text + tool_use, tool
results of ~1-2 KB, 1-2 messages per append), then times a resume (`load` +
`load_messages`) in a fresh store instance, against baselines measured in the
same run on the same rows: raw `sqlite3` fetch, and raw fetch + `json.loads`.
Goal: resume under 0.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
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


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    batches = make_batches(args.messages)
    n_messages = sum(len(b) for b in batches)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sessions.db"
        writer = SqliteSessionStore(path)
        session = await writer.create(id="bench", meta={"title": "bench"})
        start = time.perf_counter()
        for batch in batches:
            await writer.append_messages(session.id, batch)
        append_s = time.perf_counter() - start
        await writer.close()

        resume_samples: list[float] = []
        loaded = 0
        for _ in range(args.runs):
            store = SqliteSessionStore(path)
            start = time.perf_counter()
            record = await store.load(session.id)
            messages = await store.load_messages(session.id)
            resume_samples.append(time.perf_counter() - start)
            await store.close()
            assert record is not None and [m.seq for m in messages] == list(range(1, n_messages + 1))
            loaded = len(messages)
        resume_s = statistics.median(resume_samples)

        def raw_fetch() -> list[tuple[int, str, str]]:
            with sqlite3.connect(path) as conn:
                return conn.execute(
                    "SELECT seq, appended_at, message_json FROM messages WHERE session_id = ? ORDER BY seq",
                    ("bench",),
                ).fetchall()

        def raw_json() -> list[object]:
            return [json.loads(row[2]) for row in raw_fetch()]

        def raw_pydantic() -> list[Message]:
            return [Message.model_validate_json(row[2]) for row in raw_fetch()]

        fetch_s, rows = _time(raw_fetch, args.runs)
        json_s, _ = _time(raw_json, args.runs)
        pyd_s, _ = _time(raw_pydantic, args.runs)
        size = path.stat().st_size + (
            path.with_name(path.name + "-wal").stat().st_size if path.with_name(path.name + "-wal").exists() else 0
        )
        avg_bytes = sum(len(r[2]) for r in rows) / max(len(rows), 1)  # type: ignore[union-attr]

    print(f"messages: {n_messages} in {len(batches)} appends (avg {avg_bytes:.0f} B of JSON per message)")
    print(f"append:  total {append_s:.3f} s, {append_s / len(batches) * 1e3:.3f} ms per append_messages call")
    print(f"resume (load + load_messages, fresh store, median of {args.runs}): {resume_s * 1e3:.1f} ms for {loaded}")
    print(f"baseline raw sqlite3 fetch:                 {fetch_s * 1e3:.1f} ms  (resume is {resume_s / fetch_s:.1f}x)")
    print(f"baseline raw fetch + json.loads:            {json_s * 1e3:.1f} ms  (resume is {resume_s / json_s:.1f}x)")
    print(
        f"baseline raw fetch + Message.model_validate_json: {pyd_s * 1e3:.1f} ms  (resume is {resume_s / pyd_s:.2f}x)"
    )
    print(f"database size: {size / 1e6:.1f} MB")
    verdict = "OK" if resume_s < 0.5 else "OVER BUDGET"
    print(f"goal resume < 500 ms: {verdict}")


if __name__ == "__main__":
    asyncio.run(main())
