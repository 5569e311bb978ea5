"""Renderers: a scripted `Turn` as Anthropic Messages, Chat Completions or Responses SSE frames."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .wire_profiles import OPENAI, ChatProfile
from .wire_script import Redacted, Refusal, Text, Thinking, ToolCall, Turn, _sse

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    408: "timeout_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass
class Rendered:
    """Frames of a turn, with how many trailing frames are the terminal ones."""

    frames: list[bytes]
    terminal: int


def render_anthropic(t: Turn, model: str) -> Rendered:
    """Anthropic Messages SSE frames (every frame has an ``event:`` line)."""
    u = t.usage
    msg_id = t.response_id or "msg_01"
    f: list[bytes] = [
        _sse(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": model,
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": u.input_tokens,
                        "cache_creation_input_tokens": u.cache_creation_tokens,
                        "cache_read_input_tokens": u.cache_read_tokens,
                        "output_tokens": 1,
                    },
                },
            },
        )
    ]
    for i, p in enumerate(t.parts):

        def delta(d: dict[str, Any], i: int = i) -> bytes:
            return _sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": d})

        if isinstance(p, (Text, Refusal)):
            f.append(
                _sse(
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                )
            )
            f.extend(delta({"type": "text_delta", "text": s}) for s in p.parts)
        elif isinstance(p, Thinking):
            f.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                    },
                )
            )
            f.extend(delta({"type": "thinking_delta", "thinking": s}) for s in p.parts)
            if p.signature is not None:
                f.append(delta({"type": "signature_delta", "signature": p.signature}))
        elif isinstance(p, Redacted):
            f.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "redacted_thinking", "data": p.data},
                    },
                )
            )
        else:
            f.append(
                _sse(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "tool_use", "id": p.id, "name": p.name, "input": {}},
                    },
                )
            )
            f.append(delta({"type": "input_json_delta", "partial_json": ""}))
            f.extend(delta({"type": "input_json_delta", "partial_json": s}) for s in p.parts)
        f.append(_sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    f.append(
        _sse(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": t.stop_reason, "stop_sequence": None},
                "usage": {
                    "output_tokens": u.output_tokens,
                    "input_tokens": u.input_tokens,
                    "cache_creation_input_tokens": u.cache_creation_tokens,
                    "cache_read_input_tokens": u.cache_read_tokens,
                },
            },
        )
    )
    f.append(_sse("message_stop", {"type": "message_stop"}))
    return Rendered(f, 2)


def anthropic_error_event(t: Turn) -> bytes:
    return _sse("error", {"type": "error", "error": {"type": t.error_type, "message": t.error_message}})


_CHAT_FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length", "refusal": "content_filter"}


def render_chat(t: Turn, model: str, profile: ChatProfile = OPENAI, include_usage: bool = True) -> Rendered:
    """Chat Completions chunks (bare ``data:`` frames, ``[DONE]`` at the end), shaped by
    a compatible server's `ChatProfile`; ``include_usage`` is what the request asked."""
    cid = t.response_id or "chatcmpl-1"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return _sse(
            None,
            {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": 1700000000,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
                "usage": None,
            },
        )

    def call(index: int, fields: dict[str, Any]) -> dict[str, Any]:
        out = dict(fields)
        if profile.tool_index:
            out = {"index": index, **out}
        if not profile.tool_ids:
            out.pop("id", None)
        return out

    f = [chunk({"role": "assistant", "content": "", "refusal": None})]
    tool_index = 0
    for p in t.parts:
        if isinstance(p, Text):
            f.extend(chunk({"content": s}) for s in p.parts)
        elif isinstance(p, Refusal):
            f.extend(chunk({"refusal": s}) for s in p.parts)
        elif isinstance(p, Thinking) and profile.reasoning_field:
            f.extend(chunk({profile.reasoning_field: s}) for s in p.parts)
        elif isinstance(p, ToolCall):
            whole = "".join(p.parts)
            if profile.tool_calls_whole or profile.args_as_object:
                args: Any = json.loads(whole) if profile.args_as_object else whole
                fields = {"id": p.id, "type": "function", "function": {"name": p.name, "arguments": args}}
                f.append(chunk({"tool_calls": [call(tool_index, fields)]}))
                tool_index += 1
                continue
            head = {"id": p.id, "type": "function", "function": {"name": p.name, "arguments": ""}}
            pieces = list(p.parts)
            if p.late_id and pieces:
                f.append(chunk({"tool_calls": [call(tool_index, {"function": {"arguments": pieces.pop(0)}})]}))
            f.append(chunk({"tool_calls": [call(tool_index, head)]}))
            f.extend(chunk({"tool_calls": [call(tool_index, {"function": {"arguments": s}})]}) for s in pieces)
            tool_index += 1
    u = t.usage
    prompt = u.input_tokens + u.cache_read_tokens + u.cache_creation_tokens
    finish = _CHAT_FINISH.get(t.stop_reason, t.stop_reason)
    if finish == "tool_calls":
        finish = profile.finish_after_tools
    f.append(chunk({}, finish))
    send_usage = profile.usage == "always" or (profile.usage == "stream_options" and include_usage)
    if send_usage:
        f.append(
            _sse(
                None,
                {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": 1700000000,
                    "model": model,
                    "choices": [],
                    "usage": {
                        "prompt_tokens": prompt,
                        "completion_tokens": u.output_tokens,
                        "total_tokens": prompt + u.output_tokens,
                        "prompt_tokens_details": {"cached_tokens": u.cache_read_tokens},
                        "completion_tokens_details": {"reasoning_tokens": 0},
                    },
                },
            )
        )
    f.append(_sse(None, "[DONE]"))
    return Rendered(f, 3 if send_usage else 2)


