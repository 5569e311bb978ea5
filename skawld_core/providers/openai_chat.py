"""OpenAI Chat Completions provider (streaming).

Also the way to reach OpenAI-compatible servers (vLLM, Ollama, llama.cpp, LM Studio,
LiteLLM, ...) via ``base_url`` (which must include ``/v1``); for those the lenient
dialect of `openai_compat` is chosen automatically (``compat=`` overrides). The key
comes from ``api_key=`` or ``$OPENAI_API_KEY``; local servers that ignore it still
need a non-empty value (e.g. ``api_key="local"``). A missing key raises `AuthError`
from `stream()`.

The default ``transport="http"`` posts the JSON itself on asyncio streams (see `wire`
and `http_transport`: neither ``import openai`` nor ``httpx2`` on the way to the first
request; ``transport="httpx"`` carries it on ``httpx2``); with
``transport="sdk"`` requests go through the SDK client's generic ``post`` (see
`open_wire_stream`), the client created lazily, one per event loop, ``max_retries=0``.

Thinking blocks are never sent (Chat has no field for them); a compatible server's
``reasoning_content`` / ``reasoning`` deltas stream as thinking; refusals stream as text;
a stream that ends without any ``finish_reason`` is a retryable `ProviderError`.
"""

from __future__ import annotations

import os
from collections.abc import AsyncGenerator, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import ContextLengthError, ProviderError
from ..messages import ImageBlock, Message, StopReason, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from .base import (
    MessageEnd,
    ProviderRequest,
    ProviderStreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolUseEnd,
    ToolUseInputDelta,
    ToolUseStart,
)
from .common import DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT, documents_as_text, dump_json, image_url
from .http_transport import OPENAI_DEFAULT_BASE, openai_headers
from .local_server import EmptyStreamError, ServerSide
from .openai_common import ENV_VAR, known_context_window, make_client, open_wire_stream
from .openai_compat import (
    Compat,
    drop_param,
    estimate_tokens,
    prompt_chars,
    rejected_param,
    resolve_compat,
    shape_lenient,
)
from .openai_local import local_turn
from .retry import RetryPolicy, StreamMapper
from .wire import Transport, WireProvider

IMAGE_STUB = "[image returned in following user message]"
_FINISH: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}

ContextWindowOverride = Callable[[str], int | None] | Mapping[str, int]


def map_finish_reason(value: str | None) -> StopReason:
    """stop → end_turn, tool_calls → tool_use, length → max_tokens, content_filter → refusal."""
    return _FINISH.get(value or "", "error")


