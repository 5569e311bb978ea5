"""The peers `bench/startup.py --side-by-side` runs the same scripted session through.

One scripted 4-turn session (two parallel Reads, an Edit, a Bash, an answer) is served
by the local `WireServer` (Anthropic Messages) to:

- ``skawld -p`` (the console script next to this interpreter);
- Claude Code (``npm install @anthropic-ai/claude-code`` into ``bench/.cache/npm``);
- the TypeScript skawld SDK (``npm install @skawld/agent-sdk`` into ``bench/.cache/npm-ts``).

A peer that cannot be installed is skipped with the reason. Each run gets a fresh
repository and HOME; its wall time, the time until its first model request reached the
server, and its peak RSS (``wait4``) are recorded, and the run is checked (the Edit
happened, the answer came back).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache"
sys.path.insert(0, str(ROOT))

from tests.support.wire_server import RecordedRequest, Reply, WireServer, text, tool_call, turn  # noqa: E402

PROMPT = "Read a.txt and b.txt, change alpha to ALPHA in a.txt, run cat a.txt, then say done."
MODEL = "claude-sonnet-4-6"
ANSWER = "done"


def _tool_results(body: Any) -> int:
    count = 0
    for message in (body or {}).get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            count += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    return count


def scripted_reply(repo_of: Callable[[], Path]) -> Callable[[RecordedRequest], Reply]:
    """The session, keyed on how many tool results the request carries (so auxiliary
    requests a client makes — titles, summaries — get a plain answer and do not shift it)."""

    def reply(req: RecordedRequest) -> Reply:
        body = req.body if isinstance(req.body, dict) else {}
        if not body.get("tools"):
            return turn(text("ok"))
        repo = repo_of()
        done = _tool_results(body)
        if done == 0:
            return turn(
                text("Reading both."),
                tool_call("Read", {"file_path": str(repo / "a.txt")}, id="toolu_r1"),
                tool_call("Read", {"file_path": str(repo / "b.txt")}, id="toolu_r2"),
            )
        if done == 2:
            edit = {"file_path": str(repo / "a.txt"), "old_string": "alpha", "new_string": "ALPHA"}
            return turn(tool_call("Edit", edit, id="toolu_e1"))
        if done == 3:
            return turn(tool_call("Bash", {"command": "cat a.txt", "description": "show a.txt"}, id="toolu_b1"))
        return turn(text(ANSWER))

    return reply


@dataclass
class Sample:
    wall: float
    first_request: float | None
    rss_mb: float


@dataclass
class Peer:
    """One program under test: how to run it, or why it cannot run."""

    name: str
    argv: Callable[[Path, str], list[str]] | None
    env: Callable[[Path, str], dict[str, str]] = field(default=lambda home, url: {})
    skipped: str | None = None


def _base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKAWLD_", "ANTHROPIC_", "CLAUDE", "OPENAI_"))}
    env.update({"HOME": str(home), "NO_COLOR": "1", "ANTHROPIC_API_KEY": "sk-bench-0123456789"})
    return env


def skawld_peer() -> Peer:
    exe = Path(sys.executable).parent / "skawld"
    if not exe.exists():
        return Peer("skawld -p", None, skipped="skawld is not installed next to this python (pip install -e .)")

    def argv(repo: Path, url: str) -> list[str]:
        return [
            str(exe),
            "-p",
            PROMPT,
            "--json",
            "--model",
            MODEL,
            "--base-url",
            url,
            "--permission-mode",
            "acceptEdits",
            "--allowed-tools",
            "Bash",
        ]

    return Peer("skawld -p", argv)


def _npm_install(folder: Path, package: str) -> str | None:
    """Install ``package`` into ``folder`` once; returns why not, or None."""
    if (folder / "node_modules" / package / "package.json").exists():
        return None
    npm = shutil.which("npm")
    if npm is None:
        return "npm is not installed"
    folder.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(folder), package],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        return f"npm install {package} failed: {proc.stderr.strip().splitlines()[-1:] or proc.returncode}"
    return None


def claude_code_peer() -> Peer:
    folder = CACHE / "npm"
    why = _npm_install(folder, "@anthropic-ai/claude-code")
    exe = folder / "node_modules" / ".bin" / "claude"
    if why is None and not exe.exists():
        why = "the claude binary is missing after npm install"
    if why:
        return Peer("Claude Code", None, skipped=why)

    def argv(repo: Path, url: str) -> list[str]:
        # bypassPermissions refuses to run as root; acceptEdits + allowed tools is equivalent here.
        return [
            str(exe),
            "-p",
            PROMPT,
            "--output-format",
            "json",
            "--model",
            MODEL,
            "--permission-mode",
            "acceptEdits",
            "--allowedTools",
            "Read,Edit,Bash",
        ]

    def env(home: Path, url: str) -> dict[str, str]:
        return {
            "ANTHROPIC_BASE_URL": url,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
        }

    return Peer("Claude Code", argv, env)


TS_SCRIPT = """
import { pathToFileURL } from "node:url";
import { dirname, join } from "node:path";
const dist = dirname(process.env.SKAWLD_TS_SDK);
const load = (rel) => import(pathToFileURL(join(dist, rel)).href);
const { Agent } = await load("sdk.js");
const { AnthropicProvider } = await load("providers/index.js");
const { InMemorySessionStore } = await load("sessions/index.js");
const [prompt, url, model, cwd] = process.argv.slice(2);
const agent = new Agent({
  provider: new AnthropicProvider({ apiKey: process.env.ANTHROPIC_API_KEY, baseURL: url }),
  model, cwd, permissions: { mode: "yolo" }, sessionStore: new InMemorySessionStore(),
});
const session = await agent.session();
let final = "";
for await (const ev of session.run(prompt)) { if (ev.type === "result") { final = ev.final_text ?? ""; break; } }
process.stdout.write(final + "\\n");
await agent.close();
"""


def ts_sdk_peer() -> Peer:
    folder = CACHE / "npm-ts"
    why = _npm_install(folder, "@skawld/agent-sdk")
    pkg = folder / "node_modules" / "@skawld" / "agent-sdk"
    entry = _ts_entry(pkg) if why is None else None
    if why is None and entry is None:
        why = "@skawld/agent-sdk has no importable entry point"
    node = shutil.which("node")
    if why is None and node is None:
        why = "node is not installed"
    if why or entry is None or node is None:
        return Peer("TS skawld SDK", None, skipped=why)
    script = folder / "run_session.mjs"
    script.write_text(TS_SCRIPT)

    def argv(repo: Path, url: str) -> list[str]:
        return [node, str(script), PROMPT, url, MODEL, str(repo)]

    return Peer("TS skawld SDK", argv, lambda home, url: {"SKAWLD_TS_SDK": str(entry)})


def _ts_entry(pkg: Path) -> Path | None:
    try:
        meta = json.loads((pkg / "package.json").read_text())
    except (OSError, ValueError):
        return None
    exports = meta.get("exports")
    candidates: list[str] = []
    if isinstance(exports, str):
        candidates.append(exports)
    elif isinstance(exports, dict):
        main = exports.get(".", exports)
        if isinstance(main, str):
            candidates.append(main)
        elif isinstance(main, dict):
            candidates += [v for k in ("import", "default", "node", "require") if isinstance(v := main.get(k), str)]
    candidates += [v for k in ("module", "main") if isinstance(v := meta.get(k), str)]
    for rel in candidates:
        path = (pkg / rel).resolve()
        if path.is_file():
            return path
    return None


def run_once(peer: Peer, srv: WireServer, state: dict[str, Path]) -> Sample:
    """One session of ``peer`` in a fresh repository; raises if it did not do the work."""
    assert peer.argv is not None
    with tempfile.TemporaryDirectory() as tmp:
        home, repo = Path(tmp, "home"), Path(tmp, "repo")
        home.mkdir()
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        (repo / "a.txt").write_text("alpha\n")
        (repo / "b.txt").write_text("beta\n")
        state["repo"] = repo
        env = {**_base_env(home), **peer.env(home, srv.url)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        arrivals: list[float] = []
        srv.anthropic.requests.clear()
        reply = scripted_reply(lambda: state["repo"])

        def stamped(req: RecordedRequest) -> Reply:
            arrivals.append(time.perf_counter())
            return reply(req)

        srv.anthropic.default = stamped
        rss_file = Path(tmp, "rss")
        gnu_time = shutil.which("time") or "/usr/bin/time"
        prefix = [gnu_time, "-f", "%M", "-o", str(rss_file)] if os.path.exists(gnu_time) else []
        start = time.perf_counter()
        proc = subprocess.Popen(
            [*prefix, *peer.argv(repo, srv.url)],
            cwd=repo,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out, err = proc.communicate(timeout=180)
        wall = time.perf_counter() - start
        try:
            rss = int(rss_file.read_text().split()[-1]) / 1024.0  # GNU time: peak RSS in KiB
        except (OSError, ValueError, IndexError):
            rss = float("nan")
        if proc.returncode != 0 or (repo / "a.txt").read_text() != "ALPHA\n" or ANSWER not in out.decode():
            raise RuntimeError(
                f"{peer.name} did not complete the session (exit {proc.returncode}): "
                f"{out.decode()[-400:]} {err.decode()[-800:]}"
            )
        return Sample(wall, (arrivals[0] - start) if arrivals else None, rss)
