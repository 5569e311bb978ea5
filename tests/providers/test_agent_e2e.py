"""End to end through `Agent` with the real providers and SDKs against the wire server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from skawld_core import Agent
from skawld_core.sessions.memory import InMemorySessionStore
from tests.support.provider_kit import KINDS, endpoint, make_provider
from tests.support.wire_server import WireServer, WireUsage, http_error, text, turn

pytestmark = [pytest.mark.timeout(60), pytest.mark.parametrize("kind", KINDS)]


def context_error(kind: str) -> Any:
    if kind == "anthropic":
        return http_error(400, "prompt is too long: 208656 tokens > 200000 maximum")
    return http_error(400, "This model's maximum context length is 128000 tokens.", code="context_length_exceeded")


async def test_plain_turn_with_usage(kind: str, wire: WireServer, tmp_path: Path) -> None:
    endpoint(wire, kind).enqueue(turn(text(["Hello", " world"]), usage=WireUsage(10, 5, cache_read_tokens=100)))
    agent = Agent(
        provider=make_provider(kind, wire), model="m", tools=[], session_store=InMemorySessionStore(), cwd=tmp_path
    )
    session = await agent.session()
    events = [e async for e in session.run("hi")]
    result = events[-1]
    assert result.type == "result" and result.subtype == "success"
    assert result.final_text == "Hello world"
    assert result.total_usage.input_tokens == 110
    assert result.total_usage.cache_read_tokens == 100


async def test_forced_compaction_and_replay_on_context_length_error(
    kind: str, wire: WireServer, tmp_path: Path
) -> None:
    ep = endpoint(wire, kind)
    for i in range(11):
        ep.enqueue(turn(text(f"answer {i}"), response_id=f"resp_{i}"))
    agent = Agent(
        provider=make_provider(kind, wire), model="m", tools=[], session_store=InMemorySessionStore(), cwd=tmp_path
    )
    session = await agent.session()
    for i in range(11):
        events = [e async for e in session.run(f"question {i}")]
        assert events[-1].type == "result" and events[-1].subtype == "success", events[-1]

    ep.enqueue(
        context_error(kind), turn(text("SUMMARY of the work")), turn(text("recovered"), response_id="resp_final")
    )
    ep.requests.clear()
    events = [e async for e in session.run("question 11")]
    kinds = [e.type for e in events]
    assert "compaction" in kinds, kinds
    assert "error" not in kinds
    result = events[-1]
    assert result.type == "result" and result.subtype == "success" and result.final_text == "recovered"
    assert len(ep.requests) == 3
    final_body = ep.requests[-1].body
    dumped = str(final_body)
    assert "<summary of earlier conversation>" in dumped and "SUMMARY of the work" in dumped
    assert "question 0" not in dumped  # the old turns were replaced by the summary
    if kind == "responses":
        assert "previous_response_id" not in final_body  # compaction strips the chaining id


async def test_second_context_length_error_surfaces(kind: str, wire: WireServer, tmp_path: Path) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(context_error(kind))
    agent = Agent(
        provider=make_provider(kind, wire), model="m", tools=[], session_store=InMemorySessionStore(), cwd=tmp_path
    )
    session = await agent.session()
    events = [e async for e in session.run("too big")]
    errors = [e for e in events if e.type == "error"]
    assert errors and errors[0].error.name == "ContextLengthError"
    assert events[-1].type == "result" and events[-1].subtype == "error"