def _part(block: TextBlock | ImageBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    return {"type": "image_url", "image_url": {"url": image_url(block)}}


def _user_messages(message: Message) -> list[dict[str, Any]]:
    tool_msgs: list[dict[str, Any]] = []
    tool_images: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            if isinstance(block.content, str):
                content = block.content
            else:
                result_parts = documents_as_text(block.content)
                texts = [p.text for p in result_parts if isinstance(p, TextBlock)]
                images = [p for p in result_parts if isinstance(p, ImageBlock)]
                content = "\n".join(texts) if texts else (IMAGE_STUB if images else "")
                if images:
                    tool_images.append({"type": "text", "text": f"Image returned by tool call {block.tool_use_id}:"})
                    tool_images.extend(_part(img) for img in images)
            tool_msgs.append({"role": "tool", "tool_call_id": block.tool_use_id, "content": content})
        elif isinstance(block, (TextBlock, ImageBlock)):
            parts.append(_part(block))
    out = tool_msgs
    if tool_images:
        out.append({"role": "user", "content": tool_images})
    if parts:
        if len(parts) == 1 and parts[0]["type"] == "text":
            out.append({"role": "user", "content": parts[0]["text"]})
        else:
            out.append({"role": "user", "content": parts})
    return out


def _assistant_message(message: Message) -> dict[str, Any] | None:
    text = "".join(b.text for b in message.content if isinstance(b, TextBlock))
    calls = [
        {"id": b.id, "type": "function", "function": {"name": b.name, "arguments": dump_json(b.input)}}
        for b in message.content
        if isinstance(b, ToolUseBlock)
    ]
    if not text and not calls:
        return None
    out: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        out["tool_calls"] = calls
    return out


def translate_messages(request: ProviderRequest) -> list[dict[str, Any]]:
    """System blocks joined by a blank line into one leading system message, then the turns."""
    out: list[dict[str, Any]] = []
    system = "\n\n".join(b.text for b in request.system if b.text)
    if system:
        out.append({"role": "system", "content": system})
    for message in request.messages:
        if message.role == "assistant":
            am = _assistant_message(message)
            if am is not None:
                out.append(am)
        else:
            out.extend(_user_messages(message))
    return out


class OpenAIChatProvider(WireProvider):
    """Streams turns from an OpenAI Chat Completions endpoint.

    Args:
        api_key: explicit key; otherwise ``$OPENAI_API_KEY`` (checked in `stream`).
        base_url: API root including ``/v1`` (for compatible servers).
        timeout / connect_timeout: seconds (read timeout applies per read).
        default_headers: extra headers on every request.
        context_window_override: mapping or callable consulted first by `context_window`.
        retry_policy: backoff parameters (inject ``sleep`` in tests).
        transport: ``"http"`` (default, no SDK import) or ``"sdk"`` (the ``openai`` client).
        compat: ``"strict"`` (OpenAI's own API), ``"lenient"`` (compatible servers, see
            `openai_compat`), or None / ``"auto"``: lenient for any non-OpenAI base URL.
    """

    id = "openai-chat"
    env_var = ENV_VAR
    vendor = "OpenAI"
    base_url_env = "OPENAI_BASE_URL"
    default_base_url = OPENAI_DEFAULT_BASE
    api_path = "/chat/completions"
    sse_dialect = "openai"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        default_headers: Mapping[str, str] | None = None,
        context_window_override: ContextWindowOverride | None = None,
        retry_policy: RetryPolicy | None = None,
        transport: Transport | str = "http",
        compat: Compat | str | None = None,
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
        self.context_window_override = context_window_override
        self.compat: Compat = resolve_compat(compat, base_url)
        self.rejected_params: set[str] = set()
        """Optional parameters the server rejected (lenient mode); never sent again."""
        self.ignores_output_cap = False
        """The server sent more output than ``max_tokens`` allowed (learnt, warned once)."""
        self._server_side: ServerSide | None = None

    def context_window(self, model: str) -> int:
        """Override first, then configured / discovered, then the known-model table, then 128k."""
        override = self.context_window_override
        if override is not None:
            value = override.get(model) if isinstance(override, Mapping) else override(model)
            if value:
                return int(value)
        return self.window_hint(model) or known_context_window(model)

    def build_params(self, request: ProviderRequest) -> dict[str, Any]:
        """Keyword arguments for ``chat.completions.create`` (``stream`` included)."""
        params: dict[str, Any] = {
            "model": request.model,
            "messages": translate_messages(request),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
                }
                for t in request.tools
            ]
        if request.max_output_tokens is not None:
            # Compatible servers read max_tokens (llama-cpp-python ignores max_completion_tokens).
            cap_param = "max_tokens" if self.compat == "lenient" else "max_completion_tokens"
            params[cap_param] = request.max_output_tokens
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if self.compat == "lenient":
            shape_lenient(params)
            for name in self.rejected_params:
                drop_param(params, name)
        return params

    async def _open(self, client: Any, params: dict[str, Any]) -> Any:
        """Open the stream; in lenient mode a 400/422 that names an optional parameter is
        answered by sending the request again without it (once per parameter)."""
        while True:
            try:
                return await super()._open(client, params)
            except Exception as exc:
                name = rejected_param(exc, params) if self.compat == "lenient" else None
                if name is None:
                    raise
                self.rejected_params.add(name)
                drop_param(params, name)

    def _http_headers(self, key: str) -> dict[str, str]:
        return openai_headers(key, self.default_headers)

    def _make_sdk_client(self, key: str) -> Any:
        return make_client(key, self.base_url, self.timeout, self.connect_timeout, self.default_headers)

    def _new_mapper(self, key: str, params: dict[str, Any]) -> StreamMapper:
        if self.compat == "lenient":
            model = str(params.get("model") or "")
            return ChatMapper(
                lenient=True,
                prompt_chars=prompt_chars(params),
                window=self.window_hint(model),
                cap=params.get("max_tokens"),
            )
        return ChatMapper()

    def stream(self, request: ProviderRequest) -> AsyncGenerator[ProviderStreamEvent, None]:
        """Stream one turn; to compatible servers with the checks of `local_turn`."""
        if self.compat != "lenient":
            return super().stream(request)
        return local_turn(self, request)

    def server_side(self, key: str) -> ServerSide:
        """Side requests to this server (tokenizer, plain probe), one per provider."""
        if self._server_side is None:
            self._server_side = ServerSide(self.resolved_base_url, self._http_headers(key))
        return self._server_side

    async def _open_sdk(self, client: Any, params: dict[str, Any]) -> Any:
        return await open_wire_stream(client, "/chat/completions", params)


