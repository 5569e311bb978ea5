"""The one provider streaming driver, `retry.retrying_stream` (reference §2.13 Retry, §3 retry.test).

Driven directly with a fake vendor stream (scripted attempts of raw Anthropic wire events),
the real `AnthropicMapper`, the real error mapping (`errors_map.map_error`) and the HTTP
transport's own failure type, so retry budget, ``retry-after``, backoff, commit and
cancellation are checked on the code the providers run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from email.utils import formatdate
from typing import Any

import pytest

from skawld_core.errors import AuthError, ConfigError, ContextLengthError, ProviderError, RateLimitError
from skawld_core.providers.anthropic import AnthropicMapper
from skawld_core.providers.base import ProviderStreamEvent
from skawld_core.providers.errors_map import map_error
from skawld_core.providers.http_transport import status_failure
from skawld_core.providers.retry import RetryPolicy, retrying_stream

pytestmark = pytest.mark.timeout(10)

Wire = dict[str, Any]


def text_turn(text: str) -> list[Wire]:
    """The raw events of one complete Anthropic text turn."""
    return [
        {"type": "message_start", "message": {"usage": {"input_tokens": 3, "output_tokens": 0}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 1}},
        {"type": "message_stop"},
    ]


def http_error(status: int, headers: dict[str, str] | None = None) -> Exception:
    """What the HTTP transport raises for an error answer."""
    return status_failure(status, headers or {}, b'{"type":"error","error":{"type":"x","message":"no"}}')


class FakeVendorStream:
    """One attempt: yields its wire events; an exception in the script is raised there."""

    def __init__(self, items: list[Wire | BaseException], vendor: FakeVendor) -> None:
        self.items = items
        self.vendor = vendor

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._events()

    async def _events(self) -> AsyncIterator[Any]:
        for item in self.items:
            if isinstance(item, BaseException):
                raise item
            yield item

    async def close(self) -> None:
        self.vendor.closed += 1


class FakeVendor:
    """Scripted attempts; an attempt that is an exception fails when the stream is opened."""

    def __init__(self, *attempts: list[Wire | BaseException] | BaseException) -> None:
        self.attempts = list(attempts)
        self.opened = 0
        self.closed = 0

    async def open(self) -> FakeVendorStream:
        script = self.attempts[min(self.opened, len(self.attempts) - 1)]
        self.opened += 1
        if isinstance(script, BaseException):
            raise script
        return FakeVendorStream(script, self)


class RecordingSleep:
    """A policy sleep that records each delay and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def drive(
    vendor: FakeVendor, *, max_retries: int = 5, policy: RetryPolicy | None = None
) -> AsyncIterator[ProviderStreamEvent]:
    return retrying_stream(
        vendor.open,
        AnthropicMapper,
        lambda exc: map_error(exc, vendor="Anthropic", secrets=("sk-secret",)),
        max_retries,
        policy or RetryPolicy(sleep=RecordingSleep(), rand=lambda: 0.5),
    )


async def collect(stream: AsyncIterator[ProviderStreamEvent]) -> list[str]:
    return [e.type async for e in stream]


def reset() -> ConnectionResetError:
    return ConnectionResetError("connection reset by peer")


async def test_first_attempt_streams_the_turn() -> None:
    vendor = FakeVendor(text_turn("hi"))
    types = await collect(drive(vendor))
    assert "text_delta" in types and types[0] == "message_start" and types[-1] == "message_end"
    assert types.count("message_start") == 1
    assert vendor.opened == 1 and vendor.closed == 1


async def test_retries_until_success_with_doubling_backoff_and_one_start() -> None:
    sleep = RecordingSleep()
    vendor = FakeVendor(http_error(503), [reset()], text_turn("ok"))
    types = await collect(drive(vendor, policy=RetryPolicy(sleep=sleep, jitter=0)))
    assert types.count("message_start") == 1 and "text_delta" in types
    assert vendor.opened == 3
    assert vendor.closed == 2  # the attempt that failed on open had no stream to close
    assert sleep.delays == [1.0, 2.0]


async def test_default_budget_is_five_retries() -> None:
    sleep = RecordingSleep()
    vendor = FakeVendor(http_error(529))
    with pytest.raises(ProviderError) as info:
        await collect(drive(vendor, policy=RetryPolicy(sleep=sleep, rand=lambda: 0.5)))
    assert info.value.retryable and info.value.status == 529
    assert vendor.opened == 6
    assert sleep.delays == [1.0, 2.0, 4.0, 8.0, 16.0]


@pytest.mark.parametrize("budget", [0, 2])
async def test_max_retries_caps_the_attempts(budget: int) -> None:
    vendor = FakeVendor([reset()])
    with pytest.raises(ProviderError):
        await collect(drive(vendor, max_retries=budget))
    assert vendor.opened == budget + 1 and vendor.closed == budget + 1


async def test_negative_budget_is_a_config_error_before_any_attempt() -> None:
    vendor = FakeVendor(text_turn("x"))
    with pytest.raises(ConfigError):
        await collect(drive(vendor, max_retries=-1))
    assert vendor.opened == 0


@pytest.mark.parametrize(
    ("failure", "error_type"),
    [
        (http_error(400), ProviderError),
        (http_error(401), AuthError),
        (
            status_failure(400, {}, b'{"error":{"type":"invalid_request_error","message":"prompt is too long"}}'),
            ContextLengthError,
        ),
        (ValueError("not a transport failure"), ValueError),
    ],
)
async def test_non_retryable_failures_are_raised_at_once(failure: Exception, error_type: type[Exception]) -> None:
    vendor = FakeVendor(failure, text_turn("never"))
    with pytest.raises(error_type) as info:
        await collect(drive(vendor))
    assert vendor.opened == 1
    assert not getattr(info.value, "retryable", False)


