"""A 300-turn session of the live app in tmux: does Enter → answer stay flat?

    python bench/long_session.py [--turns 300] [--pause 0.3]

Starts ``skawld`` in a 120x40 tmux session (fresh HOME and git repository) against the local
wire server, then per turn types ``question N``, presses Enter and polls the screen until the
answer's last line (``answer N ends``) is shown. Each answer is ~1.5 KB of Markdown, so history
and the transcript grow as in a real session; between turns the bench waits `--pause` seconds
(a user reading). It prints the median Enter → answer of the turns around turn 10 (turns 6–15)
and around the last turn (the last 10), their ratio (goal: at most 1.1x), and the app's
resident memory (VmRSS) at turn 10 and at the end, with the growth per turn between them.
Screen polling is every 5 ms.

The baseline, run beside it against the same server, turn for turn (the app's turn N, then
the baseline's, so both see the same machine load): the same turns through the headless
path (``skawld -p --input-format stream-json``, one process, prompt → result line), which
pays everything that necessarily grows with history (the request body built and sent over
all messages, the server reading it, the session writes) and none of the app's own work.
Its ratio is printed next to the app's, and so is the app's own time per turn (app minus
headless) at turn 10 and at the end. The server keeps no request log (a test-double
artefact: a real server does not hold every body it was sent).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.interactive import KEY, MODEL, _kill, _start, _wait_for  # noqa: E402
from tests.support.wire_server import WireServer, text, turn  # noqa: E402

ANSWER = (
    "## Plan\n\nThe agent **reads** the file, then edits `app.py` so the loop terminates.\n\n"
    "- first, run the tests\n- then fix the *failing* case\n- finally commit\n\n"
    "```python\ndef total(items):\n    return sum(items)\n```\n\n"
    "Some more prose about why this matters, with a [link](https://example.com) and numbers 1, 2, 3.\n\n"
) * 3


def rss_kb(pane_pid: int) -> int:
    """VmRSS of the pane's process (skawld: `env` execs it)."""
    for line in Path(f"/proc/{pane_pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pane_pid(name: str) -> int:
    out = subprocess.run(["tmux", "list-panes", "-t", name, "-F", "#{pane_pid}"], capture_output=True, text=True)
    return int(out.stdout.split()[0])


def _fresh_env(tmp: Path, pycache: Path) -> tuple[Path, dict[str, str]]:
    """A fresh HOME and git repository under `tmp`: (repo, environment)."""
    home, repo = tmp / "home", tmp / "repo"
    home.mkdir(parents=True)
    repo.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    env = {"HOME": str(home), "ANTHROPIC_API_KEY": KEY, "TERM": "xterm-256color", "PYTHONPYCACHEPREFIX": str(pycache)}
    env["PYTHONPATH"] = str(ROOT)  # this checkout's code, whichever environment started the tmux server
    return repo, env


class Headless:
    """The baseline: one `skawld -p --input-format stream-json` process; a turn is a prompt
    line written → its result line read."""

    def __init__(self, url: str, repo: Path, env: dict[str, str]) -> None:
        exe = str(Path(sys.executable).parent / "skawld")
        argv = [exe, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"]
        argv += ["--base-url", url, "--model", MODEL]
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.proc = subprocess.Popen(
            argv,
            cwd=repo,
            env={**inherited, **env},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def turn(self, n: int) -> float:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        line = {"type": "user", "message": {"role": "user", "content": f"question {n}"}}
        start = time.perf_counter()
        stdin.write(json.dumps(line) + "\n")
        stdin.flush()
        while True:
            out = stdout.readline()
            if not out:
                raise RuntimeError(f"skawld -p ended at turn {n} (exit {self.proc.wait()})")
            if json.loads(out).get("type") == "result":
                return time.perf_counter() - start

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def run_session(
    url: str, turns: int, pause: float, pycache: Path, baseline: bool
) -> tuple[list[float], list[float], dict[int, int]]:
    """Per turn: Enter → answer in the app, then the same turn through the headless baseline
    (paired, so both see the same machine load); and the app's VmRSS (kB) after some turns."""
    times: list[float] = []
    base: list[float] = []
    memory: dict[int, int] = {}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        repo, env = _fresh_env(Path(tmp, "app"), pycache)
        headless = Headless(url, *_fresh_env(Path(tmp, "headless"), pycache)) if baseline else None
        exe = str(Path(sys.executable).parent / "skawld")
        name = "bench-long"
        _kill(name)
        try:
            _start(name, repo, env, [exe, "--base-url", url, "--model", MODEL])
            _wait_for(name, "Message skawld")
            pid = pane_pid(name)
            for n in range(1, turns + 1):
                time.sleep(pause)
                subprocess.run(["tmux", "send-keys", "-t", name, "-l", f"question {n}"], check=True)
                time.sleep(0.05)
                enter = time.perf_counter()
                subprocess.run(["tmux", "send-keys", "-t", name, "Enter"], check=True)
                times.append(_wait_for(name, f"answer {n} ends") - enter)
                if n in (1, 10, turns) or n % 50 == 0:
                    memory[n] = rss_kb(pid)
                if headless is not None:
                    time.sleep(pause)
                    base.append(headless.turn(n))
        finally:
            _kill(name)
            if headless is not None:
                headless.close()
    return times, base, memory


def _summary(label: str, times: list[float]) -> tuple[float, float]:
    early, late = statistics.median(times[5:15]), statistics.median(times[-10:])
    print(f"{label}: turn 10 (median of 6-15) {early * 1000:7.1f} ms, last (median of last 10) {late * 1000:7.1f} ms")
    for start in range(0, len(times), 50):
        chunk = times[start : start + 50]
        print(f"  turns {start + 1:>3}-{start + len(chunk):<3} median {statistics.median(chunk) * 1000:7.1f} ms")
    return early, late


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between an answer and the next prompt")
    parser.add_argument("--no-baseline", action="store_true", help="skip the headless run")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed: apt-get install tmux")
    pycache = Path(tempfile.mkdtemp(prefix="skawld-pycache-"))
    try:
        with WireServer() as srv:

            def answer(req: Any) -> object:
                srv.requests.clear()  # no request log: see the module docstring
                srv.anthropic.requests.clear()
                asked = req.body["messages"][-1]["content"]
                text_of = asked if isinstance(asked, str) else " ".join(b.get("text", "") for b in asked)
                n = text_of.rsplit("question ", 1)[-1].split()[0]
                return turn(text(f"{ANSWER}answer {n} ends"))

            srv.anthropic.default = answer
            times, base, memory = run_session(srv.url, args.turns, args.pause, pycache, not args.no_baseline)
    finally:
        shutil.rmtree(pycache, ignore_errors=True)
    print(f"{args.turns} turns, {args.pause}s between turns")
    early, late = _summary("app (Enter → answer on screen)", times)
    if base:
        b_early, b_late = _summary("headless baseline (prompt → result line)", base)
    print(f"ratio last / turn 10, app:      {late / early:.2f}x (goal <= 1.1x)")
    if base:
        print(f"ratio last / turn 10, headless: {b_late / b_early:.2f}x (what grows with history anyway)")
        own_early, own_late = early - b_early, late - b_late
        print(
            f"app's own time per turn (app - headless): turn 10 {own_early * 1000:.1f} ms, "
            f"last {own_late * 1000:.1f} ms, ratio {own_late / own_early:.2f}x"
            if own_early > 0
            else "app's own time per turn: not above the headless path's"
        )
    for n, kb in sorted(memory.items()):
        print(f"  VmRSS after turn {n:>3}: {kb / 1024:7.1f} MB")
    if 10 in memory and args.turns in memory and args.turns > 10:
        per_turn = (memory[args.turns] - memory[10]) / (args.turns - 10)
        print(f"memory growth per turn after turn 10: {per_turn:.1f} kB")


if __name__ == "__main__":
    main()
