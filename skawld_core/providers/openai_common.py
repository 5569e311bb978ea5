"""Pieces shared by the two OpenAI providers: client factory, attempts, context windows."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

from .base import MessageStart, ProviderStreamEvent
from .errors_map import map_error

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


async def sdk_attempt(
    open_stream: Callable[[], Awaitable[Any]],
    normalize: Callable[[Any], AsyncIterator[ProviderStreamEvent]],
    *,
    vendor: str,
    key: str,
) -> AsyncIterator[ProviderStreamEvent]:
    """One attempt: `MessageStart`, open the SDK stream, normalize it; errors mapped; the
    SDK stream (and its HTTP response) is always closed."""
    yield MessageStart()
    try:
        sdk_stream = await open_stream()
    except Exception as exc:
        mapped = map_error(exc, vendor=vendor, secrets=(key,))
        if mapped is exc:
            raise
        raise mapped from exc
    try:
        async for event in normalize(sdk_stream):
            yield event
    except Exception as exc:
        mapped = map_error(exc, vendor=vendor, secrets=(key,))
        if mapped is exc:
            raise
        raise mapped from exc
    finally:
        await sdk_stream.close()
