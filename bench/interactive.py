"""Interactive start-up, side by side, in tmux: skawld's app vs Claude Code.

    python bench/interactive.py [--runs 3] [--rounds 2]

Each run starts the program in a fresh 120x40 tmux session (fresh HOME and git
repository) against the local wire server and polls the screen (``capture-pane``):

- **first frame**: start → the prompt box is on screen;
- **Enter → first word**: after a pause (a user typing), ``say hi`` is typed and Enter
  pressed; the time until the model's first word is on screen;
- skawld only, **``skawld "prompt"``**: start with the prompt on the command line until its
  request reaches the server (compare with the headless first request) and until its
  answer is on screen.

Claude Code is the npm package `bench/peers.py` installs (skipped with the reason when it
cannot be); its first-run dialogs are pre-answered in its ``~/.claude.json``. skawld runs
with bytecode caching on (in a temp ``PYTHONPYCACHEPREFIX``, warmed by the untimed first
run) even if the calling environment sets ``PYTHONDONTWRITEBYTECODE``, as `bench/startup.py`
does: users get cached bytecode, not a recompile of skawld's modules on every start. Medians per
round and the ratios skawld / Claude Code are printed. Screen polling is every 5 ms, so
figures carry up to 5 ms of polling error.
"""

from __future__ import annotations

import argparse
import json
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

from bench.peers import claude_code_peer  # noqa: E402
from tests.support.wire_server import WireServer, text, turn  # noqa: E402

WORD = "zebrafish"
KEY = "sk-ant-bench-0123456789abcdefghij"
MODEL = "claude-sonnet-4-6"
TYPING_PAUSE = 1.0


def _screen(name: str) -> str:
    return subprocess.run(["tmux", "capture-pane", "-p", "-t", name], capture_output=True, text=True).stdout


def _wait_for(name: str, marker: str, timeout: float = 60.0) -> float:
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if marker in _screen(name):
            return time.perf_counter()
        time.sleep(0.005)
    raise RuntimeError(f"{marker!r} never appeared in {name}:\n{_screen(name)}")


def _start(name: str, cwd: Path, env: dict[str, str], argv: list[str]) -> float:
    assignments = [f"{k}={v}" for k, v in env.items()]
    start = time.perf_counter()
    # The tmux server inherits this process's environment: drop what must not reach the peer.
    command = ["env", "-u", "PYTHONDONTWRITEBYTECODE", *assignments, *argv]
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", str(cwd), *command], check=True
    )
    return start


def _kill(name: str) -> None:
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


Runner = Callable[[Path, Path, str], tuple[list[str], dict[str, str], str]]


def skawld_runner(pycache: Path) -> Runner:
    """The console script next to this interpreter; its bytecode cache in `pycache`."""

    def run(home: Path, repo: Path, url: str) -> tuple[list[str], dict[str, str], str]:
        exe = str(Path(sys.executable).parent / "skawld")
        env = {
            "HOME": str(home),
            "ANTHROPIC_API_KEY": KEY,
            "TERM": "xterm-256color",
            "PYTHONPYCACHEPREFIX": str(pycache),
        }
        return [exe, "--base-url", url, "--model", MODEL], env, "Message skawld"

    return run


def claude_runner(exe: str) -> Runner:
    def run(home: Path, repo: Path, url: str) -> tuple[list[str], dict[str, str], str]:
        state = {
            "hasCompletedOnboarding": True,
            "theme": "dark",
            "customApiKeyResponses": {"approved": [KEY[-20:]], "rejected": []},
            "projects": {str(repo): {"hasTrustDialogAccepted": True, "allowedTools": []}},
        }
        (home / ".claude.json").write_text(json.dumps(state))
        env = {
            "HOME": str(home),
            "ANTHROPIC_API_KEY": KEY,
            "ANTHROPIC_BASE_URL": url,
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "TERM": "xterm-256color",
        }
        return [exe, "--model", MODEL], env, "? for shortcuts"

    return run


