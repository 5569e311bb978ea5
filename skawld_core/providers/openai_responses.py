"""OpenAI Responses API provider (streaming).

Chaining: when the **last assistant message** of the request carries
``provider_metadata["openai_responses"]["response_id"]`` (and chaining is not disabled),
that id is sent as ``previous_response_id`` and only the messages after it are sent.
Compaction strips the id, so a compacted view is always sent in full. With
``store=False`` (or ``chaining="disabled"``) requests are stateless and ask for
``reasoning.encrypted_content`` so reasoning items can be replayed from ``output_items``.

The default ``transport="http"`` posts the JSON itself on asyncio streams (see `wire`;
``transport="httpx"`` carries it on ``httpx2``); with
``transport="sdk"`` requests go through the SDK client's generic ``post`` (see
`open_wire_stream`).
Replayed assistant messages use their raw ``output_items`` when present. Thinking
blocks are never sent. Reasoning summaries stream as thinking; refusals as text.
``error`` events and ``response.failed`` raise typed errors; a stream with no
``response.completed`` / ``incomplete`` / ``failed`` is a retryable `ProviderError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ..errors import ProviderError
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
from .common import (
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_TIMEOUT,
    documents_as_text,
    dump_json,
    image_url,
    metadata,
)
from .errors_map import stream_error
from .http_transport import OPENAI_DEFAULT_BASE, openai_headers
from .openai_common import ENV_VAR, known_context_window, make_client, open_wire_stream
from .retry import RetryPolicy, StreamMapper
from .wire import Transport, WireProvider

NAMESPACE = "openai_responses"
Chaining = Literal["auto", "disabled"]
_EFFORT_MAP = {"max": "xhigh"}


def _content_part(block: TextBlock | ImageBlock) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "input_text", "text": block.text}
    return {"type": "input_image", "image_url": image_url(block)}


def _user_items(message: Message) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, ToolResultBlock):
            output: Any
            result_parts = [] if isinstance(block.content, str) else documents_as_text(block.content)
            if isinstance(block.content, str):
                output = block.content
            elif any(isinstance(p, ImageBlock) for p in result_parts):
                output = [_content_part(p) for p in result_parts]
            else:
                output = "\n".join(p.text for p in result_parts if isinstance(p, TextBlock))
            items.append({"type": "function_call_output", "call_id": block.tool_use_id, "output": output})
        elif isinstance(block, (TextBlock, ImageBlock)):
            parts.append(_content_part(block))
    if parts:
        items.append({"type": "message", "role": "user", "content": parts})
    return items


def _assistant_items(message: Message) -> list[dict[str, Any]]:
    raw = metadata(message, NAMESPACE).get("output_items")
    if raw:
        return [dict(item) for item in raw]
    items: list[dict[str, Any]] = []
    texts = [{"type": "output_text", "text": b.text} for b in message.content if isinstance(b, TextBlock) and b.text]
    if texts:
        items.append({"type": "message", "role": "assistant", "content": texts})
    items.extend(
        {"type": "function_call", "call_id": b.id, "name": b.name, "arguments": dump_json(b.input)}
        for b in message.content
        if isinstance(b, ToolUseBlock)
    )
    return items


def translate_input(messages: list[Message]) -> list[dict[str, Any]]:
    """Skawld messages as Responses ``input`` items."""
    items: list[dict[str, Any]] = []
    for message in messages:
        items.extend(_assistant_items(message) if message.role == "assistant" else _user_items(message))
    return items


def chain_point(messages: list[Message]) -> tuple[str | None, list[Message]]:
    """``(previous_response_id, messages to send)``: chain only from the last assistant message."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant":
            rid = metadata(messages[i], NAMESPACE).get("response_id")
            if isinstance(rid, str) and rid:
                return rid, messages[i + 1 :]
            break
    return None, messages


def derive_stop_reason(status: str | None, incomplete_reason: str | None, saw_function_call: bool) -> StopReason:
    """completed → tool_use / end_turn; incomplete → max_tokens / refusal / error; else error."""
    if status == "completed":
        return "tool_use" if saw_function_call else "end_turn"
    if status == "incomplete":
        if incomplete_reason == "max_output_tokens":
            return "max_tokens"
        if incomplete_reason == "content_filter":
            return "refusal"
    return "error"


