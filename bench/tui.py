"""Benchmark the Textual app: streaming throughput, key latency, resume time.

    python bench/tui.py [--deltas 20000] [--rate 5000] [--turns 500] [--resume-turns 1 5000]

Scenarios (each in its own process, so peak RSS is per scenario):

- ``stream-empty``: a model streams N small Markdown deltas at R per second
  into the app (real Agent, real run loop, FunctionProvider pacing to the
  wall clock). Done = the run's result is rendered. Ideal = N / R seconds.
- ``stream-500``: the same, after T finished turns (each a ~1.5 KB Markdown
  answer plus a tool panel) were run through the app.
- ``baseline``: Textual's own ``MarkdownStream`` in a bare app, fed the same
  deltas at the same rate (``await stream.write(d)`` per delta).
- ``resume``: open the app on stored SQLite sessions of 1 and 5,000 turns (4 messages
  a turn), each in a fresh process, `--rounds` times alternating; time from app start
  (its modules already imported) to the resumed transcript being painted (the app's
  ``history_shown``: its last turns, read with ``load_tail``), VmRSS then and the peak so
  far (VmHWM); then the same once the whole history is loaded and the session open
  (``session_ready``), with the process's peak. The 5,000-turn figures are printed as
  ratios of the 1-turn ones (goal 1.5x when shown), and the time the longer history adds
  beside a raw ``SELECT`` + ``json.loads`` of its rows (the least a full load does with them).
  Last runs (2 cores, load 3.5-3.9): shown at 0.81-1.06x the time and 1.00-1.01x the memory;
  loaded at 1.47-1.83x the time and 1.72-1.77x the memory (20,000 messages held as pydantic objects).

Key latency: every 50 ms a key event is posted to the app; latency is the
time until the prompt's key handler runs. "Stall" is the largest lateness of
a 10 ms ticker (event-loop blocking). Goals: stream done within 1.25x the
ideal, worst key latency under 100 ms, resume under 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.resume import baseline as raw_load

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

SIZE = (100, 40)
SNIPPETS = [
    "# Plan\n\n",
    "The agent **reads** the file, then edits `app.py` so the loop ",
    "terminates.\n\n",
    "- first, run the tests\n- then fix the *failing* case\n- finally commit\n\n",
    "```python\ndef total(items):\n    return sum(items)\n```\n\n",
    "Some more prose about why this matters, with a [link](https://example.com) and numbers 1, 2, 3. ",
    "\n\n> A quoted remark.\n\n",
    "## Details\n\n",
]


def make_deltas(n: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    text = ""
    while len(text) < n * 6:
        text += rng.choice(SNIPPETS)
    out, i = [], 0
    while len(out) < n:
        size = rng.randint(2, 6)
        out.append(text[i : i + size])
        i += size
    return out


class Probe:
    """A 10 ms ticker (loop stall) and a 50 ms key poster (key latency)."""

    def __init__(self) -> None:
        self.stalls: list[float] = []
        self.latencies: list[float] = []
        self.pending: list[float] = []
        self.running = True
        self.measuring = False  # set while the measured stream runs
        self.gc_pauses: list[float] = []
        self._gc_start = 0.0
        gc.callbacks.append(self._gc)

    def _gc(self, phase: str, info: dict[str, Any]) -> None:
        if not self.measuring:
            return
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.gc_pauses.append(time.perf_counter() - self._gc_start)

    async def ticker(self) -> None:
        loop = asyncio.get_running_loop()
        self.stall_at: list[float] = []
        start = loop.time()
        while self.running:
            t = loop.time()
            await asyncio.sleep(0.01)
            self.stalls.append(loop.time() - t - 0.01)
            self.stall_at.append(t - start)

    def keys(self, app: Any, loop: asyncio.AbstractEventLoop) -> None:
        """From a thread, like the terminal driver: press a key every 50 ms."""
        from textual import events

        while self.running:
            time.sleep(0.05)
            self.pending.append(time.perf_counter())
            loop.call_soon_threadsafe(app.post_message, events.Key("x", "x"))

    def handled(self) -> None:
        if self.pending:
            self.latencies.append(time.perf_counter() - self.pending.pop(0))

    def summary(self) -> dict[str, float]:
        lat = sorted(self.latencies) or [0.0]
        stalls = sorted(self.stalls) or [0.0]
        return {
            "keys": len(self.latencies),
            "key_p50_ms": 1000 * lat[len(lat) // 2],
            "key_max_ms": 1000 * lat[-1],
            "stall_p95_ms": 1000 * stalls[int(len(stalls) * 0.95)],
            "stall_max_ms": 1000 * stalls[-1],
            "gc_max_ms": 1000 * max(self.gc_pauses, default=0.0),
            "worst_stalls_at_s": sorted(zip(self.stalls, getattr(self, "stall_at", []), strict=False), reverse=True)[
                :3
            ],
        }


async def paced(deltas: list[str], rate: float, marks: dict[str, float]) -> AsyncIterator[Any]:
    from skawld_core.messages import Usage
    from skawld_core.providers.base import MessageEnd, MessageStart, TextDelta

    loop = asyncio.get_running_loop()
    yield MessageStart()
    t0 = marks["t0"] = loop.time()
    i, n = 0, len(deltas)
    while i < n:
        due = min(n, int((loop.time() - t0) * rate) + 1)
        while i < due:
            yield TextDelta(text=deltas[i])
            i += 1
        await asyncio.sleep(0.001)
    marks["produced"] = loop.time()
    yield MessageEnd(stop_reason="end_turn", usage=Usage(input_tokens=100, output_tokens=n))


def answer_turn(i: int) -> list[Any]:
    from skawld_core.testing import reply, text, tool_call

    body = "".join(SNIPPETS) * 2  # ~1.5 KB of Markdown
    return [
        reply(text(body, chunk=200), tool_call("Noop", {"path": f"f{i}"}, id=f"t{i}")).events,
        reply(f"turn {i} done").events,
    ]


def build_app(provider: Any, store: Any, tmp: Path, resume: str | None = None) -> Any:
    from pydantic import BaseModel

    from skawld_core import Agent
    from skawld_core.tools import Tool, ToolContext, ToolResult
    from skawld_tui.app.skawld_app import SkawldApp

    class PathIn(BaseModel):
        path: str

    class Noop(Tool[PathIn]):
        name = "Noop"
        description = "no-op"
        scope = "read"
        parallel_safe = True
        input_model = PathIn

        async def execute(self, value: PathIn, ctx: ToolContext) -> ToolResult:
            return ToolResult(content=f"contents of {value.path}\n" * 5)

    def factory(can_use_tool: Any, ask_user: Any) -> Agent:
        return Agent(
            provider=provider,
            model="bench-model",
            tools=[Noop()],
            permission_mode="yolo",
            can_use_tool=can_use_tool,
            session_store=store,
            cwd=tmp,
            include_partial_messages=True,
        )

    return SkawldApp(agent_factory=factory, resume_id=resume)


async def run_and_wait(app: Any, prompt: str) -> None:
    done = app.runs_completed + 1
    await app.submit(prompt)
    while app.runs_completed < done or app.running:
        await asyncio.sleep(0.005)


async def scenario_stream(n: int, rate: float, turns: int) -> dict[str, Any]:
    from skawld_core.sessions import InMemorySessionStore
    from skawld_core.testing import FunctionProvider
    from skawld_tui.app.widgets.blocks import AssistantMarkdown
    from skawld_tui.app.widgets.prompt import PromptArea

    deltas = make_deltas(n)
    marks: dict[str, float] = {}
    queue: list[list[Any]] = []
    for i in range(turns):
        queue.extend(answer_turn(i))

    def fn(request: Any) -> Any:
        if queue:
            return queue.pop(0)
        return paced(deltas, rate, marks)

    probe = Probe()
    original = PromptArea._on_key

    async def on_key(self: PromptArea, event: Any) -> None:
        if event.key == "x":
            probe.handled()
        await original(self, event)

    PromptArea._on_key = on_key  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp:
        provider = FunctionProvider(fn)
        app = build_app(provider, InMemorySessionStore(), Path(tmp))
        async with app.run_test(size=SIZE) as pilot:
            while not app.session_ready.is_set():
                await asyncio.sleep(0.01)
            t_fill = time.perf_counter()
            for i in range(turns):
                await run_and_wait(app, f"question {i}")
            fill_s = time.perf_counter() - t_fill
            provider.requests.clear()  # a test-double artefact: real providers keep no request log
            # The next prompt comes after the user read the last answer: the app's
            # idle collection (rate-limited to one per 5 s) has run by then.
            import skawld_tui.app.skawld_app as app_module

            app_module._last_idle_gc = 0.0
            app_module.idle_gc()
            await pilot.pause()
            widgets_before = len(list(app.query("*")))
            loop = asyncio.get_running_loop()
            tasks = [asyncio.create_task(probe.ticker())]
            presser = threading.Thread(target=probe.keys, args=(app, loop), daemon=True)
            presser.start()
            start = loop.time()
            probe.measuring = True
            await run_and_wait(app, "stream please")
            end = loop.time()
            probe.measuring = probe.running = False
            presser.join()
            for t in tasks:
                t.cancel()
            await pilot.pause()
            md = [m for m in app.query(AssistantMarkdown)][-1]
            ok = md.source == "".join(deltas)
            widgets_after = len(list(app.query("*")))
    ideal = n / rate
    total = end - marks.get("t0", start)
    return {
        "scenario": f"stream-{turns}",
        "done_s": round(total, 3),
        "ideal_s": ideal,
        "ratio": round(total / ideal, 3),
        "text_ok": ok,
        "fill_s": round(fill_s, 2),
        "widgets_before": widgets_before,
        "widgets_after": widgets_after,
        **probe.summary(),
    }


async def scenario_baseline(n: int, rate: float) -> dict[str, Any]:
    from textual.app import App, ComposeResult
    from textual.containers import VerticalScroll
    from textual.widgets import Markdown

    class Base(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll(id="log"):
                yield Markdown()

    deltas = make_deltas(n)
    probe = Probe()
    app = Base()
    async with app.run_test(size=SIZE):
        app.query_one("#log").anchor()
        md = app.query_one(Markdown)
        stream = Markdown.get_stream(md)
        loop = asyncio.get_running_loop()
        ticker = asyncio.create_task(probe.ticker())
        probe.measuring = True
        t0 = loop.time()
        i = 0
        while i < n:
            due = min(n, int((loop.time() - t0) * rate) + 1)
            while i < due:
                await stream.write(deltas[i])
                i += 1
            await asyncio.sleep(0.001)
        await stream.stop()
        end = loop.time()
        probe.measuring = probe.running = False
        ticker.cancel()
        ok = md.source == "".join(deltas)
    ideal = n / rate
    return {
        "scenario": "baseline-MarkdownStream",
        "done_s": round(end - t0, 3),
        "ideal_s": ideal,
        "ratio": round((end - t0) / ideal, 3),
        "text_ok": ok,
        **probe.summary(),
    }


async def make_resume_db(path: Path, turns: int) -> None:
    """A stored SQLite session `big` of `turns` user turns (4 messages each: the question, an
    answer with a tool call, the tool's result, the closing answer)."""
    from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
    from skawld_core.sessions.sqlite import SqliteSessionStore

    body = "".join(SNIPPETS)
    store = SqliteSessionStore(path)
    await store.create(id="big")
    for first in range(0, turns, 250):
        batch: list[Message] = []
        for i in range(first, min(turns, first + 250)):
            batch += [
                Message(role="user", content=[TextBlock(text=f"question {i}")]),
                Message(
                    role="assistant",
                    content=[TextBlock(text=body), ToolUseBlock(id=f"t{i}", name="Noop", input={"path": f"f{i}"})],
                ),
                Message(role="user", content=[ToolResultBlock(tool_use_id=f"t{i}", content="line\n" * 40)]),
                Message(role="assistant", content=[TextBlock(text=f"answer {i}: " + body[:300])]),
            ]
        await store.append_messages("big", batch)
    await store.close()


async def scenario_resume(db: Path) -> dict[str, Any]:
    """Open the app on the stored session in `db`: app start → resumed transcript painted.

    The app's modules are imported first (untimed), so the time is the app's own work, not
    Python's imports, which a 1-turn and a 5,000-turn resume pay alike."""
    import importlib

    from skawld_core.sessions.rows import freeze_loaded_history
    from skawld_tui.app.skawld_app import AFTER_FIRST_FRAME

    for module in (*AFTER_FIRST_FRAME, "skawld_tui.commands.context"):
        importlib.import_module(module)
    from skawld_core.sessions.sqlite import SqliteSessionStore
    from skawld_core.testing import ScriptedProvider

    freeze_loaded_history()  # as `skawld_tui.bootstrap.build_agent` sets it in the real app
    rss_before = _vm_rss_mb()
    t0 = time.perf_counter()
    app = build_app(ScriptedProvider([]), SqliteSessionStore(db), db.parent, resume="big")
    async with app.run_test(size=SIZE) as pilot:
        await app.history_shown.wait()  # set once the tail is painted
        shown = time.perf_counter() - t0
        mounted = len(app.transcript.children)
        hidden = app.transcript.marker.hidden_messages
        rss_shown, peak_shown = _vm_rss_mb(), _vm_rss_mb("VmHWM")
        await app.session_ready.wait()
        await pilot.pause()
        loaded = time.perf_counter() - t0
        rss_loaded = _vm_rss_mb()
        messages = len(app.session.full_history) if app.session else 0
    return {
        "scenario": f"resume-{db.stem}",
        "shown_s": round(shown, 3),
        "loaded_s": round(loaded, 3),
        "messages": messages,
        "hidden_messages": hidden,
        "mounted_blocks": mounted,
        "rss_shown_mb": round(rss_shown, 1),
        "rss_loaded_mb": round(rss_loaded, 1),
        "peak_shown_mb": round(peak_shown, 1),
        "rss_added_mb": round(rss_shown - rss_before, 1),
    }


def _vm_rss_mb(field: str = "VmRSS") -> float:
    """This process's resident memory now (`VmHWM`: its peak so far), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def child(args: argparse.Namespace) -> None:
    if args.scenario == "baseline":
        result = asyncio.run(scenario_baseline(args.deltas, args.rate))
    elif args.scenario == "resume":
        result = asyncio.run(scenario_resume(Path(args.db)))
    else:
        turns = 0 if args.scenario == "stream-empty" else args.turns
        result = asyncio.run(scenario_stream(args.deltas, args.rate, turns))
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--rate", type=float, default=5_000)
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--resume-turns", type=int, nargs="*", default=[1, 5_000])
    parser.add_argument("--rounds", type=int, default=3, help="resume runs per size (alternating; medians)")
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--scenario", choices=["stream-empty", "stream-500", "baseline", "resume"])
    parser.add_argument("--only", nargs="*", default=["baseline", "stream-empty", "stream-500", "resume"])
    args = parser.parse_args()
    if args.scenario:
        child(args)
        return
    results = []
    with tempfile.TemporaryDirectory(prefix="skawld-bench-tui-") as tmp:
        for name in args.only:
            if name == "resume":
                results += resume_sizes(args, Path(tmp))
                continue
            result = run_child(args, name)
            if result is not None:
                results.append(result)
    base = next((r for r in results if r["scenario"].startswith("baseline")), None)
    print()
    print(
        f"{'scenario':<26}{'done s':>8}{'x ideal':>9}{'x base':>8}{'key max':>9}{'key p50':>9}{'stall max':>10}{'RSS MB':>8}"
    )
    for r in results:
        if "done_s" in r:
            vs = f"{r['done_s'] / base['done_s']:.2f}" if base else "-"
            print(
                f"{r['scenario']:<26}{r['done_s']:>8.2f}{r['ratio']:>9.2f}{vs:>8}"
                f"{r['key_max_ms']:>9.0f}{r['key_p50_ms']:>9.0f}{r['stall_max_ms']:>10.0f}{r['peak_rss_mb']:>8.0f}"
            )
        else:
            print(
                f"{r['scenario']:<26}{r['shown_s']:>8.2f}{'':>9}{'':>8}{'':>9}{'':>9}{'':>10}{r['peak_rss_mb']:>8.0f}"
            )
    resumes = [r for r in results if "shown_s" in r]
    if len(resumes) >= 2:
        small, big = resumes[0], resumes[-1]
        print(
            f"\n{big['scenario']} vs {small['scenario']}: time {big['shown_s'] / small['shown_s']:.2f}x, "
            f"VmRSS when shown {big['rss_shown_mb'] / small['rss_shown_mb']:.2f}x, "
            f"peak RSS until shown {big['peak_shown_mb'] / small['peak_shown_mb']:.2f}x (goal: each <= 1.5x)"
        )
        print(
            f"once the whole history is loaded (the session open): time {big['loaded_s'] / small['loaded_s']:.2f}x, "
            f"VmRSS {big['rss_loaded_mb'] / small['rss_loaded_mb']:.2f}x, process peak {big['peak_rss_mb'] / small['peak_rss_mb']:.2f}x"
        )
        print(
            f"time added by the longer history: {big['shown_s'] - small['shown_s']:.3f} s; "
            f"a raw SELECT + json.loads of its rows alone: {big['raw_load_s']:.3f} s"
        )
    print("\ngoals: stream done <= 1.25x ideal, key latency < 100 ms, resume < 1 s")


def run_child(args: argparse.Namespace, name: str, db: Path | None = None) -> dict[str, Any] | None:
    """One scenario in a fresh process (peak RSS is its own)."""
    cmd = [sys.executable, __file__, "--scenario", name]
    cmd += ["--deltas", str(args.deltas), "--rate", str(args.rate), "--turns", str(args.turns)]
    if db is not None:
        cmd += ["--db", str(db)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f"{name}: failed\n{out.stderr[-2000:]}")
        return None
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    print(json.dumps(result))
    return result


def resume_sizes(args: argparse.Namespace, tmp: Path) -> list[dict[str, Any]]:
    """Resume each stored size `--rounds` times, sizes alternating within a round; the
    median of each figure per size."""
    dbs = []
    for turns in args.resume_turns:
        db = tmp / f"{turns}-turns.db"
        asyncio.run(make_resume_db(db, turns))
        dbs.append(db)
    runs: dict[Path, list[dict[str, Any]]] = {db: [] for db in dbs}
    for round_ in range(args.rounds):
        for db in dbs if round_ % 2 == 0 else reversed(dbs):
            result = run_child(args, "resume", db)
            if result is not None:
                runs[db].append(result)
    merged = []
    for db in dbs:
        if runs[db]:
            one = dict(runs[db][0])
            for key in (
                "shown_s",
                "loaded_s",
                "rss_shown_mb",
                "rss_loaded_mb",
                "peak_shown_mb",
                "rss_added_mb",
                "peak_rss_mb",
            ):
                one[key] = statistics.median(r[key] for r in runs[db])
            # The least any resume must do with these rows (bench/resume.py's baseline).
            one["raw_load_s"] = statistics.median(raw_load(db, "big") for _ in range(args.rounds))
            merged.append(one)
    return merged


if __name__ == "__main__":
    main()
