"""Resume of long sessions from SQLite: `load` + `load_messages` vs the raw fetch + `json.loads`.

    python bench/resume.py [--turns 10 100 1000 5000] [--messages 20000] [--runs 3]

For each size, writes a session of realistic loop traffic (an assistant turn with text and a
tool call, then a ~1.3 KB tool result: two messages per turn) to a SQLite file, then times
(median of `--runs`, alternating) a resume in a fresh `SqliteSessionStore` against the baseline
measured in the same run on the same rows: `SELECT` with the `sqlite3` module plus `json.loads`
of every message. Prints the ratio per size. Goal: at most 1.5x at 20,000 messages.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from skawld_core.sessions.sqlite import SqliteSessionStore


def turn_messages(i: int) -> list[Message]:
    return [
        Message(
            role="assistant",
            content=[
                TextBlock(text=f"Turn {i}: let me look at the module before editing it. " * 3),
                ToolUseBlock(id=f"toolu_{i:06d}", name="Read", input={"file_path": f"/repo/pkg/mod{i}.py"}),
            ],
        ),
        Message(
            role="user", content=[ToolResultBlock(tool_use_id=f"toolu_{i:06d}", content="    line of code\n" * 80)]
        ),
    ]


async def make_session(db: Path, turns: int) -> str:
    store = SqliteSessionStore(db)
    session = await store.create()
    batch: list[Message] = []
    for i in range(turns):
        batch.extend(turn_messages(i))
        if len(batch) >= 1000:
            await store.append_messages(session.id, batch)
            batch = []
    if batch:
        await store.append_messages(session.id, batch)
    await store.close()
    return session.id


def baseline(db: Path, session_id: str) -> float:
    start = time.perf_counter()
    conn = sqlite3.connect(db)
    conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchall()
    rows = conn.execute(
        "SELECT seq, appended_at, message_json FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
    ).fetchall()
    [json.loads(r[2]) for r in rows]
    conn.close()
    return time.perf_counter() - start


async def resume(db: Path, session_id: str) -> float:
    start = time.perf_counter()
    store = SqliteSessionStore(db)
    await store.load(session_id)
    await store.load_messages(session_id)
    took = time.perf_counter() - start
    await store.close()
    return took


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="*", default=[10, 100, 1000, 5000])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sizes = [*args.turns, args.messages // 2]
    print(f"{'session':>22} {'raw fetch+json':>15} {'skawld resume':>14} {'ratio':>7}")
    with tempfile.TemporaryDirectory(prefix="skawld-bench-resume-") as tmp:
        for turns in sizes:
            db = Path(tmp) / f"s{turns}.db"
            session_id = await make_session(db, turns)
            base: list[float] = []
            ours: list[float] = []
            for run in range(args.runs + 1):
                if run % 2:
                    b, o = baseline(db, session_id), await resume(db, session_id)
                else:
                    o, b = await resume(db, session_id), baseline(db, session_id)
                if run:  # the first pair warms the page cache and the models
                    base.append(b)
                    ours.append(o)
            b, o = statistics.median(base), statistics.median(ours)
            label = f"{turns} turns / {2 * turns} msgs"
            print(f"{label:>22} {b * 1e3:12.1f} ms {o * 1e3:11.1f} ms {o / b:6.2f}x")
    print("goal: at most 1.5x at 20,000 messages")


if __name__ == "__main__":
    asyncio.run(main())
