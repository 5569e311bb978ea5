"""Added wall time of a sandboxed Bash call over an unsandboxed one, and the
cost of hiding Read-denied files at repository scale.

Part 1 runs `true` through the real Bash tool (spawn, pipes, containment,
result text) N times each way, alternating so machine noise hits both, and
prints the medians, the difference and the ratio. A second pair adds Read deny
rules. Goal: the sandbox adds under 30 ms per call.

Part 2, on generated repositories of --sizes files (`.env` files in every 25th
package folder, late in any walk, and inside node_modules), with a `**/.env`
Read deny rule:
  first   the first computation of the hidden set (a walk of every entry),
          against `rg --files --hidden --no-ignore` on the same tree (goal <= 1.5x)
  per call  what computing the set adds to each later call (goal < 10 ms at 100k)
  readable  denied files whose content a sandboxed `cat` prints (goal 0)

Part 3, the session sandbox and the domain proxy:
  join    a sandboxed `true` joining the session's network namespace (nsenter)
          against one with a namespace of its own (today's per-call sandbox)
  proxy   a fresh-connection HTTP GET to a server on 127.0.0.1 from inside the
          sandbox through the proxy, against the same client on the host going
          direct (goal: the proxy adds < 5 ms per request)

Part 4, many hidden paths: a sandboxed `true` with 1,000 denied files, bwrap
mounting them all against bwrap mounting the first few and `sandbox/mounter.py`
the rest, alternated; then --many denied files with the mounter. And the git check
around each call (`sandbox/gitguard.py`: a snapshot at launch, a look after) in
the 2,000-file project.

    python bench/sandbox.py [--n 50] [--sizes 1000,10000,100000,300000] [--many 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from skawld_core.file_index.registry import close_trees, shared_tree
from skawld_core.permissions import PermissionEngine
from skawld_core.permissions.sandbox_spec import read_denied_paths
from skawld_core.sandbox import Launch, ShellPolicy, probe_bwrap
from skawld_core.sandbox import hidden as hidden_module
from skawld_core.sandbox import policy as policy_module
from skawld_core.sandbox.gitguard import GitGuard
from skawld_core.tools import BashTool, ToolContext
from tests.support.big_tree import generate_tree

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
    last = len(launch.argv) - 1 - launch.argv[::-1].index("--")  # after nsenter's and bwrap's
    argv = launch.argv[last + 1 :] if bare else launch.argv
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


async def join_vs_own(root: Path, n: int) -> None:
    """A call joining the session's namespace against one with a namespace of its own."""
    tool = BashTool()
    joined, own = ShellPolicy(sandbox="required"), ShellPolicy(sandbox="required")
    own.networks.unavailable = "bench: a namespace per call"

    def ctx(policy: ShellPolicy) -> ToolContext:
        return ToolContext(cwd=root, session_id="bench", run_id="r", tool_use_id="t", extras={"shell_policy": policy})

    for policy in (joined, own):
        await one(tool, ctx(policy))
    a: list[float] = []
    b: list[float] = []
    for _ in range(n):
        a.append(await one(tool, ctx(own)))
        b.append(await one(tool, ctx(joined)))
    joined.close()
    own.close()
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"Sandboxed `true`: own network namespace vs joining the session's, N={n}")
    print(f"  own namespace (per call)  median {ma:7.2f} ms")
    print(f"  session namespace         median {mb:7.2f} ms   difference {mb - ma:+.2f} ms   ratio {mb / ma:.2f}x")


# N sequential GETs, each on a new connection; prints the median in ms.
_CLIENT = """
import statistics, sys, time, urllib.request
url, n = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(n):
    t = time.perf_counter()
    urllib.request.urlopen(url).read()
    times.append((time.perf_counter() - t) * 1000)
print(f"{statistics.median(times):.3f}")
"""


async def proxy_cost(root: Path, n: int) -> float:
    """Median ms per request through the proxy (inside the sandbox) minus direct (host)."""
    import http.server
    import threading

    class Hello(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    (root / "client.py").write_text(_CLIENT)
    policy = ShellPolicy(sandbox={"mode": "required", "allowed_domains": ["bench.test"]})
    policy.proxy_resolve["bench.test"] = "127.0.0.1"
    tool = BashTool()
    ctx = ToolContext(cwd=root, session_id="bench", run_id="r", tool_use_id="t", extras={"shell_policy": policy})
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    direct = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, str(root / "client.py"), f"http://127.0.0.1:{port}/", str(n)],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    inside = await tool.execute(tool.validate({"command": f"python3 client.py http://bench.test:{port}/ {n}"}), ctx)
    policy.close()
    server.shutdown()
    server.server_close()
    d, p = float(direct.stdout), float(str(inside.content).split()[0])
    print(f"HTTP GET on a new connection, N={n}")
    print(f"  direct on the host            median {d:7.2f} ms")
    print(
        f"  in the sandbox via the proxy  median {p:7.2f} ms   added {p - d:.2f} ms   ratio {p / d:.2f}x   goal < 5 ms"
    )
    return p - d


