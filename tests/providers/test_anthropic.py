"""AnthropicProvider: request translation and stream mapping through the real SDK."""

from __future__ import annotations

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
from skawld_core.providers.anthropic import AnthropicProvider, map_stop_reason
from skawld_core.providers.base import SystemBlock, ThinkingConfig, ToolSchema
from tests.support import provider_kit
from tests.support.provider_kit import collect, make_provider, request, tool_json
from tests.support.wire_server import (
    WireServer,
    WireUsage,
    raw_sse,
    redacted_thinking,
    text,
    thinking,
    tool_call,
    turn,
)

pytestmark = pytest.mark.timeout(20)

IMG = ImageBlock(source=Base64Source(media_type="image/png", data="iVBORw0K"))


def provider(**kw: object) -> AnthropicProvider:
    kw.setdefault("transport", provider_kit.TRANSPORT)
    return AnthropicProvider(api_key="sk-test", **kw)  # type: ignore[arg-type]


def params(**kw: object) -> dict[str, object]:
    return provider().build_params(request(**kw))


# ------------------------------------------------------------------ translation


def test_system_breakpoint_on_last_cacheable_block_only() -> None:
    sys_blocks = [
        SystemBlock(text="a"),
        SystemBlock(text="b"),
        SystemBlock(text="c", cacheable=False),
    ]
    p = params(system=sys_blocks)
    assert p["system"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "c"},
    ]


def test_no_cacheable_system_block_means_no_cache_control() -> None:
    p = params(system=[SystemBlock(text="a", cacheable=False)], cache_prompt=False)
    assert "cache_control" not in str(p)


def test_tools_never_carry_cache_control() -> None:
    tools = [ToolSchema(name="Bash", description="run", input_schema={"type": "object"})]
    p = params(tools=tools)
    assert p["tools"] == [{"name": "Bash", "description": "run", "input_schema": {"type": "object"}}]


def test_conversation_breakpoint_on_last_block_of_last_user_message() -> None:
    msgs = [
        user_text("first"),
        Message(role="assistant", content=[ToolUseBlock(id="t1", name="Bash", input={"cmd": "ls"})]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content="out"), TextBlock(text="more")]),
    ]
    p = params(messages=msgs, system=[SystemBlock(text="s")])
    blocks = p["messages"]  # type: ignore[index]
    assert "cache_control" not in blocks[0]["content"][0]
    assert blocks[2]["content"][-1] == {"type": "text", "text": "more", "cache_control": {"type": "ephemeral"}}
    assert str(p).count("cache_control") == 2


def test_no_conversation_breakpoint_when_last_message_is_assistant_or_caching_off() -> None:
    msgs = [user_text("q"), Message(role="assistant", content=[TextBlock(text="a")])]
    assert "cache_control" not in str(params(messages=msgs))
    assert "cache_control" not in str(params(messages=[user_text("q")], cache_prompt=False))


def test_ttl_1h_on_every_breakpoint_and_no_ttl_for_5m() -> None:
    p = params(system=[SystemBlock(text="s")], cache_ttl="1h")
    assert str(p).count("'ttl': '1h'") == 2
    assert "ttl" not in str(params(system=[SystemBlock(text="s")], cache_ttl="5m"))


def test_message_translation_covers_all_block_kinds() -> None:
    msgs = [
        Message(
            role="user", content=[TextBlock(text="look"), IMG, ImageBlock(source=UrlSource(url="https://x/y.png"))]
        ),
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="hmm", signature="sig1"),
                ThinkingBlock(thinking="unsigned"),
                TextBlock(text=""),
                TextBlock(text="ok"),
                ToolUseBlock(id="t1", name="Read", input={"path": "a"}),
            ],
            provider_metadata={"anthropic": {"redacted_thinking": [{"type": "redacted_thinking", "data": "R1"}]}},
        ),
        Message(
            role="user",
            content=[
                ToolResultBlock(tool_use_id="t1", content=[TextBlock(text="img:"), IMG], is_error=False),
                ToolResultBlock(tool_use_id="t2", content="plain"),
            ],
        ),
    ]
    got = params(messages=msgs, cache_prompt=False)["messages"]
    assert got == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}},
                {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "redacted_thinking", "data": "R1"},
                {"type": "thinking", "thinking": "hmm", "signature": "sig1"},
                {"type": "text", "text": "ok"},
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "a"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [
                        {"type": "text", "text": "img:"},
                        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}},
                    ],
                    "is_error": False,
                },
                {"type": "tool_result", "tool_use_id": "t2", "content": "plain"},
            ],
        },
    ]


