"""OpenAIChatProvider: request translation and stream mapping through the real SDK."""

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
    UrlSource,
    user_text,
)
from skawld_core.providers.base import SystemBlock, ToolSchema
from skawld_core.providers.openai_chat import IMAGE_STUB, OpenAIChatProvider, map_finish_reason
from tests.support.provider_kit import collect, make_provider, request, texts, tool_json
from tests.support.wire_server import WireServer, WireUsage, raw_sse, refusal, text, thinking, tool_call, turn

pytestmark = pytest.mark.timeout(20)

IMG = ImageBlock(source=Base64Source(media_type="image/png", data="AAAA"))
DATA_URL = "data:image/png;base64,AAAA"


def params(**kw: Any) -> dict[str, Any]:
    return OpenAIChatProvider(api_key="k").build_params(request(**kw))


def test_system_blocks_joined_with_blank_line() -> None:
    p = params(system=[SystemBlock(text="a"), SystemBlock(text="b", cacheable=False)])
    assert p["messages"][0] == {"role": "system", "content": "a\n\nb"}
    assert params()["messages"][0]["role"] == "user"


def test_tools_in_function_envelope_and_omitted_when_empty() -> None:
    p = params(tools=[ToolSchema(name="Bash", description="run", input_schema={"type": "object"})])
    assert p["tools"] == [
        {"type": "function", "function": {"name": "Bash", "description": "run", "parameters": {"type": "object"}}}
    ]
    assert "tools" not in params()


def test_payload_fields() -> None:
    p = params()
    assert p["stream"] is True and p["stream_options"] == {"include_usage": True}
    assert "max_completion_tokens" not in p and "max_tokens" not in p and "temperature" not in p
    p = params(max_output_tokens=500, temperature=0.0)
    assert p["max_completion_tokens"] == 500 and "max_tokens" not in p and p["temperature"] == 0.0


def test_assistant_text_and_tool_calls_become_one_message_thinking_dropped() -> None:
    msgs = [
        user_text("q"),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="secret", signature="s"),
                TextBlock(text="a"),
                TextBlock(text="b"),
                ToolUseBlock(id="c1", name="Read", input={"path": "x"}),
            ],
        ),
        Message(role="assistant", content=[ToolUseBlock(id="c2", name="Ls", input={})]),
    ]
    got = params(messages=msgs)["messages"]
    assert got[1] == {
        "role": "assistant",
        "content": "ab",
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "Read", "arguments": '{"path":"x"}'}}],
    }
    assert got[2]["content"] is None
    assert "secret" not in json.dumps(got)


def test_tool_results_text_in_tool_message_images_in_follow_up_user_message() -> None:
    msgs = [
        Message(
            role="user",
            content=[
                ToolResultBlock(tool_use_id="c1", content=[TextBlock(text="line1"), TextBlock(text="line2"), IMG]),
                ToolResultBlock(tool_use_id="c2", content=[IMG]),
                ToolResultBlock(tool_use_id="c3", content="plain"),
                TextBlock(text="and also"),
            ],
        )
    ]
    got = params(messages=msgs)["messages"]
    assert got == [
        {"role": "tool", "tool_call_id": "c1", "content": "line1\nline2"},
        {"role": "tool", "tool_call_id": "c2", "content": IMAGE_STUB},
        {"role": "tool", "tool_call_id": "c3", "content": "plain"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Image returned by tool call c1:"},
                {"type": "image_url", "image_url": {"url": DATA_URL}},
                {"type": "text", "text": "Image returned by tool call c2:"},
                {"type": "image_url", "image_url": {"url": DATA_URL}},
            ],
        },
        {"role": "user", "content": "and also"},
    ]