@dataclass
class _Slot:
    id: str | None = None
    name: str | None = None
    started: bool = False
    buffered: list[str] = field(default_factory=list)


class ChatMapper:
    """Normalizes Chat Completions chunks (one attempt).

    ``lenient`` turns on the compatible-server tolerances (see `openai_compat`);
    ``prompt_chars`` sizes the input-token estimate when the server reports no usage.
    """

    def __init__(
        self, *, lenient: bool = False, prompt_chars: int = 0, window: int | None = None, cap: int | None = None
    ) -> None:
        self.frames = 0
        self.window = window
        self.cap = cap
        self.out_parts: list[str] = []
        """The streamed text (lenient only: recounted by the server's tokenizer)."""
        self.slots: dict[int, _Slot] = {}
        self.finish_reason: str | None = None
        self.usage: Any = None
        self.lenient = lenient
        self.prompt_chars = prompt_chars
        self.out_chars = 0
        self.saw_tool = False
        self.nonce = ""

    def feed(self, chunk: Any) -> ProviderStreamEvent | list[ProviderStreamEvent] | None:
        """The normalized events for one chunk (wire JSON)."""
        self.frames += 1
        usage = chunk.get("usage")
        if usage:
            self.usage = usage
        choices = chunk.get("choices")
        if not choices:
            return None
        if len(choices) == 1:
            choice = choices[0]
            delta = choice.get("delta")
            if (
                delta
                and delta.get("content")
                and not delta.get("tool_calls")
                and choice.get("finish_reason") is None
                and not delta.get("refusal")
                and not delta.get("reasoning_content")
                and not delta.get("reasoning")
            ):
                text = delta["content"]
                self.out_chars += len(text)
                if self.lenient:
                    self.out_parts.append(text)
                return TextDelta(text=text)  # the hot path: one plain text delta
        out: list[ProviderStreamEvent] = []
        for choice in choices:
            delta = choice.get("delta")
            if delta:
                reasoning = delta.get("reasoning_content") or delta.get("reasoning")
                if reasoning and isinstance(reasoning, str):
                    self.out_chars += len(reasoning)
                    out.append(ThinkingDelta(text=reasoning))  # vLLM / DeepSeek-style servers
                if delta.get("content"):
                    self.out_chars += len(delta["content"])
                    if self.lenient:
                        self.out_parts.append(delta["content"])
                    out.append(TextDelta(text=delta["content"]))
                if delta.get("refusal"):
                    out.append(TextDelta(text=delta["refusal"]))
                for tc in delta.get("tool_calls") or ():
                    self.saw_tool = True
                    out.extend(self._tool_fragment(tc))
            finish = choice.get("finish_reason")
            if finish is not None and self.finish_reason is None:
                self.finish_reason = finish
                out.extend(_close_slots(self.slots, self._synth_id))
        return out or None

    def _slot_index(self, tc: dict[str, Any]) -> int:
        index = tc.get("index")
        if isinstance(index, int):
            return index
        if not self.lenient:
            return 0
        # No index (some servers): a known id picks its call, a new id or name opens one,
        # a bare argument fragment continues the last call.
        tid = tc.get("id")
        if tid:
            for i, slot in self.slots.items():
                if slot.id == tid:
                    return i
        name = (tc.get("function") or {}).get("name")
        if not self.slots:
            return 0
        if tid or name:
            return max(self.slots) + 1
        return max(self.slots)

    def _synth_id(self, index: int) -> str:
        if not self.lenient:
            return f"call_{index}"
        # Unique across turns too (local servers often reuse one chunk id for every reply).
        if not self.nonce:
            self.nonce = os.urandom(6).hex()
        return f"call_{self.nonce}_{index}"

    def _tool_fragment(self, tc: dict[str, Any]) -> list[ProviderStreamEvent]:
        slots = self.slots
        index = self._slot_index(tc)
        slot = slots.get(index)
        if slot is None:
            slot = slots[index] = _Slot()
        out: list[ProviderStreamEvent] = []
        if tc.get("id"):
            slot.id = tc["id"]
        fn = tc.get("function")
        args = ""
        if fn:
            if fn.get("name"):
                slot.name = fn["name"]
            raw = fn.get("arguments")
            if isinstance(raw, str):
                args = raw
            elif raw is not None:
                args = dump_json(raw)  # arguments given as an object (some servers)
        self.out_chars += len(args)
        if self.lenient and args:
            self.out_parts.append(args)
        if not slot.started:
            if args:
                slot.buffered.append(args)
            if slot.id and slot.name:
                out.extend(_start(slot))
        elif args and slot.id:
            out.append(ToolUseInputDelta(id=slot.id, json_delta=args))
        return out

    def finish(self) -> list[ProviderStreamEvent]:
        """`MessageEnd`, or a retryable `ProviderError` when no finish_reason arrived."""
        if self.finish_reason is None:
            if self.lenient and self.frames == 0:
                self._empty_stream()
            raise ProviderError("OpenAI chat stream ended before a finish_reason", retryable=True)
        stop = map_finish_reason(self.finish_reason)
        meta: dict[str, Any] | None = None
        if self.lenient:
            if self.saw_tool and stop in ("end_turn", "error"):
                stop = "tool_use"  # servers that say "stop" after tool calls
            elif stop == "error":
                stop = "end_turn"
        usage = _usage(self.usage)
        if not self.usage and self.lenient:
            usage = Usage(
                input_tokens=estimate_tokens(self.prompt_chars), output_tokens=estimate_tokens(self.out_chars)
            )
            meta = {"openai_chat": {"usage_estimated": True}}
        return [MessageEnd(stop_reason=stop, usage=usage, provider_metadata=meta)]

    def _empty_stream(self) -> None:
        """A stream that ended before its first event: llama-cpp-python's answer to a prompt
        over its context. Over a known window it is that; otherwise `EmptyStreamError`
        (retryable, and the retry first asks the server non-streamed)."""
        prompt_tokens = estimate_tokens(self.prompt_chars)
        if self.window and prompt_tokens > self.window:
            raise ContextLengthError(
                f"prompt too long: about {prompt_tokens} tokens for a context window of {self.window} "
                "(the server ended the stream without a word)"
            )
        raise EmptyStreamError("the server ended the stream before its first event", retryable=True)


