"""Every injected fault, through each real provider and SDK: recovered within the retry
budget, or a typed error; never a hang."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from skawld_core.errors import AuthError, ContextLengthError, ProviderError, RateLimitError
from skawld_core.providers.retry import RetryPolicy
from tests.support.provider_kit import API_KEY, KINDS, RecordingSleep, collect, endpoint, make_provider, request, texts
from tests.support.wire_server import WireServer, http_error, raw_sse, text, tool_call, turn

pytestmark = [pytest.mark.timeout(30), pytest.mark.parametrize("kind", KINDS)]


def ok() -> Any:
    return turn(text(["all ", "good"]))


async def test_429_with_retry_after_ms_is_retried(
    kind: str, wire: WireServer, fast_retry: RetryPolicy, sleeps: RecordingSleep
) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(http_error(429, "slow down", headers={"retry-after-ms": "1500"}), ok())
    events = await collect(make_provider(kind, wire, retry_policy=fast_retry))
    assert texts(events) == "all good"
    assert [e.type for e in events].count("message_start") == 1
    assert len(ep.requests) == 2 and sleeps.delays == [1.5]
    # vendor retries are off: the SDK never retried by itself
    assert all(r.headers.get("x-stainless-retry-count", "0") == "0" for r in ep.requests)


async def test_429_with_http_date_retry_after(
    kind: str, wire: WireServer, fast_retry: RetryPolicy, sleeps: RecordingSleep
) -> None:
    from email.utils import formatdate

    endpoint(wire, kind).enqueue(
        http_error(429, headers={"retry-after": formatdate(time.time() + 5, usegmt=True)}), ok()
    )
    await collect(make_provider(kind, wire, retry_policy=fast_retry))
    assert 3.0 <= sleeps.delays[0] <= 6.0


async def test_retry_after_over_120s_fails_at_once(
    kind: str, wire: WireServer, fast_retry: RetryPolicy, sleeps: RecordingSleep
) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(http_error(429, headers={"retry-after": "300"}), ok())
    with pytest.raises(RateLimitError) as info:
        await collect(make_provider(kind, wire, retry_policy=fast_retry))
    assert info.value.retry_after_seconds == 300
    assert len(ep.requests) == 1 and sleeps.delays == []


@pytest.mark.parametrize("status", [500, 502, 503, 529])
async def test_5xx_retried_then_recovered(
    kind: str, status: int, wire: WireServer, fast_retry: RetryPolicy, sleeps: RecordingSleep
) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(http_error(status), http_error(status), ok())
    assert texts(await collect(make_provider(kind, wire, retry_policy=fast_retry))) == "all good"
    assert len(ep.requests) == 3 and sleeps.delays == [1.0, 2.0]


async def test_budget_exhausted_gives_typed_error(
    kind: str, wire: WireServer, fast_retry: RetryPolicy, sleeps: RecordingSleep
) -> None:
    ep = endpoint(wire, kind)
    ep.default = http_error(503)
    with pytest.raises(ProviderError) as info:
        await collect(make_provider(kind, wire, retry_policy=fast_retry))
    assert info.value.retryable and info.value.status == 503
    assert len(ep.requests) == 6 and sleeps.delays == [1.0, 2.0, 4.0, 8.0, 16.0]
    ep.requests.clear()
    with pytest.raises(ProviderError):
        await collect(make_provider(kind, wire, retry_policy=fast_retry), request(max_retries=2))
    assert len(ep.requests) == 3


@pytest.mark.parametrize("status", [401, 403])
async def test_auth_errors_are_not_retried(kind: str, status: int, wire: WireServer, fast_retry: RetryPolicy) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(http_error(status, "invalid x-api-key"), ok())
    with pytest.raises(AuthError) as info:
        await collect(make_provider(kind, wire, retry_policy=fast_retry))
    assert len(ep.requests) == 1
    assert API_KEY not in str(info.value)


async def test_other_4xx_is_not_retryable(kind: str, wire: WireServer, fast_retry: RetryPolicy) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(http_error(400, "max_tokens is too large"), ok())
    with pytest.raises(ProviderError) as info:
        await collect(make_provider(kind, wire, retry_policy=fast_retry))
    assert not info.value.retryable and info.value.status == 400 and len(ep.requests) == 1


async def test_context_length_errors(kind: str, wire: WireServer, fast_retry: RetryPolicy) -> None:
    ep = endpoint(wire, kind)
    if kind == "anthropic":
        ep.enqueue(http_error(400, "prompt is too long: 208656 tokens > 200000 maximum"))
    else:
        ep.enqueue(
            http_error(400, "This model's maximum context length is 128000 tokens.", code="context_length_exceeded")
        )
    ep.enqueue(http_error(413, "request too large"))
    p = make_provider(kind, wire, retry_policy=fast_retry)
    for _ in range(2):
        with pytest.raises(ContextLengthError):
            await collect(p)
    assert len(ep.requests) == 2


async def test_connection_reset_before_output_is_retried(kind: str, wire: WireServer, fast_retry: RetryPolicy) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(turn(text("lost"), reset_after=1), ok())
    assert texts(await collect(make_provider(kind, wire, retry_policy=fast_retry))) == "all good"
    assert len(ep.requests) == 2


async def test_connection_reset_after_output_is_a_retryable_error_not_retried(
    kind: str, wire: WireServer, fast_retry: RetryPolicy
) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(turn(text(["a", "b", "c", "d"]), reset_after=6, frame_delay=0.01), ok())
    seen: list[Any] = []
    with pytest.raises(ProviderError) as info:
        async for e in make_provider(kind, wire, retry_policy=fast_retry).stream(request()):
            seen.append(e)
    assert info.value.retryable and info.value.status is None
    assert texts(seen) and len(ep.requests) == 1


async def test_truncated_stream_is_an_error_never_an_empty_turn(
    kind: str, wire: WireServer, fast_retry: RetryPolicy
) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(turn(truncated=True), turn(text("x"), truncated=True))
    p = make_provider(kind, wire, retry_policy=fast_retry)
    with pytest.raises(ProviderError) as info:
        await collect(p, request(max_retries=0))
    assert info.value.retryable
    with pytest.raises(ProviderError):
        await collect(p)  # output was yielded, so no retry
    assert len(ep.requests) == 2


async def test_truncated_before_output_recovers(kind: str, wire: WireServer, fast_retry: RetryPolicy) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(turn(text("x"), truncate_after=1), ok())
    assert texts(await collect(make_provider(kind, wire, retry_policy=fast_retry))) == "all good"
    assert len(ep.requests) == 2


async def test_in_stream_overloaded_error_before_output_is_retried(
    kind: str, wire: WireServer, fast_retry: RetryPolicy
) -> None:
    ep = endpoint(wire, kind)
    err_type = "overloaded_error" if kind == "anthropic" else "server_error"
    ep.enqueue(turn(text("x"), error_after=1, error_type=err_type), ok())
    assert texts(await collect(make_provider(kind, wire, retry_policy=fast_retry))) == "all good"
    assert len(ep.requests) == 2


async def test_in_stream_error_after_output_raises_typed_error(
    kind: str, wire: WireServer, fast_retry: RetryPolicy
) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(
        turn(text(["a", "b", "c"]), error_after=4, error_type="invalid_request_error", error_message="bad thing"), ok()
    )
    with pytest.raises(ProviderError) as info:
        await collect(make_provider(kind, wire, retry_policy=fast_retry))
    assert "bad thing" in str(info.value) and not info.value.retryable
    assert len(ep.requests) == 1


async def test_slow_first_byte_within_timeout_succeeds(kind: str, wire: WireServer) -> None:
    endpoint(wire, kind).enqueue(turn(text("late"), first_byte_delay=0.3))
    assert texts(await collect(make_provider(kind, wire, timeout=5.0))) == "late"


async def test_slow_first_byte_past_timeout_is_retried_then_typed(
    kind: str, wire: WireServer, fast_retry: RetryPolicy
) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(turn(text("late"), first_byte_delay=3), ok())
    p = make_provider(kind, wire, timeout=0.3, retry_policy=fast_retry)
    assert texts(await collect(p)) == "all good"
    ep.enqueue(turn(text("late"), first_byte_delay=3))
    start = time.monotonic()
    with pytest.raises(ProviderError) as info:
        await collect(p, request(max_retries=0))
    assert info.value.retryable and time.monotonic() - start < 2.5


async def test_stalled_stream_times_out(kind: str, wire: WireServer) -> None:
    endpoint(wire, kind).enqueue(turn(text(["a", "b"]), frame_delay=3))
    with pytest.raises(ProviderError):
        await collect(make_provider(kind, wire, timeout=0.3), request(max_retries=0))


async def test_connection_refused_is_retryable(kind: str, fast_retry: RetryPolicy, sleeps: RecordingSleep) -> None:
    base = "http://127.0.0.1:9" + ("" if kind == "anthropic" else "/v1")
    p = make_provider(kind, None, base_url=base, retry_policy=fast_retry, connect_timeout=1.0)
    with pytest.raises(ProviderError) as info:
        await collect(p, request(max_retries=1))
    assert info.value.retryable and len(sleeps.delays) == 1


async def test_missing_api_key_names_the_variable(kind: str, wire: WireServer, monkeypatch: pytest.MonkeyPatch) -> None:
    var = "ANTHROPIC_API_KEY" if kind == "anthropic" else "OPENAI_API_KEY"
    monkeypatch.delenv(var, raising=False)
    p = make_provider(kind, wire, api_key=None)
    with pytest.raises(AuthError, match=var):
        await collect(p)
    assert endpoint(wire, kind).requests == []
    monkeypatch.setenv(var, "sk-from-env-123456")
    endpoint(wire, kind).enqueue(ok())
    await collect(p)
    assert endpoint(wire, kind).requests[0].headers["authorization"] == "Bearer sk-from-env-123456"


async def test_key_never_in_error_messages(kind: str, wire: WireServer, fast_retry: RetryPolicy) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(
        http_error(400, f"bad key {API_KEY} echoed"),
        turn(text("x"), error_after=1, error_type="invalid_request_error", error_message=f"echo {API_KEY}"),
    )
    p = make_provider(kind, wire, retry_policy=fast_retry)
    for _ in range(2):
        with pytest.raises(ProviderError) as info:
            await collect(p)
        assert API_KEY not in str(info.value) and API_KEY not in repr(info.value.args)
    assert API_KEY not in repr(p)


async def test_early_close_releases_the_http_response(kind: str, wire: WireServer) -> None:
    endpoint(wire, kind).enqueue(turn(text(["a"] * 50), frame_delay=0.02), ok())
    p = make_provider(kind, wire)
    gen = p.stream(request())
    async for e in gen:
        if e.type == "text_delta":
            break
    await gen.aclose()
    # the pooled connection is usable again: a second stream on the same client works
    assert texts(await collect(p)) == "all good"
    await p.aclose()


async def test_cancellation_closes_promptly(kind: str, wire: WireServer) -> None:
    frames_before_text = {"anthropic": 3, "chat": 2, "responses": 5}[kind]
    endpoint(wire, kind).enqueue(turn(text(["a"] * 100), gate_after=frames_before_text))  # never released
    p = make_provider(kind, wire)
    got_first = asyncio.Event()

    async def consume() -> None:
        async for e in p.stream(request()):
            if e.type == "text_delta":
                got_first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_first.wait(), 5)
    task.cancel()
    start = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - start < 1.0
    await p.aclose()


async def test_tool_call_survives_retry(kind: str, wire: WireServer, fast_retry: RetryPolicy) -> None:
    ep = endpoint(wire, kind)
    ep.enqueue(http_error(529 if kind == "anthropic" else 500), turn(tool_call("Bash", {"cmd": "ls"}, id="c1")))
    events = await collect(make_provider(kind, wire, retry_policy=fast_retry))
    assert [e.type for e in events].count("tool_use_start") == 1
    assert events[-1].type == "message_end" and events[-1].stop_reason == "tool_use"


async def test_malformed_frame_before_output_is_retried(kind: str, wire: WireServer, fast_retry: RetryPolicy) -> None:
    ep = endpoint(wire, kind)
    event = "message_start" if kind == "anthropic" else ("response.created" if kind == "responses" else None)
    ep.enqueue(raw_sse((event, "{not json")), ok())
    assert texts(await collect(make_provider(kind, wire, retry_policy=fast_retry))) == "all good"
    assert len(ep.requests) == 2


async def test_repeated_429_retry_after_zero_uses_the_whole_budget(
    kind: str, wire: WireServer, fast_retry: RetryPolicy, sleeps: RecordingSleep
) -> None:
    ep = endpoint(wire, kind)
    ep.default = http_error(429, headers={"retry-after": "0"})
    p = make_provider(kind, wire, retry_policy=fast_retry)
    with pytest.raises(RateLimitError):
        await collect(p)
    assert len(ep.requests) == 6 and sleeps.delays == [0.0] * 5
    ep.requests.clear()
    with pytest.raises(RateLimitError):
        await collect(p, request(max_retries=2))
    assert len(ep.requests) == 3


async def test_vendor_sdk_retries_are_off(kind: str, wire: WireServer, transport: str) -> None:
    """The SDK client retries nothing itself; the HTTP transport has no retry loop at all:
    one 500 with no retry budget is exactly one request on both."""
    p = make_provider(kind, wire)
    ep = endpoint(wire, kind)
    ep.enqueue(ok())
    await collect(p)
    if transport == "sdk":
        assert p._get_client(API_KEY).max_retries == 0  # type: ignore[attr-defined]
    ep.enqueue(http_error(500, "boom"))
    with pytest.raises(ProviderError):
        await collect(p, request(max_retries=0))
    assert len(ep.requests) == 2
    await p.aclose()
