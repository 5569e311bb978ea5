"""Resume of long sessions from SQLite: `load` + `load_messages` vs the raw fetch + `json.loads`.

    python bench/resume.py [--turns 10 100 1000 5000] [--messages 20000] [--runs 3]

For each size, writes a session of realistic loop traffic (an assistant turn with text and a
tool call, then a ~1.3 KB tool result: two messages per turn) to a SQLite file, then times
(median of `--runs`, alternating) a resume in a fresh `SqliteSessionStore` against the baseline
measured in the same run on the same rows: `SELECT` with the `sqlite3` module plus `json.loads`
of every message. Prints the ratio per size, twice: as skawld's own processes load a history
(`freeze_loaded_history` on: the built history joins the frozen heap, as `skawld_tui.bootstrap`
sets it) and as the SDK does by default (off: the first collection after the load walks every
new message once). Goal: at most 1.5x at 20,000 messages.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from skawld_core.sessions.rows import freeze_loaded_history
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


async def resume(db: Path, session_id: str, freeze: bool) -> float:
    freeze_loaded_history(freeze)
    start = time.perf_counter()
    store = SqliteSessionStore(db)
    await store.load(session_id)
    loaded = await store.load_messages(session_id)
    [[] for _ in range(1000)]  # the allocations that follow a load: the first collection runs here
    took = time.perf_counter() - start
    await store.close()
    del loaded
    gc.unfreeze()  # the next round starts from the same heap
    gc.collect()
    return took


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="*", default=[10, 100, 1000, 5000])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sizes = [*args.turns, args.messages // 2]
    print(f"{'session':>22} {'raw fetch+json':>15} {'skawld':>10} {'ratio':>7} {'SDK default':>12} {'ratio':>7}")
    with tempfile.TemporaryDirectory(prefix="skawld-bench-resume-") as tmp:
        for turns in sizes:
            db = Path(tmp) / f"s{turns}.db"
            session_id = await make_session(db, turns)
            base: list[float] = []
            frozen: list[float] = []
            plain: list[float] = []
            for run in range(args.runs + 1):
                order = [0, 1, 2] if run % 2 else [2, 1, 0]
                took = [0.0, 0.0, 0.0]
                for which in order:
                    if which == 0:
                        took[0] = baseline(db, session_id)
                    else:
                        took[which] = await resume(db, session_id, freeze=which == 1)
                if run:  # the first round warms the page cache and the models
                    base.append(took[0])
                    frozen.append(took[1])
                    plain.append(took[2])
            b, f, p = statistics.median(base), statistics.median(frozen), statistics.median(plain)
            label = f"{turns} turns / {2 * turns} msgs"
            print(f"{label:>22} {b * 1e3:12.1f} ms {f * 1e3:7.1f} ms {f / b:6.2f}x {p * 1e3:9.1f} ms {p / b:6.2f}x")
    print("goal: at most 1.5x at 20,000 messages")


if __name__ == "__main__":
    asyncio.run(main())