def _start(slot: _Slot) -> list[ProviderStreamEvent]:
    assert slot.id is not None and slot.name is not None
    slot.started = True
    out: list[ProviderStreamEvent] = [ToolUseStart(id=slot.id, name=slot.name)]
    if slot.buffered:
        out.append(ToolUseInputDelta(id=slot.id, json_delta="".join(slot.buffered)))
        slot.buffered.clear()
    return out


def _close_slots(slots: dict[int, _Slot], synth_id: Callable[[int], str]) -> list[ProviderStreamEvent]:
    """End every tool call in index order; a named call that never got an id gets a
    synthesized one (stable within the response: its chunk id and index)."""
    out: list[ProviderStreamEvent] = []
    for index in sorted(slots):
        slot = slots[index]
        if not slot.started and slot.name:
            slot.id = slot.id or synth_id(index)
            out.extend(_start(slot))
        if slot.started and slot.id:
            out.append(ToolUseEnd(id=slot.id))
    slots.clear()
    return out


def _usage(u: Any) -> Usage:
    if not u:
        return Usage()
    details = u.get("prompt_tokens_details") or {}
    return Usage(
        input_tokens=u.get("prompt_tokens") or 0,
        output_tokens=u.get("completion_tokens") or 0,
        cache_read_tokens=details.get("cached_tokens"),
    )
