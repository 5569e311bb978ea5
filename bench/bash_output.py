"""Bash printing a lot: the Bash tool vs the same command piped to `tail -c 30000`.

    python bench/bash_output.py [--mb 500] [--runs 3]

The command prints `--mb` MB of ASCII lines (`yes '…' | head -c N`, a fast producer). The baseline
is `sh -c "<command> | tail -c 30000 >/dev/null"` (keeping a bounded part of the output, as the
tool does), timed in the same run, alternating. Prints the medians and the ratio, and the tool
process's peak memory (ru_maxrss). Goal: at most 2x.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skawld_core.tools import ToolContext
from skawld_core.tools.bash import BashTool


async def tool_run(command: str, cwd: Path) -> float:
    tool = BashTool()
    ctx = ToolContext(cwd=cwd, session_id="bench", run_id="r", tool_use_id="t")
    start = time.perf_counter()
    result = await tool.execute(tool.validate({"command": command, "timeout_ms": 600_000}), ctx)
    took = time.perf_counter() - start
    assert "exit: 0" in str(result.content), str(result.content)[-300:]
    return took


def baseline(command: str, cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(["sh", "-c", f"{command} | tail -c 30000 >/dev/null"], cwd=cwd, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    command = f"yes 'a line of build output, repeated' | head -c {args.mb * 1_000_000}"
    base: list[float] = []
    ours: list[float] = []
    with tempfile.TemporaryDirectory(prefix="skawld-bench-bash-") as tmp:
        cwd = Path(tmp)
        for run in range(args.runs):
            if run % 2:
                base.append(baseline(command, cwd))
                ours.append(asyncio.run(tool_run(command, cwd)))
            else:
                ours.append(asyncio.run(tool_run(command, cwd)))
                base.append(baseline(command, cwd))
    b, o = statistics.median(base), statistics.median(ours)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.mb} MB of output, {args.runs} runs each (medians)")
    print(f"baseline ... | tail -c 30000: {b * 1e3:8.1f} ms")
    print(f"Bash tool:                    {o * 1e3:8.1f} ms")
    print(f"ratio: {o / b:.2f}x (goal <= 2x); bench process peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