def deny_env(root: Path) -> PermissionEngine:
    rule = {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"}
    return PermissionEngine(rules=[rule], project_root=root)


def cold() -> None:
    """Forget every tree and view, as a new process would."""
    close_trees()
    for view, _ in hidden_module._views.values():
        view.close()
    hidden_module._views.clear()


def rg_all(root: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        ["rg", "--files", "--hidden", "--no-ignore", "--no-config", str(root)], capture_output=True, check=True
    )
    return (time.perf_counter() - start) * 1000


def first_hidden(engine: PermissionEngine) -> float:
    cold()
    start = time.perf_counter()
    read_denied_paths(engine)
    return (time.perf_counter() - start) * 1000


async def scale(size: int, n: int) -> tuple[float, float, int]:
    """(first / rg ratio, added ms per later call, readable denied files) at `size` files."""
    with tempfile.TemporaryDirectory(dir="/var/tmp" if Path("/var/tmp").is_dir() else None) as tmp:
        root = Path(tmp) / "repo"
        dirs = generate_tree(root, size)
        secrets = [d / ".env" for d in dirs[::25]] + [dirs[-1] / ".env"]
        (root / "node_modules" / "dep").mkdir(parents=True)
        secrets.append(root / "node_modules" / "dep" / ".env")
        for i, path in enumerate(secrets):
            path.write_text(f"SECRET_{i}\n")
        engine = deny_env(root)
        policy = ShellPolicy(sandbox="required", permissions=engine)
        rg_all(root)  # warm the page cache for both sides
        firsts, rgs = [], []
        for _ in range(3):
            rgs.append(rg_all(root))
            firsts.append(first_hidden(engine))
        found = read_denied_paths(engine)
        assert len(found) == len(secrets), (len(found), len(secrets))
        shared_tree(str(root)).wait_watching(60)
        later = []
        for _ in range(n):
            start = time.perf_counter()
            read_denied_paths(engine)
            later.append((time.perf_counter() - start) * 1000)
        ctx = ToolContext(cwd=root, session_id="b", run_id="r", tool_use_id="t", extras={"shell_policy": policy})
        tool = BashTool()
        out = await tool.execute(tool.validate({"command": "cat $(find . -name .env) | grep -c SECRET_"}), ctx)
        readable = int(str(out.content).split()[0])
        policy.close()
        cold()
    first, base, per_call = statistics.median(firsts), statistics.median(rgs), statistics.median(later)
    print(
        f"{size:>8} files  first {first:8.1f} ms  rg --files --hidden --no-ignore {base:8.1f} ms  "
        f"ratio {first / base:5.2f}x (goal <= 1.5x)  per later call {per_call:6.2f} ms (p90 "
        f"{statistics.quantiles(later, n=10)[-1]:.2f}; goal < 10)  readable {readable} of {len(secrets)} (goal 0)"
    )
    return first / base, per_call, readable


def denied_files(root: Path, count: int) -> PermissionEngine:
    for i in range(count):
        folder = root / f"d{i // 100}" / f"e{i % 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ".env").write_text(f"SECRET_{i}\n")
    return deny_env(root)


async def many_hidden(n: int, many: int) -> None:
    """Part 4: bwrap alone against bwrap + the mounter on 1,000 hidden files, then --many."""
    tool = BashTool()
    with tempfile.TemporaryDirectory(dir="/var/tmp" if Path("/var/tmp").is_dir() else None) as tmp:
        roots = {count: Path(tmp) / str(count) for count in (1000, many)}
        policies = {
            count: ShellPolicy(sandbox="required", permissions=denied_files(root, count))
            for count, root in roots.items()
        }

        async def call(count: int, bwrap_alone: bool) -> float:
            ctx = ToolContext(
                cwd=roots[count], session_id="b", run_id="r", tool_use_id="t", extras={"shell_policy": policies[count]}
            )
            policy_module.BWRAP_HIDDEN_MAX = 10**9 if bwrap_alone else default
            try:
                return await one(tool, ctx)
            finally:
                policy_module.BWRAP_HIDDEN_MAX = default

        default = policy_module.BWRAP_HIDDEN_MAX
        rounds = max(3, min(n, 7))  # bwrap alone takes seconds a call
        await call(1000, True)
        await call(1000, False)
        alone, mounter = [], []
        for _ in range(rounds):
            alone.append(await call(1000, True))
            mounter.append(await call(1000, False))
        await call(many, False)
        big = [await call(many, False) for _ in range(rounds)]
        for policy in policies.values():
            policy.close()
    ma, mb = statistics.median(alone), statistics.median(mounter)
    print(f"Hidden paths: bwrap alone vs bwrap ({default}) + mounter, N={rounds}")
    print(f"  1,000 hidden, bwrap alone     median {ma:9.2f} ms")
    print(f"  1,000 hidden, with mounter    median {mb:9.2f} ms   ratio {mb / ma:.3f}x")
    print(f"  {many:,} hidden, with mounter   median {statistics.median(big):9.2f} ms")


def git_check_cost(root: Path, n: int) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    guard = GitGuard([root], [root])
    before = guard.snapshot()
    times = []
    for _ in range(n):
        start = time.perf_counter()
        guard.check(before)
        before = guard.snapshot()
        times.append((time.perf_counter() - start) * 1000)
    guard.close()
    print(
        f"Git check around a call (snapshot + look after), 2,000-file project: median {statistics.median(times):.3f} ms"
    )


async def main(n: int, sizes: list[int], many: int = 0) -> int:
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
        await join_vs_own(root, n)
        proxy_added = await proxy_cost(root, max(n, 50))
        git_check_cost(root, n)
    if many:
        await many_hidden(n, many)
    ok = added < GOAL_MS and proxy_added < 5.0
    if sizes:
        print("Hidden set of a `**/.env` Read deny rule, by repository size (first = cold, per call = warm)")
    for size in sizes:
        ratio, per_call, readable = await scale(size, n)
        ok = ok and readable == 0 and ratio <= 1.5 and (size > 100_000 or per_call < 10)
    return 0 if ok else 2


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--sizes", default="1000,10000,100000,300000", help="comma-separated; empty to skip")
    parser.add_argument("--many", type=int, default=10000, help="denied files for part 4; 0 to skip")
    opts = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    sys.exit(asyncio.run(main(opts.n, [int(x) for x in opts.sizes.split(",") if x], opts.many)))
