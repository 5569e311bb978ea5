"""Added wall time of a sandboxed Bash call over an unsandboxed one.

Runs `true` through the real Bash tool (spawn, pipes, containment, result text)
N times each way, alternating so machine noise hits both, and prints the
medians, the difference and the ratio. A second pair adds Read deny rules, so
the launch also walks the project to hide denied paths. Goal: the sandbox adds
under 30 ms per call.

    python bench/sandbox.py [--n 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from skawld_core.permissions import PermissionEngine
from skawld_core.sandbox import Launch, ShellPolicy, probe_bwrap
from skawld_core.tools import BashTool, ToolContext

GOAL_MS = 30.0


async def one(tool: BashTool, ctx: ToolContext) -> float:
    start = time.perf_counter()
    result = await tool.execute(tool.validate({"command": "true"}), ctx)
    elapsed = (time.perf_counter() - start) * 1000
    if result.is_error or not str(result.content).endswith("exit: 0"):
        raise SystemExit(f"bench: unexpected result {result.content!r}")
    return elapsed


def project(root: Path, files: int) -> None:
    (root / ".env").write_text("SECRET=1\n")
    for i in range(files):
        d = root / f"pkg{i % 20}"
        d.mkdir(exist_ok=True)
        (d / f"m{i}.py").write_text("x = 1\n")


async def pair(label: str, root: Path, n: int, engine: PermissionEngine | None) -> float:
    tool = BashTool()
    plain = ShellPolicy(sandbox="off", permissions=engine)
    boxed = ShellPolicy(sandbox="required", permissions=engine)

    def ctx(policy: ShellPolicy) -> ToolContext:
        return ToolContext(cwd=root, session_id="bench", run_id="r", tool_use_id="t", extras={"shell_policy": policy})

    for policy in (plain, boxed):  # warm-up
        await one(tool, ctx(policy))
    a: list[float] = []
    b: list[float] = []
    for _ in range(n):
        a.append(await one(tool, ctx(plain)))
        b.append(await one(tool, ctx(boxed)))
    boxed.close()
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{label}")
    print(f"  unsandboxed  median {ma:7.2f} ms  (p90 {statistics.quantiles(a, n=10)[-1]:.2f})")
    print(f"  sandboxed    median {mb:7.2f} ms  (p90 {statistics.quantiles(b, n=10)[-1]:.2f})")
    print(f"  added        {mb - ma:7.2f} ms   ratio {mb / ma:.2f}x   goal < {GOAL_MS:.0f} ms added")
    return mb - ma


async def spawn(launch: Launch, bare: bool = False) -> float:
    """Start `launch` (or only its shell part, outside bwrap) and wait for it."""
    argv = launch.argv[launch.argv.index("--") + 1 :] if bare else launch.argv
    start = time.perf_counter()
    try:
        proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL, pass_fds=launch.fds)
    finally:
        launch.release()
    await proc.wait()
    return (time.perf_counter() - start) * 1000


async def floor(root: Path, n: int) -> None:
    """bwrap's own cost with the same arguments, outside the Bash tool."""
    policy = ShellPolicy(sandbox="required")

    def launch() -> Launch:
        made = policy.launch("true", root, "floor")
        assert not isinstance(made, str)
        return made

    a, b = [], []
    for _ in range(n):
        a.append(await spawn(launch(), bare=True))
        b.append(await spawn(launch()))
    policy.close()
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"Floor: the same argv spawned directly, N={n}")
    print(f"  $SHELL -c true        median {ma:7.2f} ms")
    print(f"  bwrap ... $SHELL -c   median {mb:7.2f} ms   bwrap itself adds {mb - ma:.2f} ms")


async def main(n: int) -> int:
    probe = probe_bwrap()
    if not probe.ok:
        print(f"bench: the sandbox cannot start here: {probe.reason}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(dir="/var/tmp" if Path("/var/tmp").is_dir() else None) as tmp:
        root = Path(tmp)
        project(root, 2000)
        await floor(root, n)
        added = await pair(f"Bash `true`, N={n}", root, n, None)
        rule = {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"}
        engine = PermissionEngine(rules=[rule], project_root=root)
        await pair(f"Bash `true` with a Read deny rule (**/.env) over 2000 files, N={n}", root, n, engine)
    return 0 if added < GOAL_MS else 2


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50)
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    sys.exit(asyncio.run(main(parser.parse_args().n)))
