"""Read of a 1 GB file with no newline: skawld's Read vs `head -c 2000`, time and memory.

    python bench/read.py [--size-mb 1024] [--dense | --non-ascii]

Writes a file of `--size-mb` MB that is one line: 8 KiB of text then a sparse hole (read back as
NULs, no disk used) or, with --dense, real ASCII text, or with --non-ascii, real text of "é"
(two bytes a character, so it cannot be counted without decoding). In one run it times `head -c 2000 FILE`
(the baseline), `cat FILE` (reading the whole line, which Read no longer does: it counts
what it cuts only within the first 8 MiB of a line) and the Read tool's first page, each in a fresh subprocess, and reports the Read
child's peak memory (ru_maxrss) against an idle child that imported the same modules.
Goal: Read under 0.5 s for its first page and under 64 MB above the idle child.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import asyncio, json, resource, sys, time
sys.path.insert(0, {root!r})
from skawld_core.tools import ReadTool, ToolContext
from pathlib import Path

async def main() -> None:
    path = Path(sys.argv[1])
    ctx = ToolContext(cwd=path.parent, session_id="bench", run_id="r", tool_use_id="t")
    tool = ReadTool()
    start = time.perf_counter()
    result = await tool.execute(tool.validate({{"file_path": str(path)}}), ctx) if sys.argv[2] == "read" else None
    took = time.perf_counter() - start
    size = len(str(result.content)) if result is not None else 0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({{"seconds": took, "rss": rss, "chars": size}}))

asyncio.run(main())
"""


def make_file(path: Path, size: int, dense: bool, non_ascii: bool = False) -> None:
    with path.open("wb") as fh:
        fh.write(b"y" * 8192)
        if dense or non_ascii:
            block = "é".encode() * (1 << 19) if non_ascii else b"x" * (1 << 20)
            while fh.tell() + len(block) <= size:
                fh.write(block)
        fh.truncate(size)


def child(path: Path, mode: str) -> dict[str, float]:
    code = CHILD.format(root=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code, str(path), mode], check=True, capture_output=True, text=True)
    result: dict[str, float] = json.loads(out.stdout)
    return result


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--dense", action="store_true", help="real text instead of a sparse hole")
    parser.add_argument("--non-ascii", action="store_true", help="real non-ASCII text instead of a sparse hole")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="skawld-bench-read-") as tmp:
        path = Path(tmp) / "one-line.txt"
        make_file(path, args.size_mb * 1024 * 1024, args.dense, args.non_ascii)
        timed(["cat", str(path)])  # warm: the first read of a fresh file is much slower
        through = timed(["cat", str(path)])
        base = timed(["head", "-c", "2000", str(path)])
        idle = child(path, "idle")
        read = child(path, "read")
    extra_mb = (read["rss"] - idle["rss"]) / 1e6
    print(
        f"file: {args.size_mb} MB, one line ({'non-ASCII' if args.non_ascii else 'dense' if args.dense else 'sparse'})"
    )
    print(f"baseline head -c 2000: {base * 1000:8.1f} ms")
    print(f"cat FILE >/dev/null:   {through * 1000:8.1f} ms (reading through the line)")
    print(f"skawld Read page 1:    {read['seconds'] * 1000:8.1f} ms  ({read['seconds'] / base:.1f}x head)")
    print(f"Read peak memory:      {read['rss'] / 1e6:8.1f} MB ({extra_mb:.1f} MB above an idle child)")
    print(
        f"goal: under 500 ms and under 64 MB above idle: {'met' if read['seconds'] < 0.5 and extra_mb < 64 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
