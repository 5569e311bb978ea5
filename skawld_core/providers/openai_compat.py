"""The tolerant ("lenient") dialect of Chat Completions for OpenAI-compatible servers.

Ollama, vLLM, llama.cpp's server, LM Studio, LiteLLM and similar gateways speak
"OpenAI-compatible" Chat Completions with differences. The lenient dialect sits above
the transport (it changes the JSON sent and how the chunks are read, never the HTTP):

- request: text-only user content goes as one string (some servers accept nothing
  else), an assistant turn with only tool calls has ``content: ""`` rather than null;
- learning: when a server answers 400/422 naming an optional parameter we sent
  (``stream_options``, ``parallel_tool_calls``, ``max_completion_tokens``), the request
  is retried at once without it (``max_completion_tokens`` becomes ``max_tokens``) and
  the provider remembers that for the rest of its life;
- stream: tool calls whole in one chunk or spread over many, arguments as a JSON
  string or an object, with or without ``index`` / ``id`` (stable ids are synthesized);
  ``finish_reason: "stop"`` after tool calls means ``tool_use``, an unknown finish
  reason ends the turn normally; missing usage is estimated from the text
  (about 4 characters a token) and marked ``usage_estimated`` in the message's
  ``provider_metadata["openai_chat"]``.

`resolve_compat` picks ``strict`` for OpenAI's own API (no base URL, or
``api.openai.com``) and ``lenient`` for any other base URL; ``compat=`` (config
``provider.compat``) overrides it.
"""

from __future__ import annotations

import ipaddress
import json
import os
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from ..errors import ConfigError

Compat = Literal["strict", "lenient"]
COMPAT_MODES: tuple[str, ...] = ("strict", "lenient")
OPTIONAL_PARAMS: tuple[str, ...] = ("stream_options", "parallel_tool_calls", "max_completion_tokens")
"""Parameters a compatible server may reject; each is dropped (or renamed) on rejection."""
CHARS_PER_TOKEN = 4
_LOCAL_NAMES = frozenset({"localhost", "host.docker.internal"})


def _host(base_url: str | None) -> str:
    if not base_url:
        return ""
    return (urlsplit(base_url if "//" in base_url else "//" + base_url).hostname or "").lower()


def resolve_compat(compat: str | None, base_url: str | None) -> Compat:
    """``compat`` when given; else ``strict`` for OpenAI's API and ``lenient`` for any other
    base URL (``$OPENAI_BASE_URL`` counts when ``base_url`` is None)."""
    if compat is not None and compat != "auto":
        if compat not in COMPAT_MODES:
            raise ConfigError(f"compat must be one of strict, lenient, auto; got {compat!r}")
        return compat  # type: ignore[return-value]
    host = _host(base_url or os.environ.get("OPENAI_BASE_URL"))
    return "strict" if host in ("", "api.openai.com") else "lenient"


def is_local_url(base_url: str | None) -> bool:
    """True for a server on this machine or a private network (loopback, RFC 1918,
    link-local, ``localhost``, ``*.local``): such servers cost nothing per token."""
    host = _host(base_url)
    if not host:
        return False
    if host in _LOCAL_NAMES or host.endswith((".local", ".localhost", ".internal")):
        return True
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return False
    return addr.is_loopback or addr.is_private or addr.is_link_local or addr.is_unspecified


def shape_lenient(params: dict[str, Any]) -> None:
    """Rewrite ``params["messages"]`` in place into the widely accepted shapes."""
    for message in params.get("messages") or ():
        content = message.get("content")
        if isinstance(content, list) and content and all(p.get("type") == "text" for p in content):
            message["content"] = "\n\n".join(str(p.get("text", "")) for p in content)
        elif content is None and message.get("role") == "assistant":
            message["content"] = ""


def error_text(exc: BaseException) -> str:
    """Everything an error says: its message and its body (either transport)."""
    parts = [str(exc)]
    body = getattr(exc, "body", None)
    if body is not None:
        try:
            parts.append(json.dumps(body))
        except (TypeError, ValueError):
            parts.append(str(body))
    return " ".join(parts)


def rejected_param(exc: BaseException, params: Mapping[str, Any]) -> str | None:
    """The optional parameter a 400/422 answer names, if we sent it."""
    if getattr(exc, "status_code", None) not in (400, 422):
        return None
    text = error_text(exc)
    for name in OPTIONAL_PARAMS:
        if name in params and name in text:
            return name
    return None


def drop_param(params: dict[str, Any], name: str) -> None:
    """Remove ``name`` from ``params``; ``max_completion_tokens`` becomes ``max_tokens``."""
    value = params.pop(name, None)
    if name == "max_completion_tokens" and value is not None:
        params["max_tokens"] = value


def estimate_tokens(chars: int) -> int:
    """A rough token count for ``chars`` characters (never 0 for non-empty text)."""
    return -(-chars // CHARS_PER_TOKEN) if chars > 0 else 0


def prompt_chars(params: Mapping[str, Any]) -> int:
    """Characters of the prompt (messages and tools) as sent."""
    return len(json.dumps(params.get("messages") or [])) + len(json.dumps(params.get("tools") or []))
