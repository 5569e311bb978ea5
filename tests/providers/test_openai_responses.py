"""OpenAIResponsesProvider: translation, chaining and stream mapping through the real SDK."""

from __future__ import annotations

import json
from typing import Any

import pytest

from skawld_core.messages import (
    Base64Source,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from skawld_core.providers.base import SystemBlock, ToolSchema
from skawld_core.providers.openai_responses import OpenAIResponsesProvider, derive_stop_reason
from tests.support.provider_kit import collect, make_provider, request, texts, tool_json
from tests.support.wire_server import WireServer, WireUsage, raw_sse, refusal, text, thinking, tool_call, turn

pytestmark = pytest.mark.timeout(20)

IMG = ImageBlock(source=Base64Source(media_type="image/png", data="AAAA"))
DATA_URL = "data:image/png;base64,AAAA"


def params(provider: OpenAIResponsesProvider | None = None, **kw: Any) -> dict[str, Any]:
    return (provider or OpenAIResponsesProvider(api_key="k")).build_params(request(**kw))


def assistant(*blocks: Any, rid: str | None = None, items: list[Any] | None = None) -> Message:
    meta: dict[str, Any] = {}
    if rid:
        meta["response_id"] = rid
    if items is not None:
        meta["output_items"] = items
    return Message(
        role="assistant", content=list(blocks), provider_metadata={"openai_responses": meta} if meta else None
    )


def test_flat_tools_instructions_and_optional_fields() -> None:
    p = params(
        system=[SystemBlock(text="a"), SystemBlock(text="b")],
        tools=[ToolSchema(name="Bash", description="run", input_schema={"type": "object"})],
    )
    assert p["instructions"] == "a\n\nb"
    assert p["tools"] == [{"type": "function", "name": "Bash", "description": "run", "parameters": {"type": "object"}}]
    assert p["stream"] is True
    for key in ("previous_response_id", "reasoning", "max_output_tokens", "temperature", "store", "include"):
        assert key not in p
    assert "instructions" not in params()
    p = params(max_output_tokens=100, temperature=0.5)
    assert p["max_output_tokens"] == 100 and p["temperature"] == 0.5


def test_input_items_translation() -> None:
    msgs = [
        Message(role="user", content=[TextBlock(text="look"), IMG]),
        assistant(
            ThinkingBlock(thinking="private"), TextBlock(text="ok"), ToolUseBlock(id="c1", name="Read", input={"p": 1})
        ),
        Message(
            role="user",
            content=[
                ToolResultBlock(tool_use_id="c1", content="text out"),
                ToolResultBlock(tool_use_id="c2", content=[TextBlock(text="shot:"), IMG]),
                ToolResultBlock(tool_use_id="c3", content=[TextBlock(text="a"), TextBlock(text="b")]),
            ],
        ),
    ]
    got = params(messages=msgs)["input"]
    assert got == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "look"}, {"type": "input_image", "image_url": DATA_URL}],
        },
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]},
        {"type": "function_call", "call_id": "c1", "name": "Read", "arguments": '{"p":1}'},
        {"type": "function_call_output", "call_id": "c1", "output": "text out"},
        {
            "type": "function_call_output",
            "call_id": "c2",
            "output": [{"type": "input_text", "text": "shot:"}, {"type": "input_image", "image_url": DATA_URL}],
        },
        {"type": "function_call_output", "call_id": "c3", "output": "a\nb"},
    ]
    assert "private" not in json.dumps(got)


def test_raw_output_items_are_replayed_when_not_chaining() -> None:
    items = [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "ENC"},
        {"type": "message", "id": "m1"},
    ]
    prov = OpenAIResponsesProvider(api_key="k", store=False)
    got = params(
        prov, messages=[user_text("q"), assistant(TextBlock(text="x"), rid="resp_1", items=items), user_text("next")]
    )
    assert got["input"][1:3] == items
    assert "previous_response_id" not in got
    assert got["include"] == ["reasoning.encrypted_content"] and got["store"] is False


