"""Model discovery against the wire server's compatible-server profiles, and `skawld models`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skawld_core.errors import ProviderError
from skawld_core.providers.discovery import discover, discover_in_background, display_model_name, list_models
from skawld_core.providers.openai_chat import OpenAIChatProvider
from tests.support.wire_replay import LLAMA_CPP_PYTHON, load_session, replay_profile
from tests.support.wire_server import PROFILES, WireServer, text, turn

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("vllm", {"Qwen/Qwen3-8B": 32768}),
        ("llamacpp", {"model.gguf": 8192}),
        ("ollama", {"qwen3:8b": 40960, "llama3.2:3b": 40960}),
        ("litellm", {"team-model": 65536}),
        ("lmstudio", {"qwen2.5-7b-instruct": None}),
    ],
)
def test_windows_from_what_each_server_reports(profile: str, expected: dict[str, int | None]) -> None:
    with WireServer() as srv:
        srv.chat.profile = PROFILES[profile]
        models = discover(srv.openai_url, "sk-local")
    assert {m.id: m.context_window for m in models} == expected


def test_unreachable_server_is_a_provider_error() -> None:
    with pytest.raises(ProviderError, match="cannot list models"):
        list_models("http://127.0.0.1:9/v1", timeout=1.0)


def test_background_discovery_feeds_the_providers_context_window() -> None:
    with WireServer() as srv:
        srv.chat.profile = PROFILES["vllm"]
        provider = OpenAIChatProvider(api_key="k", base_url=srv.openai_url)
        assert provider.context_window("Qwen/Qwen3-8B") == 128_000  # the table's default
        discover_in_background(srv.openai_url, "k", provider.discovered_windows).join(10)
        assert provider.context_window("Qwen/Qwen3-8B") == 32768
        provider.configured_context_window = 4096
        assert provider.context_window("Qwen/Qwen3-8B") == 4096


def _skawld(
    args: list[str], tmp_path: Path, config: dict[str, object] | None = None
) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    (home / ".skawld").mkdir(parents=True, exist_ok=True)
    if config is not None:
        (home / ".skawld" / "config.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SKAWLD_", "OPENAI_", "ANTHROPIC_"))}
    env["HOME"] = str(home)
    skawld = str(Path(sys.executable).with_name("skawld"))
    return subprocess.run([skawld, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)


def test_skawld_models_lists_with_windows(tmp_path: Path) -> None:
    with WireServer() as srv:
        srv.chat.profile = PROFILES["vllm"]
        proc = _skawld(["models", "--provider", "openai-chat", "--base-url", srv.openai_url], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "Qwen/Qwen3-8B\t32768 tokens\n"
        proc = _skawld(["models", "--provider", "openai-chat", "--base-url", srv.openai_url, "--json"], tmp_path)
        assert json.loads(proc.stdout) == {"id": "Qwen/Qwen3-8B", "owned_by": "vllm", "context_window": 32768}


def test_skawld_models_unreachable_is_a_clear_error(tmp_path: Path) -> None:
    proc = _skawld(["models", "--provider", "openai-chat", "--base-url", "http://127.0.0.1:9/v1"], tmp_path)
    assert proc.returncode == 1 and "cannot list models at http://127.0.0.1:9/v1/models" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_only_model_is_the_default(tmp_path: Path) -> None:
    with WireServer() as srv:
        srv.chat.profile = PROFILES["vllm"]
        srv.chat.enqueue(turn(text("served")))
        proc = _skawld(["-p", "hi", "--provider", "openai-chat", "--base-url", srv.openai_url], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "served"
        assert srv.chat.requests[-1].body["model"] == "Qwen/Qwen3-8B"


def test_several_models_ask_for_one(tmp_path: Path) -> None:
    with WireServer() as srv:
        srv.chat.profile = PROFILES["ollama"]
        proc = _skawld(["-p", "hi", "--provider", "openai-chat", "--base-url", srv.openai_url], tmp_path)
    assert proc.returncode == 3
    assert "serves 2 models; pick one with --model (qwen3:8b, llama3.2:3b)" in proc.stderr


def test_config_context_window_and_compat_are_read(tmp_path: Path) -> None:
    from skawld_core.from_config import make_provider
    from skawld_core.settings import CliOptions, resolve_settings

    home = tmp_path / "home"
    (home / ".skawld").mkdir(parents=True)
    cfg = {
        "provider": {
            "id": "openai-chat",
            "baseURL": "http://127.0.0.1:9/v1",
            "compat": "strict",
            "transport": "sdk",
            "contextWindow": 16384,
        }
    }
    (home / ".skawld" / "config.json").write_text(json.dumps(cfg))
    settings = resolve_settings(CliOptions(model="m", cwd=str(tmp_path)), env={"HOME": str(home)})
    provider = make_provider(settings)
    assert isinstance(provider, OpenAIChatProvider)
    assert provider.compat == "strict" and provider.transport == "sdk"
    assert provider.context_window("m") == 16384 and provider.is_local


def test_skawld_models_for_anthropic_sends_the_api_version(tmp_path: Path) -> None:
    with WireServer() as srv:
        proc = _skawld(["models", "--base-url", srv.url], tmp_path)
        assert proc.returncode == 0, proc.stderr
        model, window = proc.stdout.rstrip("\n").split("\t")
        assert model == "m" and window.startswith("context window unknown")
        get = [r for r in srv.requests if r.path == "/v1/models"][-1]
        assert get.headers["anthropic-version"] == "2026-10-21"


def test_skawld_models_says_how_to_set_an_unknown_window(tmp_path: Path) -> None:
    session = load_session(LLAMA_CPP_PYTHON)  # recorded: no size in /v1/models, /props 404
    with WireServer() as srv:
        srv.chat.profile = replay_profile(session)
        proc = _skawld(["models", "--provider", "openai-chat", "--base-url", srv.openai_url], tmp_path)
    assert proc.returncode == 0, proc.stderr
    model, window = proc.stdout.rstrip("\n").split("\t")
    assert model == session["model"]
    assert "unknown" in window and '"contextWindow"' in window


def test_path_like_model_ids_get_short_names() -> None:
    assert display_model_name("/opt/models/SmolLM2-135M-Instruct.Q4_1.gguf") == "SmolLM2-135M-Instruct.Q4_1"
    assert display_model_name("C:\\models\\llama.gguf") == "llama"
    assert display_model_name("./weights/model.bin") == "model"
    for unchanged in ("Qwen/Qwen3-8B", "qwen3:8b", "claude-sonnet-4-5", "gpt-4.1"):
        assert display_model_name(unchanged) == unchanged
