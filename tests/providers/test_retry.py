"""`retrying_stream` / `RetryPolicy` rules (reference §2.13 Retry, §3 retry.test)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from skawld_core.errors import ConfigError, ContextLengthError, ProviderError, RateLimitError
from skawld_core.providers.base import MessageStart, ProviderStreamEvent, TextDelta
from skawld_core.providers.retry import RetryPolicy, retrying_stream

pytestmark = pytest.mark.timeout(10)


class Script:
    """Attempt factory: each attempt yields `MessageStart`, then raises or yields its items."""

    def __init__(self, *attempts: list[object]) -> None:
        self.attempts = list(attempts)
        self.calls = 0
        self.closed = 0

    def __call__(self) -> AsyncIterator[ProviderStreamEvent]:
        items = self.attempts[min(self.calls, len(self.attempts) - 1)]
        self.calls += 1
        return self._run(items)

    async def _run(self, items: list[object]) -> AsyncIterator[ProviderStreamEvent]:
        try:
            yield MessageStart()
            for item in items:
                if isinstance(item, BaseException):
                    raise item
                assert isinstance(item, TextDelta)
                yield item
        finally:
            self.closed += 1


def policy(sleeps: list[float], **kw: float) -> RetryPolicy:
    async def sleep(s: float) -> None:
        sleeps.append(s)

    return RetryPolicy(sleep=sleep, **kw)  # type: ignore[arg-type]


async def run(script: Script, max_retries: int = 5, pol: RetryPolicy | None = None) -> list[ProviderStreamEvent]:
    return [e async for e in retrying_stream(script, max_retries, pol or policy([]))]


def err() -> ProviderError:
    return ProviderError("boom", status=503, retryable=True)


async def test_first_success() -> None:
    s = Script([TextDelta(text="a")])
    assert [e.type for e in await run(s)] == ["message_start", "text_delta"]
    assert s.calls == 1 and s.closed == 1


async def test_retries_until_success_without_duplicating_start() -> None:
    sleeps: list[float] = []
    s = Script([err()], [err()], [TextDelta(text="ok")])
    events = await run(s, pol=policy(sleeps, jitter=0))
    assert [e.type for e in events] == ["message_start", "text_delta"]
    assert s.calls == 3 and s.closed == 3
    assert sleeps == [1.0, 2.0]


async def test_budget_default_is_five_retries() -> None:
    s = Script([err()])
    with pytest.raises(ProviderError):
        await run(s)
    assert s.calls == 6


async def test_max_retries_two_means_three_calls() -> None:
    s = Script([err()])
    with pytest.raises(ProviderError):
        await run(s, max_retries=2)
    assert s.calls == 3


async def test_negative_budget_is_config_error() -> None:
    s = Script([TextDelta(text="a")])
    with pytest.raises(ConfigError):
        await run(s, max_retries=-1)
    assert s.calls == 0


@pytest.mark.parametrize(
    "error",
    [
        ProviderError("bad", status=400, retryable=False),
        ContextLengthError("too long"),
        ValueError("not a skawld error"),
    ],
)
async def test_non_retryable_errors_are_not_retried(error: BaseException) -> None:
    s = Script([error])
    with pytest.raises(type(error)):
        await run(s)
    assert s.calls == 1


async def test_no_retry_after_first_yielded_item() -> None:
    s = Script([TextDelta(text="partial"), err()], [TextDelta(text="never")])
    seen: list[ProviderStreamEvent] = []
    with pytest.raises(ProviderError):
        async for e in retrying_stream(s, 5, policy([])):
            seen.append(e)
    assert [e.type for e in seen] == ["message_start", "text_delta"]
    assert s.calls == 1


async def test_backoff_doubles_and_caps_with_jitter_bounds() -> None:
    pol = RetryPolicy(rand=lambda: 0.5)
    assert [pol.backoff(n) for n in range(7)] == [1, 2, 4, 8, 16, 30, 30]
    low, high = RetryPolicy(rand=lambda: 0.0), RetryPolicy(rand=lambda: 1.0)
    assert low.backoff(0) == pytest.approx(0.8) and high.backoff(0) == pytest.approx(1.2)
    assert high.backoff(10) == pytest.approx(36.0)


async def test_retry_after_is_honoured_exactly_beyond_max_delay() -> None:
    sleeps: list[float] = []
    s = Script([RateLimitError("slow", retry_after_seconds=45.5)], [TextDelta(text="ok")])
    await run(s, pol=policy(sleeps, max_delay=5))
    assert sleeps == [45.5]


async def test_retry_after_over_120s_fails_at_once() -> None:
    sleeps: list[float] = []
    s = Script([RateLimitError("later", retry_after_seconds=200)], [TextDelta(text="ok")])
    with pytest.raises(RateLimitError):
        await run(s, pol=policy(sleeps))
    assert s.calls == 1 and sleeps == []


async def test_consumer_closing_early_closes_the_attempt() -> None:
    s = Script([TextDelta(text="a"), TextDelta(text="b")])
    gen = retrying_stream(s, 5, policy([]))
    async for e in gen:
        if e.type == "text_delta":
            break
    await gen.aclose()
    assert s.closed == 1
