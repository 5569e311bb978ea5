"""Run the installed `skawld` command as a subprocess against a local `WireServer`.

Every test gets its own HOME (so user config and the trust file never touch the
real home), a temporary git repository as the working directory, a fresh wire
server, and an environment without ``SKAWLD_*`` variables.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from skawld_core.events import EVENT_ADAPTER, Event  # noqa: E402
from tests.support.wire_server import WireServer  # noqa: E402

API_KEY = "sk-test-SECRET-cli-0123456789"
MODEL = "test-model"


def skawld_command() -> list[str]:
    """The installed console script (the one next to this interpreter, else on PATH)."""
    here = Path(sys.executable).parent / "skawld"
    if here.exists():
        return [str(here)]
    found = shutil.which("skawld")
    if found:
        return [found]
    pytest.fail("the skawld command is not installed; run `pip install -e .`")


def parse_events(stdout: str) -> list[Event]:
    """Every stdout line must be one spec event."""
    return [EVENT_ADAPTER.validate_json(line) for line in stdout.splitlines() if line.strip()]


@dataclass
class CliEnv:
    """A sandbox for one test: HOME, repo, server, environment."""

    home: Path
    repo: Path
    srv: WireServer
    env: dict[str, str] = field(default_factory=dict)

    def args(self, *extra: str, model: bool = True, base_url: bool = True) -> list[str]:
        out = list(extra)
        if base_url:
            out += ["--base-url", self.srv.url]
        if model:
            out += ["--model", MODEL]
        return out

    def run(
        self, *args: str, input: str | None = "", env: dict[str, str] | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        """Run `skawld args...` to completion (stdin is `input`; "" means an empty pipe)."""
        return subprocess.run(
            [*skawld_command(), *args],
            input=input,
            capture_output=True,
            text=True,
            cwd=self.repo,
            env={**self.env, **(env or {})},
            timeout=timeout,
        )

    def popen(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """Start `skawld args...` with pipes for stdin/stdout/stderr (line-buffered text)."""
        return subprocess.Popen(
            [*skawld_command(), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            cwd=self.repo,
            env={**self.env, **(env or {})},
        )

    def plain_session_on_a_terminal(self, prompt: str, *, args: tuple[str, ...] = ()) -> str:
        """Run `skawld --plain` on a pseudo-terminal: type `prompt`, wait for the model request,
        type `/exit`; return everything the terminal showed (the exit code must be 0)."""
        import pty

        master, slave = pty.openpty()
        proc = subprocess.Popen(
            [*skawld_command(), *self.args("--plain", *args)],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=self.repo,
            env={**self.env, "TERM": "xterm"},
        )
        os.close(slave)
        try:
            os.write(master, prompt.encode() + b"\r")
            self.srv.anthropic.wait_for_requests(1, timeout=30)
            os.write(master, b"/exit\r")
            assert proc.wait(timeout=30) == 0
            return _read_all(master).decode("utf-8", "replace")
        finally:
            proc.kill()
            proc.wait()
            os.close(master)

    def write_project_config(self, doc: Any) -> Path:
        path = self.repo / ".skawld" / "config.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
        return path

    def write_user_config(self, doc: Any) -> Path:
        path = self.home / ".skawld" / "config.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
        return path

    @property
    def db(self) -> Path:
        return self.repo / ".skawld" / "sessions.db"


def base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKAWLD_", "ANTHROPIC_", "OPENAI_"))}
    env.update({"HOME": str(home), "ANTHROPIC_API_KEY": API_KEY, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"})
    env.pop("USERPROFILE", None)
    return env


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)
    else:
        (path / ".git").mkdir()
    return path


@pytest.fixture
def cli(tmp_path: Path) -> Iterator[CliEnv]:
    home = tmp_path / "home"
    home.mkdir()
    repo = make_repo(tmp_path / "repo")
    with WireServer() as srv:
        yield CliEnv(home=home, repo=repo, srv=srv, env=base_env(home))


def _read_all(fd: int) -> bytes:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO once the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    return out