def chat_error_event(t: Turn) -> bytes:
    return _sse(None, {"error": {"message": t.error_message, "type": t.error_type, "param": None, "code": None}})


def render_responses(t: Turn, model: str) -> Rendered:
    """Responses API SSE frames (``event:`` lines, ends with ``response.completed``/``incomplete``)."""
    rid = t.response_id or "resp_1"
    seq = 0
    f: list[bytes] = []

    def ev(kind: str, **data: Any) -> None:
        nonlocal seq
        f.append(_sse(kind, {"type": kind, "sequence_number": seq, **data}))
        seq += 1

    def response(status: str, output: list[Any], usage: Any = None, incomplete: Any = None) -> dict[str, Any]:
        return {
            "id": rid,
            "object": "response",
            "created_at": 1700000000,
            "model": model,
            "status": status,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "incomplete_details": incomplete,
            "error": None,
            "usage": usage,
        }

    ev("response.created", response=response("in_progress", []))
    ev("response.in_progress", response=response("in_progress", []))
    output: list[dict[str, Any]] = []
    for oi, p in enumerate(t.parts):
        if isinstance(p, Thinking):
            item_id = f"rs_{oi}"
            ev("response.output_item.added", output_index=oi, item={"id": item_id, "type": "reasoning", "summary": []})
            ev(
                "response.reasoning_summary_part.added",
                item_id=item_id,
                output_index=oi,
                summary_index=0,
                part={"type": "summary_text", "text": ""},
            )
            for s in p.parts:
                ev("response.reasoning_summary_text.delta", item_id=item_id, output_index=oi, summary_index=0, delta=s)
            full = "".join(p.parts)
            ev("response.reasoning_summary_text.done", item_id=item_id, output_index=oi, summary_index=0, text=full)
            item = {"id": item_id, "type": "reasoning", "summary": [{"type": "summary_text", "text": full}]}
            ev("response.output_item.done", output_index=oi, item=item)
            output.append(item)
        elif isinstance(p, (Text, Refusal)):
            item_id = f"msg_{oi}"
            is_refusal = isinstance(p, Refusal)
            ev(
                "response.output_item.added",
                output_index=oi,
                item={"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []},
            )
            part0 = (
                {"type": "refusal", "refusal": ""}
                if is_refusal
                else {"type": "output_text", "text": "", "annotations": []}
            )
            ev("response.content_part.added", item_id=item_id, output_index=oi, content_index=0, part=part0)
            kind = "response.refusal.delta" if is_refusal else "response.output_text.delta"
            for s in p.parts:
                extra = {} if is_refusal else {"logprobs": []}
                ev(kind, item_id=item_id, output_index=oi, content_index=0, delta=s, **extra)
            full = "".join(p.parts)
            done_part = (
                {"type": "refusal", "refusal": full}
                if is_refusal
                else {"type": "output_text", "text": full, "annotations": []}
            )
            ev("response.content_part.done", item_id=item_id, output_index=oi, content_index=0, part=done_part)
            item = {
                "id": item_id,
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [done_part],
            }
            ev("response.output_item.done", output_index=oi, item=item)
            output.append(item)
        elif isinstance(p, ToolCall):
            item_id = f"fc_{oi}"
            base = {"id": item_id, "type": "function_call", "call_id": p.id, "name": p.name}
            ev("response.output_item.added", output_index=oi, item={**base, "arguments": "", "status": "in_progress"})
            for s in p.parts:
                ev("response.function_call_arguments.delta", item_id=item_id, output_index=oi, delta=s)
            args = "".join(p.parts)
            ev("response.function_call_arguments.done", item_id=item_id, output_index=oi, arguments=args)
            item = {**base, "arguments": args, "status": "completed"}
            ev("response.output_item.done", output_index=oi, item=item)
            output.append(item)
    u = t.usage
    prompt = u.input_tokens + u.cache_read_tokens + u.cache_creation_tokens
    usage = {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": u.cache_read_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": prompt + u.output_tokens,
    }
    if t.stop_reason == "max_tokens":
        ev("response.incomplete", response=response("incomplete", output, usage, {"reason": "max_output_tokens"}))
    elif t.stop_reason == "refusal":
        ev("response.incomplete", response=response("incomplete", output, usage, {"reason": "content_filter"}))
    else:
        ev("response.completed", response=response("completed", output, usage))
    return Rendered(f, 1)


def responses_error_event(t: Turn) -> bytes:
    return _sse(
        "error",
        {"type": "error", "code": t.error_type, "message": t.error_message, "param": None, "sequence_number": 0},
    )
