"""A real OpenAI-compatible server (`mockllm` from PyPI, no model weights) through `skawld -p`."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

ANSWER = "Paris is the capital of France."


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def mockllm(tmp_path: Path) -> Iterator[str]:
    """``mockllm``'s FastAPI app under uvicorn on 127.0.0.1; yields its ``/v1`` base URL."""
    try:
        import mockllm  # noqa: F401
    except ImportError:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip("mockllm is not installed (pip install -e '.[dev]')")
    responses = tmp_path / "responses.yml"
    responses.write_text(
        "responses:\n"
        f'  "what is the capital of france?": "{ANSWER}"\n'
        "defaults:\n"
        f'  unknown_response: "{ANSWER}"\n'
        "settings:\n"
        "  lag_enabled: false\n"
    )
    port = _free_port()
    env = {**os.environ, "MOCKLLM_RESPONSES_FILE": str(responses)}
    cmd = [sys.executable, "-m", "uvicorn", "mockllm.server:app", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # uvicorn logs readiness on stderr
            if "Uvicorn running on" in line:
                break
        else:
            pytest.fail(f"mockllm did not start (exit {proc.wait()})")
        # Keep reading its log so a full pipe can never block the server.
        threading.Thread(target=proc.stderr.read, daemon=True).start()
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_plain_question_through_the_cli(mockllm: str, tmp_path: Path) -> None:
    skawld = Path(sys.executable).with_name("skawld")
    home, repo = tmp_path / "home", tmp_path / "repo"
    home.mkdir()
    repo.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKAWLD_", "OPENAI_", "ANTHROPIC_"))}
    env["HOME"] = str(home)
    cmd = [str(skawld), "-p", "what is the capital of france?", "--provider", "openai-chat"]
    cmd += ["--base-url", mockllm, "--model", "gpt-4o"]
    proc = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ANSWER
