"""Small helpers shared by the vendor providers."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from ..errors import AuthError
from ..messages import Base64Source, ImageBlock, Message

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


def dump_json(value: Any) -> str:
    """Compact JSON for tool-call arguments."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def metadata(message: Message, namespace: str) -> Mapping[str, Any]:
    """``message.provider_metadata[namespace]`` or an empty mapping."""
    meta = message.provider_metadata or {}
    ns = meta.get(namespace)
    return ns if isinstance(ns, Mapping) else {}
