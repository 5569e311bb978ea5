"""Benchmark start-up of the installed `skawld` command.

    python bench/startup.py [--runs 7]

Measures, in the same run and alternating so machine noise hits all of them:

- ``skawld --help`` (goal: under 0.3 s);
- a one-turn ``skawld -p hi --json`` against a local `WireServer` (goal: within
  0.25 s of the bare ``python -c "import anthropic"``, the provider SDK it must load);
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
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    skawld = skawld_command()
    with tempfile.TemporaryDirectory() as tmp, WireServer() as srv:
        home, repo = Path(tmp, "home"), Path(tmp, "repo")
        home.mkdir()
        repo.mkdir()
        srv.anthropic.default = turn(text("hi"))
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
    best_run, best_anth = min(samples["skawld -p hi --json (1 turn)"]), min(samples['python -c "import anthropic"'])
    print(f"  best of each: {best_run:.3f} s vs {best_anth:.3f} s (+{best_run - best_anth:.3f} s; less load noise)")


if __name__ == "__main__":
    main()