def one_run(runner: Runner, url: str, n: int) -> tuple[float, float]:
    """(start → first frame, Enter → first word) for one fresh start."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        home, repo = Path(tmp, "home"), Path(tmp, "repo")
        home.mkdir()
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        argv, env, marker = runner(home, repo, url)
        name = f"bench{n}"
        try:
            start = _start(name, repo, env, argv)
            frame = _wait_for(name, marker) - start
            time.sleep(TYPING_PAUSE)
            subprocess.run(["tmux", "send-keys", "-t", name, "-l", "say hi"], check=True)
            time.sleep(0.2)
            enter = time.perf_counter()
            subprocess.run(["tmux", "send-keys", "-t", name, "Enter"], check=True)
            word = _wait_for(name, WORD) - enter
        finally:
            _kill(name)
        return frame, word


def initial_prompt_run(runner: Runner, url: str, n: int, arrivals: list[float]) -> tuple[float, float]:
    """``skawld "say hi"``: (start → its request reached the server, start → the answer's
    first word on screen)."""
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        home, repo = Path(tmp, "home"), Path(tmp, "repo")
        home.mkdir()
        repo.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        argv, env, _ = runner(home, repo, url)
        name = f"benchp{n}"
        try:
            arrivals.clear()
            start = _start(name, repo, env, [*argv, "say hi"])
            word = _wait_for(name, WORD) - start
            return arrivals[0] - start, word
        finally:
            _kill(name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is not installed: apt-get install tmux")
    pycache = Path(tempfile.mkdtemp(prefix="skawld-pycache-"))
    peers: dict[str, Runner] = {"skawld": skawld_runner(pycache)}
    claude = claude_code_peer()
    if claude.skipped or claude.argv is None:
        print(f"skipped Claude Code: {claude.skipped}")
    else:
        exe = str(ROOT / "bench" / ".cache" / "npm" / "node_modules" / ".bin" / "claude")
        peers["Claude Code"] = claude_runner(exe)
    try:
        measure(peers, args.runs, args.rounds)
    finally:
        shutil.rmtree(pycache, ignore_errors=True)


def measure(peers: dict[str, Runner], runs: int, rounds: int) -> None:
    """The warm-up runs, then `rounds` rounds of `runs` interleaved runs per peer."""
    with WireServer() as srv:
        arrivals: list[float] = []

        def stamped(_req: object) -> object:
            arrivals.append(time.perf_counter())
            return turn(text(f"{WORD} says hi"))

        srv.anthropic.default = stamped
        counter = 0
        for runner in peers.values():  # warm-up
            one_run(runner, srv.url, counter)
            counter += 1
        for rnd in range(1, rounds + 1):
            frames: dict[str, list[float]] = {n: [] for n in peers}
            words: dict[str, list[float]] = {n: [] for n in peers}
            prompt_runs: list[tuple[float, float]] = []
            for _ in range(runs):
                for name, runner in peers.items():
                    frame, word = one_run(runner, srv.url, counter)
                    counter += 1
                    frames[name].append(frame)
                    words[name].append(word)
                prompt_runs.append(initial_prompt_run(peers["skawld"], srv.url, counter, arrivals))
                counter += 1
            print(f"\nround {rnd}: {runs} interleaved runs each, medians (seconds)")
            print(f"  {'':<12} {'first frame':>12} {'Enter→word':>11}")
            med_f = {n: statistics.median(v) for n, v in frames.items()}
            med_w = {n: statistics.median(v) for n, v in words.items()}
            for name in peers:
                print(f"  {name:<12} {med_f[name]:12.3f} {med_w[name]:11.3f}")
            request = statistics.median(r for r, _ in prompt_runs)
            word = statistics.median(w for _, w in prompt_runs)
            print(f'  skawld "say hi": start → request at the server {request:.3f}, → first word on screen {word:.3f}')
            if "Claude Code" in peers:
                print(
                    f"  skawld / Claude Code: first frame {med_f['skawld'] / med_f['Claude Code']:.2f}x, "
                    f"Enter→word {med_w['skawld'] / med_w['Claude Code']:.2f}x"
                )


if __name__ == "__main__":
    main()