def test_user_text_and_image_become_parts_plain_text_stays_string() -> None:
    msgs = [
        Message(role="user", content=[TextBlock(text="see"), IMG, ImageBlock(source=UrlSource(url="https://i/x.png"))])
    ]
    assert params(messages=msgs)["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "see"},
                {"type": "image_url", "image_url": {"url": DATA_URL}},
                {"type": "image_url", "image_url": {"url": "https://i/x.png"}},
            ],
        }
    ]
    assert params()["messages"] == [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize(
    ("finish", "expected"),
    [
        ("stop", "end_turn"),
        ("tool_calls", "tool_use"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
        ("weird", "error"),
        (None, "error"),
    ],
)
def test_finish_reason_table(finish: str | None, expected: str) -> None:
    assert map_finish_reason(finish) == expected


def test_context_window_precedence() -> None:
    p = OpenAIChatProvider(api_key="k", context_window_override={"my-model": 32_000, "gpt-4o": 1})
    assert p.context_window("my-model") == 32_000
    assert p.context_window("gpt-4o") == 1
    assert p.context_window("gpt-5") == 400_000
    assert p.context_window("gpt-5-mini") == 400_000
    assert p.context_window("gpt-4.1") == 1_000_000
    assert p.context_window("o1") == 200_000
    assert p.context_window("llama3") == 128_000
    assert OpenAIChatProvider(context_window_override=lambda m: 8192).context_window("gpt-5") == 8192


async def test_wire_text_and_parallel_tool_calls(wire: WireServer) -> None:
    wire.chat.enqueue(
        turn(
            text(["Writing ", "it"]),
            tool_call("write_file", {"path": "a.txt", "content": "hi\n"}, id="call_abc", chunk_size=4),
            tool_call("ls", {}, id="call_def"),
            usage=WireUsage(input_tokens=18, output_tokens=20, cache_read_tokens=32),
        )
    )
    p = make_provider("chat", wire)
    events = await collect(p)
    assert texts(events) == "Writing it"
    assert [
        (e.type, getattr(e, "id", None))
        for e in events
        if e.type.startswith("tool_use_") and e.type != "tool_use_input_delta"
    ] == [
        ("tool_use_start", "call_abc"),
        ("tool_use_start", "call_def"),
        ("tool_use_end", "call_abc"),
        ("tool_use_end", "call_def"),
    ]
    assert json.loads(tool_json(events, "call_abc")) == {"path": "a.txt", "content": "hi\n"}
    end = events[-1]
    assert end.type == "message_end" and end.stop_reason == "tool_use"
    assert end.usage.model_dump() == {
        "input_tokens": 50,
        "output_tokens": 20,
        "cache_read_tokens": 32,
        "cache_creation_tokens": None,
    }
    body = wire.chat.last_body
    assert wire.chat.requests[0].path == "/v1/chat/completions"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    await p.aclose()


async def test_wire_id_and_name_arriving_late(wire: WireServer) -> None:
    wire.chat.enqueue(turn(tool_call("Bash", parts=['{"cmd"', ': "ls"}'], id="late1", late_id=True)))
    events = await collect(make_provider("chat", wire))
    kinds = [e.type for e in events]
    assert kinds == [
        "message_start",
        "tool_use_start",
        "tool_use_input_delta",
        "tool_use_input_delta",
        "tool_use_end",
        "message_end",
    ]
    assert tool_json(events, "late1") == '{"cmd": "ls"}'


async def test_wire_refusal_is_text_and_thinking_is_not_emitted(wire: WireServer) -> None:
    wire.chat.enqueue(turn(thinking("hidden"), refusal(["I can't ", "help"]), stop="refusal"))
    events = await collect(make_provider("chat", wire))
    assert texts(events) == "I can't help"
    assert events[-1].type == "message_end" and events[-1].stop_reason == "refusal"


async def test_wire_missing_prompt_tokens_details_is_fine(wire: WireServer) -> None:
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    wire.chat.enqueue(
        raw_sse(
            (None, {**head, "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}]}),
            (None, {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
            (None, {**head, "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}}),
            (None, "[DONE]"),
        )
    )
    end = (await collect(make_provider("chat", wire)))[-1]
    assert end.type == "message_end" and end.stop_reason == "end_turn"
    assert end.usage.model_dump() == {
        "input_tokens": 7,
        "output_tokens": 3,
        "cache_read_tokens": None,
        "cache_creation_tokens": None,
    }


async def test_wire_compatible_server_without_tool_ids_or_usage(wire: WireServer) -> None:
    """vLLM/Ollama-style: a tool call with no id, and no usage chunk."""
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    call = {"index": 0, "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    wire.chat.enqueue(
        raw_sse(
            (None, {**head, "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}]}),
            (None, {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            (None, "[DONE]"),
        )
    )
    events = await collect(make_provider("chat", wire))
    assert [e.type for e in events] == [
        "message_start",
        "tool_use_start",
        "tool_use_input_delta",
        "tool_use_end",
        "message_end",
    ]
    assert events[1].id == "call_0" and events[-1].usage.input_tokens == 0


async def test_wire_reasoning_content_from_compatible_servers_is_thinking(wire: WireServer) -> None:
    head = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    wire.chat.enqueue(
        raw_sse(
            (None, {**head, "choices": [{"index": 0, "delta": {"reasoning_content": "hmm "}, "finish_reason": None}]}),
            (None, {**head, "choices": [{"index": 0, "delta": {"reasoning": "ok"}, "finish_reason": None}]}),
            (None, {**head, "choices": [{"index": 0, "delta": {"content": "answer"}, "finish_reason": "stop"}]}),
            (None, "[DONE]"),
        )
    )
    events = await collect(make_provider("chat", wire))
    assert [(e.type, getattr(e, "text", None)) for e in events[1:-1]] == [
        ("thinking_delta", "hmm "),
        ("thinking_delta", "ok"),
        ("text_delta", "answer"),
    ]
