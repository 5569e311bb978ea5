"""Bash permission decision time: the tree-sitter analyzer vs the old hand-written lexer.

Each of the 1,000 commands in `bench/bash_commands.jsonl` (typical agent commands:
git, test runners, package managers, find/grep pipelines, here-docs, loops…) is
decided against a realistic rule set (allow rules for read-only commands, deny
rules for destructive ones), --repeat times, alternating the two analyzers so
noise hits both. The analyzer's cache is cleared before every call, so each
decision parses from scratch. Prints median and p99 per command for both and the
ratio (goals for the analyzer: median < 0.5 ms, p99 < 5 ms).

    python bench/permissions.py [--repeat 5]

The sandbox half of issue #10's bench (the wall time added by running `true`
inside bubblewrap) lives with the sandbox code; see `sandbox_overhead` below.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import legacy_bash_lexer  # noqa: E402

from skawld_core.permissions import BashRule  # noqa: E402
from skawld_core.permissions.bash_rules import evaluate_bash  # noqa: E402
from skawld_core.permissions.shell_analysis import _analyze_cached  # noqa: E402

ALLOW = ["git status", "git diff", "git log", "ls", "cat", "head", "tail", "wc", "grep", "rg", "pytest", "npm test"]
DENY = ["rm -rf", "git push", "sudo", "curl", "chmod"]
RULES = [BashRule(pattern=p, decision="allow") for p in ALLOW] + [BashRule(pattern=p, decision="deny") for p in DENY]


def load_corpus() -> list[str]:
    lines = (HERE / "bash_commands.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _tree(command: str) -> object:
    _analyze_cached.cache_clear()
    return evaluate_bash(command, RULES)


def _legacy(command: str) -> object:
    return legacy_bash_lexer.evaluate_bash(command, RULES)


def time_each(fn: Callable[[str], object], commands: list[str], out: dict[int, list[float]]) -> None:
    for index, command in enumerate(commands):
        start = time.perf_counter()
        fn(command)
        out.setdefault(index, []).append(time.perf_counter() - start)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def sandbox_overhead() -> None:
    """Placeholder for the sandbox engineer: sandboxed `true` vs unsandboxed, goal < 30 ms."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    commands = load_corpus()
    _tree("true")  # build the parser once, outside the timings
    tree: dict[int, list[float]] = {}
    legacy: dict[int, list[float]] = {}
    for _ in range(args.repeat):
        time_each(_tree, commands, tree)
        time_each(_legacy, commands, legacy)
    # per command: its median over the repeats; then median and p99 over the corpus
    t = [statistics.median(v) * 1000 for v in tree.values()]
    legacy_ms = [statistics.median(v) * 1000 for v in legacy.values()]
    decisions: dict[str, int] = {}
    for command in commands:
        key = str(evaluate_bash(command, RULES))
        decisions[key] = decisions.get(key, 0) + 1
    print(f"{len(commands)} commands, {args.repeat} repeats; decisions: {decisions}")
    print(f"{'':10} {'median ms':>10} {'p99 ms':>10} {'max ms':>10}")
    for name, values in (("tree", t), ("legacy", legacy_ms)):
        print(f"{name:10} {statistics.median(values):10.4f} {percentile(values, 0.99):10.4f} {max(values):10.4f}")
    ratio_med = statistics.median(t) / statistics.median(legacy_ms)
    ratio_p99 = percentile(t, 0.99) / percentile(legacy_ms, 0.99)
    print(f"tree/legacy: median {ratio_med:.2f}x, p99 {ratio_p99:.2f}x")
    ok = statistics.median(t) < 0.5 and percentile(t, 0.99) < 5.0
    print(f"goal (tree median < 0.5 ms, p99 < 5 ms): {'met' if ok else 'NOT met'}")
    sandbox_overhead()


if __name__ == "__main__":
    main()
