"""Pieces shared by the two OpenAI providers: client factory and context windows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ENV_VAR = "OPENAI_API_KEY"
DEFAULT_OPENAI_CONTEXT_WINDOW = 128_000
# Longest matching prefix wins ("gpt-4o-mini" → "gpt-4o").
CONTEXT_WINDOWS: dict[str, int] = {
    "gpt-5": 400_000,
    "gpt-4.1": 1_000_000,
    "gpt-4o": 128_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
}


def known_context_window(model: str) -> int:
    """The table entry whose name is the longest prefix of ``model``, else 128k."""
    best = ""
    for name in CONTEXT_WINDOWS:
        if (model == name or model.startswith(name + "-")) and len(name) > len(best):
            best = name
    return CONTEXT_WINDOWS[best] if best else DEFAULT_OPENAI_CONTEXT_WINDOW


def make_client(
    key: str, base_url: str | None, timeout: float, connect_timeout: float, headers: Mapping[str, str]
) -> Any:
    """An ``openai.AsyncOpenAI`` with SDK retries off (imported lazily)."""
    import httpx2
    import openai

    kwargs: dict[str, Any] = {
        "api_key": key,
        "max_retries": 0,
        "timeout": httpx2.Timeout(timeout, connect=connect_timeout),
    }
    if base_url:
        kwargs["base_url"] = base_url
    if headers:
        kwargs["default_headers"] = dict(headers)
    return openai.AsyncOpenAI(**kwargs)


async def open_wire_stream(client: Any, path: str, body: dict[str, Any]) -> Any:
    """POST a streaming request through the SDK's generic request path.

    The SDK still does auth (``security`` as its resources set it), headers, timeouts,
    error classes, SSE decoding and in-stream ``{"error": ...}`` raising; the events stay
    wire JSON, which skips the SDK's per-chunk model construction (its largest cost).
    """
    from openai import AsyncStream

    return await client.post(
        path,
        body=body,
        cast_to=object,
        options={"security": {"bearer_auth": True}},
        stream=True,
        stream_cls=AsyncStream[object],
    )