def test_chaining_sends_only_messages_after_the_last_response() -> None:
    msgs = [
        user_text("one"),
        assistant(TextBlock(text="r1"), rid="resp_1"),
        user_text("two"),
        assistant(ToolUseBlock(id="c9", name="Ls", input={}), rid="resp_2"),
        Message(role="user", content=[ToolResultBlock(tool_use_id="c9", content="files")]),
    ]
    p = params(messages=msgs)
    assert p["previous_response_id"] == "resp_2"
    assert p["input"] == [{"type": "function_call_output", "call_id": "c9", "output": "files"}]


def test_no_chaining_when_last_assistant_message_has_no_response_id() -> None:
    msgs = [
        user_text("one"),
        assistant(TextBlock(text="r1"), rid="resp_1"),
        user_text("two"),
        assistant(TextBlock(text="r2")),
        user_text("three"),
    ]
    p = params(messages=msgs)
    assert "previous_response_id" not in p
    assert len(p["input"]) == 5
    # compaction strips ids: a summary view is sent whole
    assert "previous_response_id" not in params(messages=[user_text("<summary of earlier conversation>\n\n...")])


def test_chaining_disabled_option() -> None:
    prov = OpenAIResponsesProvider(api_key="k", chaining="disabled", encrypted_content=False)
    p = params(prov, messages=[user_text("q"), assistant(TextBlock(text="a"), rid="resp_1"), user_text("n")])
    assert "previous_response_id" not in p and "include" not in p and len(p["input"]) == 3


def test_reasoning_option_and_effort() -> None:
    assert params(OpenAIResponsesProvider(api_key="k", reasoning="high"))["reasoning"] == {"effort": "high"}
    prov = OpenAIResponsesProvider(api_key="k", reasoning={"effort": "low", "summary": "auto"})
    assert params(prov)["reasoning"] == {"effort": "low", "summary": "auto"}
    assert params(prov, effort="max")["reasoning"] == {"effort": "xhigh", "summary": "auto"}


@pytest.mark.parametrize(
    ("status", "reason", "calls", "expected"),
    [
        ("completed", None, False, "end_turn"),
        ("completed", None, True, "tool_use"),
        ("incomplete", "max_output_tokens", False, "max_tokens"),
        ("incomplete", "content_filter", False, "refusal"),
        ("incomplete", "other", False, "error"),
        ("failed", None, False, "error"),
    ],
)
def test_derive_stop_reason(status: str, reason: str | None, calls: bool, expected: str) -> None:
    assert derive_stop_reason(status, reason, calls) == expected


def test_context_window() -> None:
    p = OpenAIResponsesProvider(api_key="k")
    assert p.context_window("gpt-5") == 400_000 and p.context_window("something") == 128_000


async def test_wire_text_function_call_usage_and_metadata(wire: WireServer) -> None:
    wire.responses.enqueue(
        turn(
            thinking(["I should ", "list."]),
            text(["Listing ", "files"]),
            tool_call("ls", {"path": "."}, id="call_1", chunk_size=2),
            usage=WireUsage(input_tokens=10, output_tokens=5, cache_read_tokens=90),
            response_id="resp_abc",
        )
    )
    p = make_provider("responses", wire)
    events = await collect(p)
    assert [e.text for e in events if e.type == "thinking_delta"] == ["I should ", "list."]
    assert texts(events) == "Listing files"
    assert json.loads(tool_json(events, "call_1")) == {"path": "."}
    kinds = [e.type for e in events]
    assert kinds.index("tool_use_start") < kinds.index("tool_use_end") < kinds.index("message_end")
    end = events[-1]
    assert end.type == "message_end" and end.stop_reason == "tool_use"
    assert end.usage.model_dump() == {
        "input_tokens": 100,
        "output_tokens": 5,
        "cache_read_tokens": 90,
        "cache_creation_tokens": None,
    }
    meta = end.provider_metadata["openai_responses"]  # type: ignore[index]
    assert meta["response_id"] == "resp_abc"
    assert [i["type"] for i in meta["output_items"]] == ["reasoning", "message", "function_call"]
    assert wire.responses.requests[0].path == "/v1/responses"

    # next turn chains on the id and sends only the tool result
    history = [
        user_text("hi"),
        Message(
            role="assistant",
            content=[ToolUseBlock(id="call_1", name="ls", input={"path": "."})],
            provider_metadata=end.provider_metadata,
        ),
        Message(role="user", content=[ToolResultBlock(tool_use_id="call_1", content="a.txt")]),
    ]
    wire.responses.enqueue(turn(text("done")))
    await collect(p, request(history))
    body = wire.responses.last_body
    assert body["previous_response_id"] == "resp_abc"
    assert body["input"] == [{"type": "function_call_output", "call_id": "call_1", "output": "a.txt"}]
    await p.aclose()