def test_max_tokens_default_and_override_and_optional_fields() -> None:
    p = params()
    assert p["max_tokens"] == 32768
    for key in ("temperature", "stop_sequences", "thinking", "output_config", "tools", "system"):
        assert key not in p
    p = params(max_output_tokens=1000, temperature=0.2)
    assert p["max_tokens"] == 1000 and p["temperature"] == 0.2


def test_thinking_and_effort_defaults_and_request_wins() -> None:
    prov = provider(thinking={"type": "enabled", "budget_tokens": 4000, "display": "omitted"}, effort="xhigh")
    p = prov.build_params(request())
    assert p["thinking"] == {"type": "enabled", "budget_tokens": 4000, "display": "omitted"}
    assert p["output_config"] == {"effort": "xhigh"}
    p = prov.build_params(request(thinking=ThinkingConfig(enabled=False), effort="low"))
    assert p["thinking"] == {"type": "disabled"} and p["output_config"] == {"effort": "low"}
    p = provider().build_params(request(thinking=ThinkingConfig(budget_tokens=2048)))
    assert p["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert provider(thinking={"type": "adaptive"}).build_params(request())["thinking"] == {"type": "adaptive"}


@pytest.mark.parametrize(
    ("wire_value", "expected"),
    [
        ("end_turn", "end_turn"),
        ("tool_use", "tool_use"),
        ("max_tokens", "max_tokens"),
        ("stop_sequence", "stop_sequence"),
        ("refusal", "refusal"),
        ("pause_turn", "error"),
        ("weird", "error"),
        (None, "error"),
    ],
)
def test_stop_reason_table(wire_value: str | None, expected: str) -> None:
    assert map_stop_reason(wire_value) == expected


def test_context_window() -> None:
    p = provider()
    assert p.context_window("claude-sonnet-4-6") == 200_000
    assert p.context_window("unknown-model") == 200_000


# ------------------------------------------------------------------ wire


async def test_wire_sequence_text_and_tool_call(wire: WireServer) -> None:
    wire.anthropic.enqueue(
        turn(text(["Hi ", "there"]), tool_call("Bash", parts=['{"cmd":', '"ls"}'], id="tu1"), usage=WireUsage(10, 42))
    )
    p = make_provider("anthropic", wire)
    events = await collect(p)
    assert [e.model_dump() for e in events] == [
        {"type": "message_start"},
        {"type": "text_delta", "text": "Hi "},
        {"type": "text_delta", "text": "there"},
        {"type": "tool_use_start", "id": "tu1", "name": "Bash"},
        {"type": "tool_use_input_delta", "id": "tu1", "json_delta": '{"cmd":'},
        {"type": "tool_use_input_delta", "id": "tu1", "json_delta": '"ls"}'},
        {"type": "tool_use_end", "id": "tu1"},
        {
            "type": "message_end",
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 42, "cache_read_tokens": 0, "cache_creation_tokens": 0},
            "provider_metadata": None,
        },
    ]
    await p.aclose()


async def test_tool_input_split_across_many_deltas(wire: WireServer) -> None:
    big = {"path": "src/app.py", "content": "x = 1\n" * 50, "nested": {"a": [1, 2, 3]}}
    wire.anthropic.enqueue(turn(tool_call("Write", big, id="tu9", chunk_size=2)))
    events = await collect(make_provider("anthropic", wire))
    deltas = [e for e in events if e.type == "tool_use_input_delta"]
    assert len(deltas) > 100
    import json

    assert json.loads(tool_json(events, "tu9")) == big