class OpenAIResponsesProvider(WireProvider):
    """Streams turns from the OpenAI Responses API.

    Args:
        api_key: explicit key; otherwise ``$OPENAI_API_KEY`` (checked in `stream`).
        base_url: API root including ``/v1``.
        timeout / connect_timeout: seconds (read timeout applies per read).
        default_headers: extra headers on every request.
        store: sent as ``store`` when set; ``False`` also makes requests stateless.
        chaining: ``"auto"`` (default unless ``store=False``) or ``"disabled"``.
        reasoning: an effort string or ``{"effort", "summary"}``; a request's ``effort`` wins.
        encrypted_content: in stateless mode, ask for encrypted reasoning (default True).
        retry_policy: backoff parameters (inject ``sleep`` in tests).
        transport: ``"http"`` (default, no SDK import) or ``"sdk"`` (the ``openai`` client).
    """

    id = "openai-responses"
    env_var = ENV_VAR
    vendor = "OpenAI"
    base_url_env = "OPENAI_BASE_URL"
    default_base_url = OPENAI_DEFAULT_BASE
    api_path = "/responses"
    sse_dialect = "openai"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        default_headers: Mapping[str, str] | None = None,
        store: bool | None = None,
        chaining: Chaining | None = None,
        reasoning: str | Mapping[str, Any] | None = None,
        encrypted_content: bool = True,
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
        self.store = store
        self.chaining: Chaining = chaining or ("disabled" if store is False else "auto")
        self.reasoning = reasoning
        self.encrypted_content = encrypted_content

    def context_window(self, model: str) -> int:
        """Configured / discovered first, then the known-model table, else 128k."""
        return self.window_hint(model) or known_context_window(model)

    def _reasoning(self, request: ProviderRequest) -> dict[str, Any] | None:
        opt = self.reasoning
        out: dict[str, Any] = {"effort": opt} if isinstance(opt, str) else dict(opt or {})
        out = {k: v for k, v in out.items() if k in ("effort", "summary") and v is not None}
        if request.effort is not None:
            out["effort"] = _EFFORT_MAP.get(request.effort, request.effort)
        return out or None

    def build_params(self, request: ProviderRequest) -> dict[str, Any]:
        """Keyword arguments for ``responses.create`` (``stream`` included)."""
        previous: str | None = None
        messages = request.messages
        if self.chaining == "auto":
            previous, messages = chain_point(messages)
        params: dict[str, Any] = {"model": request.model, "input": translate_input(messages), "stream": True}
        instructions = "\n\n".join(b.text for b in request.system if b.text)
        if instructions:
            params["instructions"] = instructions
        if previous:
            params["previous_response_id"] = previous
        if request.tools:
            params["tools"] = [
                {"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema}
                for t in request.tools
            ]
        if self.chaining == "disabled" and self.encrypted_content:
            params["include"] = ["reasoning.encrypted_content"]
        reasoning = self._reasoning(request)
        if reasoning:
            params["reasoning"] = reasoning
        if request.max_output_tokens is not None:
            params["max_output_tokens"] = request.max_output_tokens
        if request.temperature is not None:
            params["temperature"] = request.temperature
        if self.store is not None:
            params["store"] = self.store
        return params

    def _http_headers(self, key: str) -> dict[str, str]:
        return openai_headers(key, self.default_headers)

    def _make_sdk_client(self, key: str) -> Any:
        return make_client(key, self.base_url, self.timeout, self.connect_timeout, self.default_headers)

    def _new_mapper(self, key: str, params: dict[str, Any]) -> StreamMapper:
        return ResponsesMapper(key)

    async def _open_sdk(self, client: Any, params: dict[str, Any]) -> Any:
        return await open_wire_stream(client, "/responses", params)


def _dump(item: Any) -> dict[str, Any]:
    """An output item for replay: the wire object without top-level nulls."""
    return {k: v for k, v in dict(item).items() if v is not None}


class _Summaries:
    """De-duplicates reasoning summaries: deltas win; ``done`` forms fill the gaps once."""

    def __init__(self) -> None:
        self.seen: set[tuple[str, int]] = set()

    def emit(self, item_id: str, index: int, text: str, *, delta: bool) -> ThinkingDelta | None:
        key = (item_id, index)
        if delta:
            self.seen.add(key)
            return ThinkingDelta(text=text) if text else None
        if key in self.seen or not text:
            return None
        self.seen.add(key)
        return ThinkingDelta(text=text)

    def from_item(self, item: dict[str, Any]) -> list[ThinkingDelta]:
        out: list[ThinkingDelta] = []
        for i, part in enumerate(item.get("summary") or []):
            ev = self.emit(str(item.get("id")), i, (part or {}).get("text") or "", delta=False)
            if ev is not None:
                out.append(ev)
        return out


class ResponsesMapper:
    """Normalizes Responses stream events (wire JSON) for one attempt."""

    def __init__(self, key: str = "") -> None:
        self.key = key
        self.calls: dict[str, str] = {}  # item id → call id
        self.open_calls: set[str] = set()
        self.saw_function_call = False
        self.summaries = _Summaries()
        self.final: dict[str, Any] | None = None

    def feed(self, ev: Any) -> ProviderStreamEvent | list[ProviderStreamEvent] | None:
        """The normalized event(s) for one wire event."""
        kind = ev.get("type")
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            delta = ev.get("delta")
            return TextDelta(text=delta) if delta else None
        if kind == "response.function_call_arguments.delta":
            cid = self.calls.get(ev.get("item_id", ""))
            delta = ev.get("delta")
            return ToolUseInputDelta(id=cid, json_delta=delta) if cid is not None and delta else None
        if kind == "response.reasoning_summary_text.delta":
            return self.summaries.emit(
                ev.get("item_id", ""), ev.get("summary_index", 0), ev.get("delta") or "", delta=True
            )
        if kind == "response.reasoning_summary_text.done":
            return self.summaries.emit(
                ev.get("item_id", ""), ev.get("summary_index", 0), ev.get("text") or "", delta=False
            )
        if kind == "response.reasoning_summary_part.done":
            text = (ev.get("part") or {}).get("text") or ""
            return self.summaries.emit(ev.get("item_id", ""), ev.get("summary_index", 0), text, delta=False)
        if kind == "response.output_item.added":
            return self._item_added(ev.get("item") or {})
        if kind == "response.output_item.done":
            item = ev.get("item") or {}
            itype = item.get("type")
            if itype == "function_call":
                call_id = item.get("call_id")
                if call_id in self.open_calls:
                    self.open_calls.discard(call_id)
                    return ToolUseEnd(id=call_id)
            elif itype == "reasoning":
                return list(self.summaries.from_item(item)) or None
            return None
        if kind in ("response.completed", "response.incomplete", "response.failed"):
            if self.final is None:
                self.final = ev.get("response") or {}
            return None
        if kind == "error":
            raise stream_error(None, ev.get("code"), ev.get("message"), vendor="OpenAI", secrets=(self.key,))
        return None

    def _item_added(self, item: dict[str, Any]) -> list[ProviderStreamEvent] | None:
        if item.get("type") != "function_call":
            return None
        call_id = item["call_id"]
        self.saw_function_call = True
        self.calls[item.get("id") or call_id] = call_id
        self.open_calls.add(call_id)
        out: list[ProviderStreamEvent] = [ToolUseStart(id=call_id, name=item["name"])]
        if item.get("arguments"):
            out.append(ToolUseInputDelta(id=call_id, json_delta=item["arguments"]))
        return out

    def finish(self) -> list[ProviderStreamEvent]:
        """Closing events and `MessageEnd`; raises on ``failed`` or a missing final event."""
        final = self.final
        if final is None:
            raise ProviderError("OpenAI responses stream ended before response.completed", retryable=True)
        status = final.get("status")
        if status == "failed":
            err = final.get("error") or {}
            raise stream_error(
                "response_failed",
                err.get("code") or "server_error",
                err.get("message") or "response failed",
                vendor="OpenAI",
                secrets=(self.key,),
            )
        output: list[dict[str, Any]] = final.get("output") or []
        out: list[ProviderStreamEvent] = []
        for item in output:
            itype = item.get("type")
            if itype == "reasoning":
                out.extend(self.summaries.from_item(item))
            elif itype == "function_call" and item.get("call_id") in self.open_calls:
                self.open_calls.discard(item["call_id"])
                out.append(ToolUseEnd(id=item["call_id"]))
        out.extend(ToolUseEnd(id=cid) for cid in sorted(self.open_calls))
        self.open_calls.clear()
        incomplete = final.get("incomplete_details") or {}
        stop = derive_stop_reason(status, incomplete.get("reason"), self.saw_function_call)
        u = final.get("usage")
        usage = Usage()
        if u:
            details = u.get("input_tokens_details") or {}
            usage = Usage(
                input_tokens=u.get("input_tokens") or 0,
                output_tokens=u.get("output_tokens") or 0,
                cache_read_tokens=details.get("cached_tokens"),
            )
        meta: dict[str, Any] = {"response_id": final.get("id"), "output_items": [_dump(i) for i in output]}
        out.append(MessageEnd(stop_reason=stop, usage=usage, provider_metadata={NAMESPACE: meta}))
        return out
