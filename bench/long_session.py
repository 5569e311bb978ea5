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
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def run_session(url: str, turns: int, pause: float) -> tuple[list[float], dict[int, int]]:
    """Enter → answer per turn (seconds), and VmRSS (kB) after some turns."""
    times: list[float] = []
    memory: dict[int, int] = {}
    pycache = Path(tempfile.mkdtemp(prefix="skawld-pycache-"))
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        home, repo = Path(tmp, "home"), Path(tmp, "repo")
        home.mkdir()
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        env = {
            "HOME": str(home),
            "ANTHROPIC_API_KEY": KEY,
            "TERM": "xterm-256color",
            "PYTHONPYCACHEPREFIX": str(pycache),
        }
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
        finally:
            _kill(name)
            shutil.rmtree(pycache, ignore_errors=True)
    return times, memory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--pause", type=float, default=0.3, help="seconds between an answer and the next prompt")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed: apt-get install tmux")
    with WireServer() as srv:
        count = 0

        def answer(_req: object) -> object:
            nonlocal count
            count += 1
            return turn(text(f"{ANSWER}answer {count} ends"))

        srv.anthropic.default = answer
        times, memory = run_session(srv.url, args.turns, args.pause)
    early = statistics.median(times[5:15])
    late = statistics.median(times[-10:])
    print(f"{args.turns} turns, {args.pause}s between turns")
    for start in range(0, len(times), 50):
        chunk = times[start : start + 50]
        print(
            f"  turns {start + 1:>3}-{start + len(chunk):<3} median Enter→answer {statistics.median(chunk) * 1000:7.1f} ms"
        )
    print(f"turn 10 (median of 6-15): {early * 1000:7.1f} ms")
    print(f"turn {args.turns} (median of last 10): {late * 1000:7.1f} ms")
    print(f"ratio last / turn 10: {late / early:.2f}x (goal <= 1.1x)")
    for n, kb in sorted(memory.items()):
        print(f"  VmRSS after turn {n:>3}: {kb / 1024:7.1f} MB")
    if 10 in memory and args.turns in memory and args.turns > 10:
        per_turn = (memory[args.turns] - memory[10]) / (args.turns - 10)
        print(f"memory growth per turn after turn 10: {per_turn:.1f} kB")


if __name__ == "__main__":
    main()