async def test_retry_after_seconds_is_honoured_exactly_beyond_max_delay() -> None:
    sleep = RecordingSleep()
    vendor = FakeVendor(http_error(429, {"retry-after": "45"}), text_turn("ok"))
    await collect(drive(vendor, policy=RetryPolicy(sleep=sleep, max_delay=5)))
    assert sleep.delays == [45.0] and vendor.opened == 2


async def test_retry_after_ms_wins_over_retry_after() -> None:
    sleep = RecordingSleep()
    vendor = FakeVendor(http_error(429, {"retry-after-ms": "250", "retry-after": "9"}), text_turn("ok"))
    await collect(drive(vendor, policy=RetryPolicy(sleep=sleep)))
    assert sleep.delays == [0.25]


async def test_retry_after_http_date_is_waited_as_a_delta() -> None:
    sleep = RecordingSleep()
    vendor = FakeVendor(http_error(429, {"retry-after": formatdate(time.time() + 30, usegmt=True)}), text_turn("ok"))
    await collect(drive(vendor, policy=RetryPolicy(sleep=sleep)))
    assert len(sleep.delays) == 1 and 27 <= sleep.delays[0] <= 31
    assert vendor.opened == 2


async def test_retry_after_over_the_cap_fails_at_once() -> None:
    sleep = RecordingSleep()
    vendor = FakeVendor(http_error(429, {"retry-after": "300"}), text_turn("ok"))
    with pytest.raises(RateLimitError) as info:
        await collect(drive(vendor, policy=RetryPolicy(sleep=sleep)))
    assert info.value.retry_after_seconds == 300
    assert vendor.opened == 1 and sleep.delays == []


async def test_rate_limit_without_retry_after_uses_backoff() -> None:
    sleep = RecordingSleep()
    vendor = FakeVendor(http_error(429), text_turn("ok"))
    await collect(drive(vendor, policy=RetryPolicy(sleep=sleep, rand=lambda: 1.0)))
    assert sleep.delays == [pytest.approx(1.2)]


async def test_no_retry_after_the_first_streamed_event() -> None:
    sleep = RecordingSleep()
    partial: list[Wire | BaseException] = [*text_turn("partial")[:3], reset()]
    vendor = FakeVendor(partial, text_turn("never"))
    seen: list[ProviderStreamEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in drive(vendor, policy=RetryPolicy(sleep=sleep)):
            seen.append(event)
    assert info.value.retryable  # retryable in itself, but the attempt had committed
    assert [e.type for e in seen][-1] == "text_delta"
    assert vendor.opened == 1 and vendor.closed == 1 and sleep.delays == []


async def test_stream_ending_early_before_output_is_retried() -> None:
    truncated: list[Wire | BaseException] = text_turn("lost")[:2]  # no delta, no message_stop
    vendor = FakeVendor(truncated, text_turn("ok"))
    types = await collect(drive(vendor))
    assert vendor.opened == 2 and types.count("text_delta") == 1


async def test_consumer_stopping_early_closes_the_vendor_stream() -> None:
    vendor = FakeVendor(text_turn("a"))
    stream = drive(vendor)
    async for event in stream:
        if event.type == "text_delta":
            break
    await stream.aclose()  # type: ignore[attr-defined]
    assert vendor.closed == 1


async def test_cancel_during_backoff_raises_promptly_without_another_attempt() -> None:
    sleeping = asyncio.Event()

    async def real_sleep(seconds: float) -> None:
        sleeping.set()
        await asyncio.sleep(seconds)

    vendor = FakeVendor(http_error(503), text_turn("never"))
    stream = drive(vendor, policy=RetryPolicy(sleep=real_sleep, base_delay=60, jitter=0))
    task = asyncio.create_task(collect(stream))
    await sleeping.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task  # the 60 s backoff does not run out: the test timeout (10 s) guards it
    assert vendor.opened == 1


async def test_cancel_during_an_attempt_closes_its_stream() -> None:
    reading = asyncio.Event()

    class HangingStream(FakeVendorStream):
        async def _events(self) -> AsyncIterator[Any]:
            yield text_turn("x")[0]
            reading.set()
            await asyncio.Event().wait()  # a response that never sends more
            yield {}

    vendor = FakeVendor(text_turn("x"))

    async def open_hanging() -> FakeVendorStream:
        vendor.opened += 1
        return HangingStream([], vendor)

    opener: Callable[[], Any] = open_hanging
    stream = retrying_stream(opener, AnthropicMapper, lambda e: map_error(e, vendor="Anthropic"), 5, RetryPolicy())
    task = asyncio.create_task(collect(stream))
    await reading.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert vendor.opened == 1 and vendor.closed == 1


def test_backoff_doubles_caps_and_jitters_within_bounds() -> None:
    policy = RetryPolicy(rand=lambda: 0.5)
    assert [policy.backoff(n) for n in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    low, high = RetryPolicy(rand=lambda: 0.0), RetryPolicy(rand=lambda: 1.0)
    assert low.backoff(0) == pytest.approx(0.8) and high.backoff(0) == pytest.approx(1.2)
    assert high.backoff(10) == pytest.approx(36.0)