async def test_thinking_signature_and_redacted_thinking_round_trip(wire: WireServer) -> None:
    wire.anthropic.enqueue(
        turn(thinking(["Let me ", "think."], signature="EqQBsig"), redacted_thinking("REDACTED=="), text("done"))
    )
    p = make_provider("anthropic", wire)
    events = await collect(p)
    thinking_events = [e for e in events if e.type == "thinking_delta"]
    assert [(e.text, e.signature) for e in thinking_events] == [("Let me ", None), ("think.", None), ("", "EqQBsig")]
    end = events[-1]
    assert end.type == "message_end" and end.stop_reason == "end_turn"
    assert end.provider_metadata == {
        "anthropic": {"redacted_thinking": [{"type": "redacted_thinking", "data": "REDACTED=="}]}
    }

    # Replay: redacted thinking goes first in that assistant message, before tool_use.
    assistant = Message(
        role="assistant",
        content=[
            ThinkingBlock(thinking="Let me think.", signature="EqQBsig"),
            ToolUseBlock(id="t1", name="Bash", input={}),
        ],
        provider_metadata=end.provider_metadata,
    )
    msgs = [user_text("q"), assistant, Message(role="user", content=[ToolResultBlock(tool_use_id="t1", content="ok")])]
    wire.anthropic.enqueue(turn(text("fine")))
    await collect(p, request(msgs))
    sent = wire.anthropic.last_body["messages"][1]["content"]
    assert [b["type"] for b in sent] == ["redacted_thinking", "thinking", "tool_use"]
    assert sent[0]["data"] == "REDACTED==" and sent[1]["signature"] == "EqQBsig"
    await p.aclose()


async def test_usage_is_cache_inclusive(wire: WireServer) -> None:
    wire.anthropic.enqueue(
        turn(
            text("x"), usage=WireUsage(input_tokens=5, output_tokens=7, cache_read_tokens=100, cache_creation_tokens=20)
        )
    )
    end = (await collect(make_provider("anthropic", wire)))[-1]
    assert end.type == "message_end"
    assert end.usage.model_dump() == {
        "input_tokens": 125,
        "output_tokens": 7,
        "cache_read_tokens": 100,
        "cache_creation_tokens": 20,
    }


async def test_request_on_the_wire(wire: WireServer) -> None:
    wire.anthropic.enqueue(turn(text("x")))
    tools = [ToolSchema(name="Bash", description="run", input_schema={"type": "object", "properties": {}})]
    req = request(
        [user_text("hello")],
        system=[SystemBlock(text="you are skawld")],
        tools=tools,
        cache_ttl="1h",
        max_output_tokens=99,
    )
    await collect(make_provider("anthropic", wire), req)
    rec = wire.anthropic.requests[0]
    assert rec.path == "/v1/messages"
    assert rec.headers["authorization"] == "Bearer sk-test-SECRET-0123456789"
    assert rec.headers["anthropic-version"] == "2026-10-21"
    if provider_kit.TRANSPORT == "sdk":
        assert rec.headers["x-stainless-retry-count"] == "0"
    body = rec.body
    assert body["stream"] is True and body["model"] == "m" and body["max_tokens"] == 99
    assert body["system"] == [
        {"type": "text", "text": "you are skawld", "cache_control": {"type": "ephemeral", "ttl": "1h"}}
    ]
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert body["tools"][0]["name"] == "Bash"


async def test_tool_input_given_whole_at_block_start(wire: WireServer) -> None:
    """Some proxies send the complete input in content_block_start and no deltas."""

    def ev(kind: str, **data: object) -> tuple[str, dict[str, object]]:
        return (kind, {"type": kind, **data})

    usage = {"input_tokens": 1, "output_tokens": 1}
    wire.anthropic.enqueue(
        raw_sse(
            ev(
                "message_start",
                message={
                    "id": "m",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "m",
                    "usage": usage,
                },
            ),
            ev(
                "content_block_start",
                index=0,
                content_block={"type": "tool_use", "id": "t1", "name": "Ls", "input": {"path": "."}},
            ),
            ev("content_block_stop", index=0),
            ev("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 3}),
            ev("message_stop"),
        )
    )
    events = await collect(make_provider("anthropic", wire))
    assert [e.type for e in events] == [
        "message_start",
        "tool_use_start",
        "tool_use_input_delta",
        "tool_use_end",
        "message_end",
    ]
    assert tool_json(events, "t1") == '{"path":"."}'