async def test_wire_refusal_and_incomplete(wire: WireServer) -> None:
    wire.responses.enqueue(turn(refusal("no can do"), stop="refusal"), turn(text("cut"), stop="max_tokens"))
    p = make_provider("responses", wire)
    events = await collect(p)
    assert texts(events) == "no can do" and events[-1].stop_reason == "refusal"  # type: ignore[union-attr]
    events = await collect(p)
    assert events[-1].stop_reason == "max_tokens"  # type: ignore[union-attr]


def _frame(kind: str, **data: Any) -> tuple[str, dict[str, Any]]:
    return (kind, {"type": kind, "sequence_number": 0, **data})


def _completed(output: list[Any]) -> tuple[str, dict[str, Any]]:
    return _frame(
        "response.completed",
        response={
            "id": "r",
            "object": "response",
            "created_at": 1,
            "model": "m",
            "status": "completed",
            "output": output,
            "usage": None,
        },
    )


async def test_summary_without_deltas_emitted_once_from_done_events(wire: WireServer) -> None:
    item = {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Because."}]}
    wire.responses.enqueue(
        raw_sse(
            _frame(
                "response.output_item.added", output_index=0, item={"id": "rs_1", "type": "reasoning", "summary": []}
            ),
            _frame(
                "response.reasoning_summary_text.done", item_id="rs_1", output_index=0, summary_index=0, text="Because."
            ),
            _frame(
                "response.reasoning_summary_part.done",
                item_id="rs_1",
                output_index=0,
                summary_index=0,
                part={"type": "summary_text", "text": "Because."},
            ),
            _frame("response.output_item.done", output_index=0, item=item),
            _completed([item]),
        )
    )
    events = await collect(make_provider("responses", wire))
    assert [e.text for e in events if e.type == "thinking_delta"] == ["Because."]


async def test_summary_only_in_completed_output(wire: WireServer) -> None:
    item = {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Late."}]}
    wire.responses.enqueue(raw_sse(_completed([item])))
    events = await collect(make_provider("responses", wire))
    assert [e.text for e in events if e.type == "thinking_delta"] == ["Late."]
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


async def test_response_failed_raises_typed_error(wire: WireServer) -> None:
    from skawld_core.errors import ProviderError, RateLimitError

    failed = {"id": "r", "object": "response", "created_at": 1, "model": "m", "status": "failed", "output": []}
    wire.responses.enqueue(
        raw_sse(
            _frame("response.failed", response={**failed, "error": {"code": "rate_limit_exceeded", "message": "slow"}})
        ),
        raw_sse(_frame("response.failed", response={**failed, "error": {"code": "invalid_prompt", "message": "nope"}})),
    )
    p = make_provider("responses", wire)
    with pytest.raises(RateLimitError):
        await collect(p, request(max_retries=0))
    with pytest.raises(ProviderError) as info:
        await collect(p, request(max_retries=0))
    assert not info.value.retryable and "nope" in str(info.value)
