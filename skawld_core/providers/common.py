"""Small helpers shared by the vendor providers."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import AuthError
from ..messages import Base64Source, DocumentBlock, ImageBlock, Message, TextBlock, ToolResultPart

DEFAULT_TIMEOUT = 600.0
"""Seconds; applies per read, so a silent server cannot hang a turn forever."""
DEFAULT_CONNECT_TIMEOUT = 5.0


def resolve_api_key(explicit: str | None, env_var: str) -> str:
    """The explicit key, else ``$env_var``; a clear `AuthError` naming the variable if neither."""
    key = explicit if explicit else os.environ.get(env_var)
    if not key:
        raise AuthError(f"{env_var} is not set: export {env_var}=... or pass api_key= to the provider")
    return key


def image_url(block: ImageBlock) -> str:
    """A URL for an image block: the URL itself, or a ``data:`` URL for base64 data."""
    src = block.source
    if isinstance(src, Base64Source):
        return f"data:{src.media_type};base64,{src.data}"
    return src.url


def documents_as_text(parts: Sequence[ToolResultPart]) -> list[TextBlock | ImageBlock]:
    """A tool result's parts for a provider without document input: each document becomes its text."""
    return [
        TextBlock(text=p.text or f"[document {p.title or ''}]") if isinstance(p, DocumentBlock) else p for p in parts
    ]


def dump_json(value: Any) -> str:
    """Compact JSON for tool-call arguments."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def metadata(message: Message, namespace: str) -> Mapping[str, Any]:
    """``message.provider_metadata[namespace]`` or an empty mapping."""
    meta = message.provider_metadata or {}
    ns = meta.get(namespace)
    return ns if isinstance(ns, Mapping) else {}


class ClientCache:
    """One SDK client per (API key, running event loop), created on first use.

    httpx connection pools are bound to the loop they were opened on, so a provider
    reused from another loop (a second ``asyncio.run``) gets a fresh client.
    """

    def __init__(self, factory: Callable[[str], Any]) -> None:
        self._factory = factory
        self.client: Any = None
        self._key: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self, key: str) -> Any:
        """The client for ``key`` on the running loop."""
        loop = asyncio.get_running_loop()
        if self.client is None or self._key != key or self._loop is not loop:
            self.client = self._factory(key)
            self._key = key
            self._loop = loop
        return self.client

    async def aclose(self) -> None:
        """Close the client if it belongs to the running loop; forget it either way."""
        client, loop = self.client, self._loop
        self.client, self._key, self._loop = None, None, None
        if client is not None and loop is asyncio.get_running_loop():
            await client.close()
