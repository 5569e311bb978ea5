"""Anthropic Messages API provider (streaming).

- Transport: ``transport="http"`` (default) posts to ``{base_url}/v1/messages`` itself,
  on asyncio streams (`aio_http`; ``httpx2`` for proxies and redirects, or always with
  ``transport="httpx"``), sending the headers the SDK sends (``Authorization: Bearer``,
  ``anthropic-version``); ``transport="sdk"`` uses the official ``anthropic`` client.
  The default keeps the SDK and ``httpx2`` imports off the first request (the start-up
  decision: see `wire` and `http_transport`).

- The API key comes from ``api_key=`` or ``$ANTHROPIC_API_KEY``; a missing key raises
  `AuthError` from `stream()` (not from the constructor, so an app can be built first).
- The SDK client is created on the first stream (one per event loop) with
  ``max_retries=0``; skawld's `retrying_stream` driver owns retries.
- With the SDK, requests go through its generic ``post("/v1/messages", stream=True)``: the
  SDK still does auth, headers, timeouts, error classes, SSE decoding and in-stream
  ``error`` events, but the events stay wire JSON (the SDK's per-event model construction
  costs more than all of skawld's mapping; see ``bench/provider.py``).
- Prompt caching: one breakpoint on the last cacheable system block and, when
  ``cache_prompt`` is on, one on the last eligible block of the last message if it is a
  user message (two at most); ``cache_ttl="1h"`` adds ``ttl`` to both.
- ``redacted_thinking`` blocks are returned in ``provider_metadata["anthropic"]`` and
  re-inserted at the front of that assistant message on replay.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import ProviderError
from ..messages import (
    Base64Source,
    DocumentBlock,
    ImageBlock,
    Message,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from .base import (
    Effort,
    MessageEnd,
    ProviderRequest,
    ProviderStreamEvent,
    TextDelta,
    ThinkingConfig,
    ThinkingDelta,
    ToolUseEnd,
    ToolUseInputDelta,
    ToolUseStart,
)
from .common import DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, dump_json, metadata
from .http_transport import ANTHROPIC_DEFAULT_BASE, anthropic_headers
from .retry import RetryPolicy
from .wire import Transport, WireProvider

ENV_VAR = "ANTHROPIC_API_KEY"
DEFAULT_MAX_TOKENS = 32768
CONTEXT_WINDOWS: dict[str, int] = {
    # what Claude Code's aliases resolve to (skawld_core.model_aliases): 1M natively
    "claude-opus-5-5": 1_000_000,
    "claude-sonnet-5-5": 1_000_000,
    "claude-haiku-5-5": 1_000_000,
    "claude-fable-5-2": 1_000_000,
    "claude-opus-4-6": 200_000,
    "claude-sonnet-4-6": 200_000,
    "claude-haiku-4-5": 200_000,
}
DEFAULT_ANTHROPIC_CONTEXT_WINDOW = 200_000
_STOP_REASONS: frozenset[str] = frozenset({"end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal"})
_NO_CACHE_BLOCKS = frozenset({"thinking", "redacted_thinking", "tool_use"})

ThinkingOption = ThinkingConfig | Mapping[str, Any]


def map_stop_reason(value: str | None) -> StopReason:
    """The five known Anthropic stop reasons pass through; anything else is ``error``."""
    if value in _STOP_REASONS:
        return value  # type: ignore[return-value]
    return "error"


def _cache_marker(ttl: str | None) -> dict[str, str]:
    return {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}


def thinking_param(option: ThinkingOption) -> dict[str, Any]:
    """The wire ``thinking`` object: raw mappings pass verbatim; `ThinkingConfig` becomes
    ``enabled{budget_tokens}``, ``adaptive`` (enabled, no budget) or ``disabled``."""
    if isinstance(option, ThinkingConfig):
        if not option.enabled:
            return {"type": "disabled"}
        if option.budget_tokens is not None:
            return {"type": "enabled", "budget_tokens": option.budget_tokens}
        return {"type": "adaptive"}
    return dict(option)


def _image(block: ImageBlock) -> dict[str, Any]:
    src = block.source
    if isinstance(src, Base64Source):
        return {"type": "image", "source": {"type": "base64", "media_type": src.media_type, "data": src.data}}
    return {"type": "image", "source": {"type": "url", "url": src.url}}


def _document(block: DocumentBlock) -> dict[str, Any]:
    src = block.source
    out: dict[str, Any] = {
        "type": "document",
        "source": {"type": "base64", "media_type": src.media_type, "data": src.data},
    }
    if block.title:
        out["title"] = block.title
    return out


def _tool_result(block: ToolResultBlock) -> dict[str, Any]:
    content: Any
    if isinstance(block.content, str):
        content = block.content
    else:
        content = [
            {"type": "text", "text": part.text}
            if isinstance(part, TextBlock)
            else _document(part)
            if isinstance(part, DocumentBlock)
            else _image(part)
            for part in block.content
        ]
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.tool_use_id, "content": content}
    if block.is_error is not None:
        out["is_error"] = block.is_error
    return out


def translate_message(message: Message) -> dict[str, Any] | None:
    """One skawld message as an Anthropic ``MessageParam`` (None when nothing is left).

    Empty text blocks and unsigned thinking blocks (which the API would reject) are dropped.
    """
    content: list[dict[str, Any]] = []
    if message.role == "assistant":
        for red in metadata(message, "anthropic").get("redacted_thinking") or []:
            if isinstance(red, Mapping) and red.get("data"):
                content.append({"type": "redacted_thinking", "data": red["data"]})
    for block in message.content:
        if isinstance(block, TextBlock):
            if block.text:
                content.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageBlock):
            content.append(_image(block))
        elif isinstance(block, ToolUseBlock):
            content.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
        elif isinstance(block, ToolResultBlock):
            content.append(_tool_result(block))
        elif isinstance(block, ThinkingBlock) and block.signature:
            content.append({"type": "thinking", "thinking": block.thinking, "signature": block.signature})
    if not content:
        return None
    return {"role": message.role, "content": content}


class AnthropicProvider(WireProvider):
    """Streams turns from the Anthropic Messages API.

    Args:
        api_key: explicit key; otherwise ``$ANTHROPIC_API_KEY`` (checked in `stream`).
        base_url: API root without ``/v1`` (the SDK appends ``/v1/messages``).
        timeout: read/write timeout in seconds (per read, so stalls are bounded).
        connect_timeout: TCP connect timeout in seconds.
        default_headers: extra headers on every request.
        thinking: default extended-thinking setting; a request's value wins.
        effort: default ``output_config.effort``; a request's value wins.
        retry_policy: backoff parameters (inject ``sleep`` in tests).
        transport: ``"http"`` (default, no SDK import) or ``"sdk"`` (the ``anthropic`` client).
    """

    id = "anthropic"
    env_var = ENV_VAR
    vendor = "Anthropic"
    base_url_env = "ANTHROPIC_BASE_URL"
    default_base_url = ANTHROPIC_DEFAULT_BASE
    api_path = "/v1/messages"
    sse_dialect = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        default_headers: Mapping[str, str] | None = None,
        thinking: ThinkingOption | None = None,
        effort: Effort | str | None = None,
        retry_policy: RetryPolicy | None = None,
        transport: Transport | str = "http",
    ) -> None:
        super().__init__(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout,
            connect_timeout=connect_timeout,
            default_headers=default_headers,
            retry_policy=retry_policy,
            transport=transport,
        )
        self.thinking = thinking
        self.effort = effort

    def context_window(self, model: str) -> int:
        """Configured / discovered first; then 200k for every current Claude model, and by default."""
        return self.window_hint(model) or CONTEXT_WINDOWS.get(model, DEFAULT_ANTHROPIC_CONTEXT_WINDOW)

    # ------------------------------------------------------------------ request

    def build_params(self, request: ProviderRequest) -> dict[str, Any]:
        """The keyword arguments for ``messages.create`` (without ``stream``)."""
        marker = _cache_marker(request.cache_ttl)
        system: list[dict[str, Any]] = [{"type": "text", "text": b.text} for b in request.system]
        cacheable = [i for i, b in enumerate(request.system) if b.cacheable]
        if cacheable:
            system[cacheable[-1]]["cache_control"] = dict(marker)
        messages = [m for m in (translate_message(msg) for msg in request.messages) if m is not None]
        if request.cache_prompt and messages and messages[-1]["role"] == "user":
            for block in reversed(messages[-1]["content"]):
                if block.get("type") not in _NO_CACHE_BLOCKS:
                    block["cache_control"] = dict(marker)
                    break
        params: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_output_tokens or DEFAULT_MAX_TOKENS,
            "messages": messages,
        }
        if system:
            params["system"] = system
        if request.tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in request.tools
            ]
        if request.temperature is not None:
            params["temperature"] = request.temperature
        thinking = request.thinking if request.thinking is not None else self.thinking
        if thinking is not None:
            params["thinking"] = thinking_param(thinking)
        effort = request.effort if request.effort is not None else self.effort
        if effort is not None:
            params["output_config"] = {"effort": effort}
        return params

    # ------------------------------------------------------------------ streaming

    def _http_headers(self, key: str) -> dict[str, str]:
        return anthropic_headers(key, self.default_headers)

    def _request_body(self, params: dict[str, Any]) -> dict[str, Any]:
        return {**params, "stream": True}

    def _make_sdk_client(self, key: str) -> Any:
        import anthropic
        import httpx2

        return anthropic.AsyncAnthropic(
            api_key=key,
            base_url=self.base_url,
            max_retries=0,
            timeout=httpx2.Timeout(self.timeout, connect=self.connect_timeout),
            default_headers=self.default_headers or None,
        )

    def _new_mapper(self, key: str, params: dict[str, Any]) -> AnthropicMapper:
        return AnthropicMapper()

    async def _open_sdk(self, client: Any, params: dict[str, Any]) -> Any:
        # The SDK's generic request path: its auth, headers, error classes, SSE decoding
        # and in-stream `error` handling, but events stay wire JSON (no per-event model
        # construction, which costs more than the whole mapping).
        from anthropic import AsyncStream

        return await client.post(
            "/v1/messages",
            body={**params, "stream": True},
            cast_to=object,
            stream=True,
            stream_cls=AsyncStream[object],
        )


class AnthropicMapper:
    """Normalizes raw Anthropic stream events (wire JSON objects) for one attempt."""

    __slots__ = (
        "cache_creation",
        "cache_read",
        "initial_inputs",
        "output",
        "redacted",
        "saw_stop",
        "stop_reason",
        "tool_ids",
        "wire_input",
    )

    def __init__(self) -> None:
        self.tool_ids: dict[int, str] = {}
        self.initial_inputs: dict[int, Any] = {}  # tool input given whole in content_block_start
        self.redacted: list[dict[str, Any]] = []
        self.wire_input = 0
        self.cache_read: int | None = None
        self.cache_creation: int | None = None
        self.output = 0
        self.stop_reason: str | None = None
        self.saw_stop = False

    def feed(self, ev: Any) -> ProviderStreamEvent | list[ProviderStreamEvent] | None:
        """The normalized event(s) for one wire event (a dict), if any."""
        kind = ev.get("type")
        if kind == "content_block_delta":
            d = ev["delta"]
            dt = d.get("type")
            if dt == "text_delta":
                return TextDelta(text=d["text"])
            if dt == "input_json_delta":
                index = ev.get("index", -1)
                tid = self.tool_ids.get(index)
                piece = d.get("partial_json")
                if tid is not None and piece:
                    if self.initial_inputs:
                        self.initial_inputs.pop(index, None)
                    return ToolUseInputDelta(id=tid, json_delta=piece)
            elif dt == "thinking_delta":
                return ThinkingDelta(text=d["thinking"])
            elif dt == "signature_delta":
                return ThinkingDelta(text="", signature=d["signature"])
            return None
        if kind == "content_block_start":
            return self._block_start(ev.get("index", -1), ev["content_block"])
        if kind == "content_block_stop":
            index = ev.get("index", -1)
            tid = self.tool_ids.pop(index, None)
            if tid is None:
                return None
            whole = self.initial_inputs.pop(index, None) if self.initial_inputs else None
            if whole is not None:
                return [ToolUseInputDelta(id=tid, json_delta=dump_json(whole)), ToolUseEnd(id=tid)]
            return ToolUseEnd(id=tid)
        if kind == "message_start":
            u = (ev.get("message") or {}).get("usage") or {}
            self.wire_input = u.get("input_tokens") or 0
            self.cache_read = u.get("cache_read_input_tokens")
            self.cache_creation = u.get("cache_creation_input_tokens")
            self.output = u.get("output_tokens") or 0
        elif kind == "message_delta":
            self._delta(ev)
        elif kind == "message_stop":
            self.saw_stop = True
        return None

    def _block_start(self, index: int, block: dict[str, Any]) -> ProviderStreamEvent | None:
        bt = block.get("type")
        if bt == "tool_use":
            self.tool_ids[index] = block["id"]
            if block.get("input"):
                self.initial_inputs[index] = block["input"]
            return ToolUseStart(id=block["id"], name=block["name"])
        if bt == "text":
            return TextDelta(text=block["text"]) if block.get("text") else None
        if bt == "thinking":
            if block.get("thinking") or block.get("signature"):
                return ThinkingDelta(text=block.get("thinking") or "", signature=block.get("signature") or None)
        elif bt == "redacted_thinking":
            self.redacted.append({"type": "redacted_thinking", "data": block.get("data", "")})
        return None

    def _delta(self, ev: dict[str, Any]) -> None:
        stop = (ev.get("delta") or {}).get("stop_reason")
        if stop is not None:
            self.stop_reason = stop
        u = ev.get("usage")
        if not u:
            return
        if u.get("output_tokens") is not None:
            self.output = u["output_tokens"]
        if u.get("input_tokens") is not None:
            self.wire_input = u["input_tokens"]
        if u.get("cache_read_input_tokens") is not None:
            self.cache_read = u["cache_read_input_tokens"]
        if u.get("cache_creation_input_tokens") is not None:
            self.cache_creation = u["cache_creation_input_tokens"]

    def finish(self) -> list[ProviderStreamEvent]:
        """`MessageEnd`, or a retryable `ProviderError` if the stream ended early."""
        if not self.saw_stop and self.stop_reason is None:
            raise ProviderError("Anthropic stream ended before message_stop", retryable=True)
        usage = Usage(
            input_tokens=self.wire_input + (self.cache_read or 0) + (self.cache_creation or 0),
            output_tokens=self.output,
            cache_read_tokens=self.cache_read,
            cache_creation_tokens=self.cache_creation,
        )
        meta = {"anthropic": {"redacted_thinking": self.redacted}} if self.redacted else None
        return [MessageEnd(stop_reason=map_stop_reason(self.stop_reason), usage=usage, provider_metadata=meta)]
