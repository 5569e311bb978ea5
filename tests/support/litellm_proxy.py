"""LiteLLM's real proxy (``litellm --config``) in front of the test `WireServer`'s Anthropic API.

The proxy lives in its own virtualenv (its pinned dependencies would fight the
project's): `.ci/run` installs ``litellm[proxy]==LITELLM_VERSION`` into
``/opt/litellmvenv``; ``$SKAWLD_LITELLM`` names another ``litellm`` executable.
`LiteLLMProxy` writes a config routing model ``claude-test`` to the wire server,
starts the proxy on a free port (cost-map fetch off, a master key set), waits until
``/health/liveliness`` answers and stops it on exit. `anthropic_backend` is a reply
function for ``srv.anthropic.default`` acting as the model behind it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from .wire_script import RecordedRequest, Reply, http_error, text, tool_call, turn

LITELLM_VERSION = "1.106.12"
"""Pinned: recent, installable from PyPI alone (1.107+ need the separate ``litellm-proxy``
package), and not 1.107.0 (a compromised release)."""
MODEL = "claude-test"
MASTER_KEY = "sk-litellm-test"
START_TIMEOUT = 180.0
TOO_LONG_CHARS = 8000


def litellm_command() -> str | None:
    """The ``litellm`` executable: ``$SKAWLD_LITELLM``, ``/opt/litellmvenv``, or on PATH."""
    for candidate in (os.environ.get("SKAWLD_LITELLM"), "/opt/litellmvenv/bin/litellm", shutil.which("litellm")):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def litellm_version(command: str) -> str:
    """The installed version, asked from the proxy's own interpreter."""
    python = str(Path(command).with_name("python"))
    out = subprocess.run(
        [python, "-c", "import importlib.metadata as m; print(m.version('litellm'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def anthropic_backend(req: RecordedRequest) -> Reply:
    """The model behind the proxy: a tool call when tools are offered, Anthropic's 400
    for a prompt over ``TOO_LONG_CHARS``, a capped answer when ``max_tokens`` < 20."""
    body: dict[str, Any] = req.body if isinstance(req.body, dict) else {}
    if len(req.raw) > TOO_LONG_CHARS:
        return http_error(400, "prompt is too long: 3754 tokens > 2048 maximum", err_type="invalid_request_error")
    messages = body.get("messages") or []
    if body.get("tools") and messages and messages[-1].get("role") == "user":
        last = messages[-1].get("content")
        if not (isinstance(last, list) and any(p.get("type") == "tool_result" for p in last)):
            return turn(tool_call("get_weather", {"city": "Paris"}, id="toolu_litellm_1"))
    if (body.get("max_tokens") or 4096) < 20:
        return turn(text(["Once upon ", "a time"]), stop="max_tokens")
    return turn(text(["One, ", "two, ", "three, ", "four, ", "five."]))


class LiteLLMProxy:
    """A running ``litellm`` proxy; ``url`` is its root (``url + "/v1"`` for clients)."""

    def __init__(self, command: str, backend_url: str) -> None:
        self.command = command
        self.backend_url = backend_url
        self.port = _free_port()
        self._dir = tempfile.TemporaryDirectory(prefix="skawld-litellm-")
        self._proc: subprocess.Popen[bytes] | None = None
        self.log_path = Path(self._dir.name) / "litellm.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _config(self) -> Path:
        path = Path(self._dir.name) / "config.yaml"
        path.write_text(
            "model_list:\n"
            f"  - model_name: {MODEL}\n"
            "    litellm_params:\n"
            "      model: anthropic/claude-sonnet-4-5\n"
            f"      api_base: {self.backend_url}\n"
            "      api_key: sk-ant-test\n"
            "general_settings:\n"
            f"  master_key: {MASTER_KEY}\n"
            "litellm_settings:\n"
            "  telemetry: false\n"
        )
        return path

    def start(self) -> LiteLLMProxy:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # no fetch from GitHub at start
        cmd = [self.command, "--config", str(self._config()), "--host", "127.0.0.1", "--port", str(self.port)]
        with self.log_path.open("wb") as log:
            self._proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"litellm exited with {self._proc.returncode}: {self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + "/health/liveliness", timeout=1):
                    return self
            except OSError:
                time.sleep(0.25)  # polling a port: nothing to await
        self.stop()
        raise TimeoutError(f"litellm not ready after {START_TIMEOUT}s: {self.log_tail()}")

    def log_tail(self) -> str:
        return self.log_path.read_text(errors="replace")[-2000:] if self.log_path.exists() else ""

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._dir.cleanup()

    def __enter__(self) -> LiteLLMProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
