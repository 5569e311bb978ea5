"""The real `skawld` app in tmux against the local wire server: one Esc stops a long
streaming answer at once, the next prompt works, and the session resumes valid.

The app runs on a real terminal (a tmux pane on a private socket, escape-time 0);
keys go in with `send-keys`, the screen comes back with `capture-pane`. Skips
without tmux outside CI (`.ci/run` installs it).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.harness import MODEL, base_env, make_repo, skawld_command
from tests.support.wire_server import Turn, WireServer, text, turn

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(shutil.which("tmux") is None and os.environ.get("CI") != "true", reason="tmux is not installed"),
]

WORDS = 600
STOP_WITHIN = 0.5  # seconds from the Esc key to the end of the provider stream (the brief's goal)


def _exports(env: dict[str, str]) -> str:
    """Shell lines that set `env`, and unset the size variables the tmux server inherited
    (pytest's COLUMNS=80 LINES=24 would win over the pane's real size)."""
    return "unset COLUMNS LINES\n" + "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())


class TmuxApp:
    """One program in a detached tmux pane of a private server."""

    def __init__(self, root: Path, cwd: Path, env: dict[str, str]) -> None:
        self.root, self.cwd, self.env = root, cwd, env
        self.socket = root / "tmux.sock"
        conf = root / "tmux.conf"
        conf.write_text("set -sg escape-time 0\nset -g remain-on-exit on\nset -g status off\n")
        self.conf = conf
        self.runs = 0

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-S", str(self.socket), "-f", str(self.conf), *args],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux {args[0]} failed: {done.stderr.strip()}")
        return done.stdout

    def start(self, *args: str, rows: int = 32) -> None:
        """Run `skawld args...` in a new window, 100 columns wide and `rows` high."""
        self.runs += 1
        script = self.root / f"run{self.runs}.sh"
        exports = _exports(self.env)
        command = shlex.join([*skawld_command(), *args])
        script.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(self.cwd))}\nexec {command}\n")
        script.chmod(0o755)
        name = f"app{self.runs}"
        if self.runs == 1:
            self.tmux("new-session", "-d", "-s", name, "-x", "100", "-y", str(rows), str(script))
        else:
            self.tmux("new-window", "-t", "app1", "-n", name, str(script))
        self.target = f"app1:{name}" if self.runs > 1 else name

    def start_in_shell(self, *args: str) -> None:
        """An interactive bash (job control on) in a new window, running `skawld args...`."""
        self.runs += 1
        script = self.root / f"shell{self.runs}.sh"
        exports = _exports(self.env)
        script.write_text(f"#!/bin/sh\n{exports}cd {shlex.quote(str(self.cwd))}\nexec bash --norc --noprofile -i\n")
        script.chmod(0o755)
        name = f"app{self.runs}"
        self.tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "32", str(script))
        self.target = name
        self.type(shlex.join([*skawld_command(), *args]))

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.target)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.target, *keys)

    def type(self, line: str) -> None:
        self.tmux("send-keys", "-t", self.target, "-l", line)
        self.keys("Enter")

    def dead(self) -> bool:
        return self.tmux("display-message", "-p", "-t", self.target, "#{pane_dead}").strip() == "1"

    def wait_for(self, predicate: Callable[[str], object], what: str, timeout: float = 30.0) -> str:
        """Poll the screen until `predicate(screen)` holds."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.02)
        raise AssertionError(f"not on screen after {timeout}s: {what}\n---\n{screen}")

    def close(self) -> None:
        subprocess.run(["tmux", "-S", str(self.socket), "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def srv() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


@pytest.fixture
def term(tmp_path: Path) -> Iterator[TmuxApp]:
    home = tmp_path / "home"
    home.mkdir()
    repo = make_repo(tmp_path / "repo")
    env = {k: v for k, v in base_env(home).items() if k not in ("TERM", "TMUX", "TMUX_PANE", "COLUMNS", "LINES")}
    app = TmuxApp(tmp_path, repo, env)
    yield app
    app.close()


def last_word(screen: str) -> int:
    found = re.findall(r"w(\d{4})", screen)
    return max(map(int, found)) if found else 0


def roles(body: dict[str, object]) -> list[str]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [str(m["role"]) for m in messages]


def test_one_escape_stops_a_long_answer_and_the_session_resumes(srv: WireServer, term: TmuxApp) -> None:
    long: Turn = turn(text([f"w{i:04d} " for i in range(1, WORDS + 1)]), frame_delay=0.02)
    srv.anthropic.enqueue(long, turn(text("second answer here")), turn(text("third answer here")))
    term.start("--base-url", srv.url, "--model", MODEL)
    term.wait_for(lambda s: "Message skawld" in s and "session " in s, "the prompt and a session")
    term.type("tell me a long story")
    term.wait_for(lambda s: last_word(s) >= 20, "twenty streamed words")

    pressed = time.monotonic()
    term.keys("Escape")
    screen = term.wait_for(lambda s: "aborted" in s, "the aborted footer", timeout=10)
    deadline = time.monotonic() + 10
    while long.ended_at is None:  # the server sees the closed connection at its next write
        assert time.monotonic() < deadline, "the server still streams"
        time.sleep(0.01)
    assert long.ended_at - pressed < STOP_WITHIN, f"the stream ran {long.ended_at - pressed:.2f}s past Esc"
    assert long.frames_sent < WORDS, "the whole answer was sent"
    stopped_at = last_word(screen)
    assert 20 <= stopped_at < WORDS

    term.type("next")  # the prompt is ready at once
    screen = term.wait_for(lambda s: "second answer here" in s, "the second answer")
    assert "running" not in term.wait_for(lambda s: "running" not in s, "the run's end")
    assert last_word(term.screen()) == stopped_at or "w" not in screen  # nothing more of the first answer
    second = srv.anthropic.requests[1].body
    assert roles(second)[-1] == "user" and "next" in str(second["messages"][-1])
    match = re.search(r"session ([0-9a-f]{8})", term.screen())
    assert match, term.screen()
    session = match.group(1)

    term.keys("C-c")
    term.keys("C-c")
    deadline = time.monotonic() + 15
    while not term.dead():
        assert time.monotonic() < deadline, "the app did not quit on Ctrl+C Ctrl+C"
        time.sleep(0.05)

    term.start("--base-url", srv.url, "--model", MODEL, "--resume", session)
    screen = term.wait_for(lambda s: "restored" in s, "the restored session")
    assert "second answer here" in screen and "Error" not in screen
    term.type("third")
    term.wait_for(lambda s: "third answer here" in s, "the third answer")
    third = srv.anthropic.requests[2].body
    # The aborted turn keeps its prompt and no half answer (the core's abort path); the API
    # joins adjacent user turns. Every message came back from the store in order.
    assert roles(third) == ["user", "user", "assistant", "user"]
    contents = [str(m) for m in third["messages"]]
    assert "tell me a long story" in contents[0] and "w0001" not in contents[0]
    assert "next" in contents[1] and "second answer here" in contents[2] and "third" in contents[3]


def test_ctrl_z_suspends_to_the_shell_and_fg_resumes(srv: WireServer, term: TmuxApp) -> None:
    srv.anthropic.enqueue(turn(text("back again")))
    term.start_in_shell("--base-url", srv.url, "--model", MODEL)
    term.wait_for(lambda s: "Message skawld" in s, "the prompt")
    term.keys("C-z")
    term.wait_for(lambda s: "Stopped" in s, "the shell's job notice")
    term.type("jobs -l")
    term.wait_for(lambda s: s.count("Stopped") >= 2, "the job listed as stopped")
    term.type("fg")
    term.wait_for(lambda s: "Message skawld" in s, "the app redrawn after fg")
    term.type("still here?")
    term.wait_for(lambda s: "back again" in s, "the answer after resuming")
    assert len(srv.anthropic.requests) == 1
