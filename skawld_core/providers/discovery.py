"""Model discovery: what a server serves (``GET /v1/models``) and each model's context window.

Context windows come from what the server reports:

- vLLM: ``max_model_len`` on each ``/v1/models`` entry;
- llama.cpp server: ``meta.n_ctx_train`` on the entry;
- OpenRouter-style gateways / LM Studio: ``context_length`` / ``max_context_length``;
- Ollama: ``POST /api/show {"model": id}`` → ``model_info["<arch>.context_length"]``;
- LiteLLM proxy: ``GET /model/info`` → ``data[].model_info.max_input_tokens``.

Plain stdlib HTTP (``urllib``), synchronous and short-timed: it runs from the
``skawld models`` command, to pick a default model when a server serves exactly one,
and in a background thread (`discover_in_background`) that fills a provider's
``discovered_windows`` without delaying the first request. Every failure is
swallowed into "unknown" except in `list_models`, which raises `ProviderError`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ProviderError

DEFAULT_TIMEOUT = 3.0
_WINDOW_KEYS = ("max_model_len", "context_length", "max_context_length", "context_window", "max_input_tokens")


@dataclass(frozen=True)
class ModelInfo:
    """One served model: its id, owner, and context window when the server says."""

    id: str
    owned_by: str | None = None
    context_window: int | None = None


def server_root(base_url: str) -> str:
    """The server root: ``base_url`` without a trailing ``/v1``."""
    base = base_url.rstrip("/")
    return base[:-3] if base.endswith("/v1") else base


def _request(
    url: str, api_key: str | None, timeout: float, body: Any = None, extra: Mapping[str, str] | None = None
) -> Any:
    import urllib.request

    headers = {"Accept": "application/json", **(extra or {})}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method="POST" if data else "GET")
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return json.loads(resp.read() or b"null")


_WEIGHT_SUFFIXES = (".gguf", ".ggml", ".bin", ".safetensors")


def display_model_name(model: str) -> str:
    """A short name for a path-like model id (llama-cpp-python serves its model as the
    ``.gguf`` file's full path): the file name without its extension. Other ids
    (``qwen3:8b``, ``Qwen/Qwen3-8B``) are returned unchanged."""
    is_path = model.startswith(("/", "~", "./", "../")) or model.lower().endswith(_WEIGHT_SUFFIXES)
    if not is_path:
        return model
    name = model.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    for suffix in _WEIGHT_SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)] or model
    return name or model


def window_of(entry: Mapping[str, Any]) -> int | None:
    """The context window an ``/v1/models`` entry reports, if any."""
    for key in _WINDOW_KEYS:
        value = entry.get(key)
        if isinstance(value, int) and value > 0:
            return value
    meta = entry.get("meta")
    if isinstance(meta, Mapping):
        for key in ("n_ctx", "n_ctx_train"):
            value = meta.get(key)
            if isinstance(value, int) and value > 0:
                return value
    return None


def list_models(
    base_url: str,
    api_key: str | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    headers: Mapping[str, str] | None = None,
) -> list[ModelInfo]:
    """``GET {base_url}/models`` as `ModelInfo`s (raises `ProviderError` when unreachable).
    ``headers`` are sent as well (e.g. ``anthropic-version`` for Anthropic's API)."""
    url = base_url.rstrip("/") + "/models"
    try:
        doc = _request(url, api_key, timeout, extra=headers)
    except Exception as exc:
        raise ProviderError(f"cannot list models at {url}: {exc}", cause=exc) from exc
    data = doc.get("data") if isinstance(doc, Mapping) else None
    if not isinstance(data, list):
        raise ProviderError(f"{url} did not answer with a model list")
    out: list[ModelInfo] = []
    for entry in data:
        if isinstance(entry, Mapping) and isinstance(entry.get("id"), str):
            owner = entry.get("owned_by")
            out.append(ModelInfo(entry["id"], owner if isinstance(owner, str) else None, window_of(entry)))
    return out


def _ollama_window(root: str, model: str, api_key: str | None, timeout: float) -> int | None:
    doc = _request(f"{root}/api/show", api_key, timeout, {"model": model})
    info = doc.get("model_info") if isinstance(doc, Mapping) else None
    if not isinstance(info, Mapping):
        return None
    for key, value in info.items():
        if str(key).endswith(".context_length") and isinstance(value, int) and value > 0:
            return value
    return None


def _litellm_windows(root: str, api_key: str | None, timeout: float) -> dict[str, int]:
    doc = _request(f"{root}/model/info", api_key, timeout)
    out: dict[str, int] = {}
    for entry in (doc.get("data") if isinstance(doc, Mapping) else None) or []:
        info = entry.get("model_info") if isinstance(entry, Mapping) else None
        name = entry.get("model_name") if isinstance(entry, Mapping) else None
        if isinstance(info, Mapping) and isinstance(name, str):
            window = info.get("max_input_tokens") or info.get("max_tokens")
            if isinstance(window, int) and window > 0:
                out[name] = window
    return out


def discover(
    base_url: str,
    api_key: str | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    headers: Mapping[str, str] | None = None,
) -> list[ModelInfo]:
    """`list_models`, with windows filled from Ollama's / LiteLLM's model info where the
    list has none. Secondary lookups that fail leave the window unknown."""
    models = list_models(base_url, api_key, timeout=timeout, headers=headers)
    missing = [m for m in models if m.context_window is None]
    if not missing:
        return models
    root = server_root(base_url)
    extra: dict[str, int] = {}
    try:
        extra = _litellm_windows(root, api_key, timeout)
    except Exception:
        pass
    for m in missing:
        if m.id in extra:
            continue
        try:
            window = _ollama_window(root, m.id, api_key, timeout)
        except Exception:
            break  # not Ollama: do not ask again for every model
        if window:
            extra[m.id] = window
    return [ModelInfo(m.id, m.owned_by, m.context_window or extra.get(m.id)) for m in models]


def windows(models: list[ModelInfo]) -> dict[str, int]:
    """``{model id: context window}`` for the models whose window is known."""
    return {m.id: m.context_window for m in models if m.context_window}


def discover_in_background(
    base_url: str, api_key: str | None, into: dict[str, int], *, timeout: float = DEFAULT_TIMEOUT
) -> threading.Thread:
    """Run `discover` in a daemon thread and merge the windows into ``into``."""

    def run() -> None:
        try:
            into.update(windows(discover(base_url, api_key, timeout=timeout)))
        except Exception:
            pass

    thread = threading.Thread(target=run, name="skawld-model-discovery", daemon=True)
    thread.start()
    return thread
