"""Benchmark the Textual app: streaming throughput, key latency, resume time.

    python bench/tui.py [--deltas 20000] [--rate 5000] [--turns 500] [--messages 1000]

Scenarios (each in its own process, so peak RSS is per scenario):

- ``stream-empty``: a model streams N small Markdown deltas at R per second
  into the app (real Agent, real run loop, FunctionProvider pacing to the
  wall clock). Done = the run's result is rendered. Ideal = N / R seconds.
- ``stream-500``: the same, after T finished turns (each a ~1.5 KB Markdown
  answer plus a tool panel) were run through the app.
- ``baseline``: Textual's own ``MarkdownStream`` in a bare app, fed the same
  deltas at the same rate (``await stream.write(d)`` per delta).
- ``resume``: open the app on a stored SQLite session of M messages; time
  from app start to the resumed transcript being painted.

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
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
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


async def scenario_resume(messages: int) -> dict[str, Any]:
    from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
    from skawld_core.sessions.sqlite import SqliteSessionStore
    from skawld_core.testing import ScriptedProvider

    body = "".join(SNIPPETS)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sessions.db"
        store = SqliteSessionStore(path)
        await store.create(id="big")
        batch: list[Message] = []
        for i in range(messages // 4):
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
        t0 = time.perf_counter()
        app = build_app(ScriptedProvider([]), SqliteSessionStore(path), Path(tmp), resume="big")
        async with app.run_test(size=SIZE) as pilot:
            while not app.session_ready.is_set():
                await asyncio.sleep(0.005)
            await pilot.pause()
            shown = time.perf_counter() - t0
            mounted = len(app.transcript.children)
            hidden = app.transcript.marker.hidden_messages
    return {
        "scenario": f"resume-{messages}",
        "shown_s": round(shown, 3),
        "messages": messages,
        "hidden_messages": hidden,
        "mounted_blocks": mounted,
    }


def child(args: argparse.Namespace) -> None:
    if args.scenario == "baseline":
        result = asyncio.run(scenario_baseline(args.deltas, args.rate))
    elif args.scenario == "resume":
        result = asyncio.run(scenario_resume(args.messages))
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
    parser.add_argument("--messages", type=int, default=1_000)
    parser.add_argument("--scenario", choices=["stream-empty", "stream-500", "baseline", "resume"])
    parser.add_argument("--only", nargs="*", default=["baseline", "stream-empty", "stream-500", "resume"])
    args = parser.parse_args()
    if args.scenario:
        child(args)
        return
    results = []
    for name in args.only:
        cmd = [sys.executable, __file__, "--scenario", name]
        cmd += ["--deltas", str(args.deltas), "--rate", str(args.rate), "--turns", str(args.turns)]
        cmd += ["--messages", str(args.messages)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            print(f"{name}: failed\n{out.stderr[-2000:]}")
            continue
        result = json.loads(out.stdout.strip().splitlines()[-1])
        results.append(result)
        print(json.dumps(result))
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
    print("\ngoals: stream done <= 1.25x ideal, key latency < 100 ms, resume < 1 s")


if __name__ == "__main__":
    main()
