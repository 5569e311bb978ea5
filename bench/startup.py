"""Benchmark start-up of the installed `skawld` command, alone or side by side with its peers.

    python bench/startup.py [--runs 7]
    python bench/startup.py --side-by-side [--runs 5] [--rounds 2]

``--side-by-side`` runs one scripted 4-turn session (two parallel Reads, an Edit, a
Bash, an answer; see `bench/peers.py`) against the local wire server through
``skawld -p``, Claude Code and the TypeScript skawld SDK, interleaved, and prints per
round the median wall time, the time from process start until the first model request
reached the server, peak RSS, and the ratios skawld/Claude Code and skawld/TS SDK.
Peers that cannot be installed (no npm, no registry) are skipped with the reason.

Measures, in the same run and alternating so machine noise hits all of them:

- ``skawld --help`` (goal: under 0.3 s);
- a one-turn ``skawld -p hi --json`` against a local `WireServer`, and the time from
  process start until its first request reaches the server (goal: 0.3 s; what keeps
  it short: the README's "Performance" section);
- the CPU time (user + system, all threads) of that one-turn run: on a loaded machine
  wall times stretch with the load, CPU time much less;
- baselines: ``python -c pass`` and ``python -c "import anthropic"``.

The console script next to this interpreter is run directly (no pyenv/shell shim),
in a temp HOME and repository, with bytecode caching on (in a temp
``PYTHONPYCACHEPREFIX``, warmed by one untimed round) even if the calling
environment sets ``PYTHONDONTWRITEBYTECODE``. Medians are reported, with ratios and
differences against the baselines. Note: after a headless run skawld ends with
`os._exit` (no interpreter teardown, worth 0.1-0.2 s with the SDK loaded), while the
``import anthropic`` baseline pays for its teardown; both are what a user waits for.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.wire_server import WireServer, text, turn  # noqa: E402


def skawld_command() -> list[str]:
    here = Path(sys.executable).parent / "skawld"
    if here.exists():
        return [str(here)]
    found = shutil.which("skawld")
    if not found:
        sys.exit("skawld is not installed: pip install -e .")
    return [found]


def timed(cmd: list[str], *, cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.decode()[-800:]}")
    return elapsed


def cpu_time(cmd: list[str], *, cwd: Path, env: dict[str, str]) -> float:
    """CPU seconds (user + system) the child process used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    timed(cmd, cwd=cwd, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def first_request(cmd: list[str], repo: Path, env: dict[str, str], arrivals: list[float]) -> float:
    """Seconds from spawning ``cmd`` until its first request reached the wire server."""
    arrivals.clear()
    start = time.perf_counter()
    timed(cmd, cwd=repo, env=env)
    if not arrivals:
        sys.exit("the headless run made no request")
    return arrivals[0] - start


def side_by_side(runs: int, rounds: int) -> None:
    """The peers' table: medians per round, ratios against Claude Code and the TS SDK."""
    from bench.peers import claude_code_peer, run_once, skawld_peer, ts_sdk_peer

    peers = [skawld_peer(), claude_code_peer(), ts_sdk_peer()]
    for peer in peers:
        if peer.skipped:
            print(f"skipped {peer.name}: {peer.skipped}")
    active = [p for p in peers if p.argv is not None]
    if not active or active[0].name != "skawld -p":
        sys.exit("skawld itself cannot run; nothing to compare")
    state: dict[str, Path] = {}
    with WireServer() as srv:
        for peer in active:  # warm-up: page cache, .pyc files, first-run setup
            run_once(peer, srv, state)
        for rnd in range(1, rounds + 1):
            samples: dict[str, list[Any]] = {p.name: [] for p in active}
            for _ in range(runs):
                for peer in active:
                    samples[peer.name].append(run_once(peer, srv, state))
            print(f"\nround {rnd}: {runs} interleaved runs each, medians")
            print(f"  {'':<16} {'wall s':>8} {'1st request s':>14} {'peak RSS MB':>12}")
            med: dict[str, float] = {}
            for name, ss in samples.items():
                med[name] = statistics.median(x.wall for x in ss)
                firsts = [x.first_request for x in ss if x.first_request is not None]
                first = f"{statistics.median(firsts):14.3f}" if firsts else f"{'-':>14}"
                rss = statistics.median(x.rss_mb for x in ss)
                print(f"  {name:<16} {med[name]:8.3f} {first} {rss:12.1f}")
            mine = med["skawld -p"]
            for other in ("Claude Code", "TS skawld SDK"):
                if other in med:
                    print(f"  skawld / {other}: {mine / med[other]:.2f}x wall")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=None, help="runs per case (default 7; 5 side by side)")
    parser.add_argument("--side-by-side", action="store_true", help="skawld vs Claude Code vs the TS SDK")
    parser.add_argument("--rounds", type=int, default=2, help="side by side: independent rounds")
    args = parser.parse_args()
    if args.side_by_side:
        side_by_side(args.runs or 5, args.rounds)
        return
    args.runs = args.runs or 7

    skawld = skawld_command()
    with tempfile.TemporaryDirectory() as tmp, WireServer() as srv:
        home, repo = Path(tmp, "home"), Path(tmp, "repo")
        home.mkdir()
        repo.mkdir()
        arrivals: list[float] = []

        def stamped(_req: Any) -> Any:
            arrivals.append(time.perf_counter())
            return turn(text("hi"))

        srv.anthropic.default = stamped
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SKAWLD_", "ANTHROPIC_"))}
        env.update({"HOME": str(home), "ANTHROPIC_API_KEY": "sk-bench", "NO_COLOR": "1"})
        # Measure what users get: cached bytecode. PYTHONDONTWRITEBYTECODE would make every run
        # recompile skawld's own modules; the cache goes to a temp dir, not into the source tree.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(tmp, "pycache"))
        headless = [*skawld, "-p", "hi", "--json", "--model", "bench-model", "--base-url", srv.url]
        cases: dict[str, Callable[[], float]] = {
            "python -c pass": lambda: timed([sys.executable, "-c", "pass"], cwd=repo, env=env),
            'python -c "import anthropic"': lambda: timed(
                [sys.executable, "-c", "import anthropic"], cwd=repo, env=env
            ),
            "skawld --help": lambda: timed([*skawld, "--help"], cwd=repo, env=env),
            "skawld -p hi --json (1 turn)": lambda: timed(headless, cwd=repo, env=env),
            "skawld -p: first request": lambda: first_request(headless, repo, env, arrivals),
            "skawld -p hi --json: CPU s": lambda: cpu_time(headless, cwd=repo, env=env),
            "python -c pass: CPU s": lambda: cpu_time([sys.executable, "-c", "pass"], cwd=repo, env=env),
        }
        for fn in cases.values():  # warm the page cache and .pyc files
            fn()
        samples: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, fn in cases.items():
                samples[name].append(fn())

    med = {name: statistics.median(values) for name, values in samples.items()}
    bare, anth = med["python -c pass"], med['python -c "import anthropic"']
    print(f"runs: {args.runs} (median wall time, seconds)")
    for name, value in med.items():
        spread = f"min {min(samples[name]):.3f} max {max(samples[name]):.3f}"
        print(f"  {name:<34} {value:7.3f}   ({spread})")
    help_t, run_t = med["skawld --help"], med["skawld -p hi --json (1 turn)"]
    print()
    print(f"skawld --help: {help_t:.3f} s = {help_t / bare:.2f}x bare python (+{help_t - bare:.3f} s); goal < 0.300 s")
    print(
        f"headless 1 turn: {run_t:.3f} s = {run_t / anth:.2f}x `import anthropic` "
        f"(+{run_t - anth:.3f} s); goal within +0.250 s"
    )
    first = med["skawld -p: first request"]
    print(
        f"headless first request leaves {first:.3f} s after process start ({first / bare:.2f}x bare python); goal <= 0.300 s"
    )
    cpu, bare_cpu = med["skawld -p hi --json: CPU s"], med["python -c pass: CPU s"]
    print(f"headless 1 turn CPU: {cpu:.3f} s (+{cpu - bare_cpu:.3f} s over bare python)")
    best_run, best_anth = min(samples["skawld -p hi --json (1 turn)"]), min(samples['python -c "import anthropic"'])
    print(f"  best of each: {best_run:.3f} s vs {best_anth:.3f} s (+{best_run - best_anth:.3f} s; less load noise)")


if __name__ == "__main__":
    main()
