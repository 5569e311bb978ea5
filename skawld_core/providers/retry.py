"""skawld-managed retry for provider streams (vendor SDK retries are off).

Rules (reference-behaviour §2.13):

- ``max_retries`` retries after the first attempt (default 5); negative is a `ConfigError`.
- Only `SkawldError`s with ``retryable=True`` are retried (rate limits, 5xx, network
  errors, a stream that closed before its final event).
- Retries happen only before the attempt *commits*: the leading `MessageStart` is held
  back and not counted; once any other event has been yielded, errors propagate.
- Delay for retry *n* (0-based): ``base * 2**n`` capped at ``max_delay``, with ±``jitter``
  uniform jitter. A `RateLimitError.retry_after_seconds` is honoured exactly; if it is
  over ``max_retry_after`` (120 s) the error is raised at once.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from ..errors import ConfigError, RateLimitError, SkawldError
from .base import MessageStart, ProviderStreamEvent

SleepFn = Callable[[float], Awaitable[None]]
"""An awaitable sleep, injectable so tests need not wait real seconds."""

AttemptFactory = Callable[[], AsyncIterator[ProviderStreamEvent]]
"""Opens one attempt: returns a fresh async iterator of normalized events."""


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff parameters. ``sleep`` and ``rand`` are injectable for tests."""

    base_delay: float = 1.0
    max_delay: float = 30.0
    jitter: float = 0.2
    max_retry_after: float = 120.0
    sleep: SleepFn = field(default=asyncio.sleep)
    rand: Callable[[], float] = field(default=random.random)

    def backoff(self, retry_index: int) -> float:
        """Delay in seconds before retry ``retry_index`` (0-based), jitter applied."""
        delay = float(min(self.base_delay * (2.0**retry_index), self.max_delay))
        if self.jitter:
            delay *= 1.0 + self.jitter * (2.0 * self.rand() - 1.0)
        return max(0.0, delay)

    def delay_for(self, error: SkawldError, retry_index: int) -> float | None:
        """Seconds to wait before retrying after ``error``; None means raise now."""
        if not error.retryable:
            return None
        if isinstance(error, RateLimitError) and error.retry_after_seconds is not None:
            if error.retry_after_seconds > self.max_retry_after:
                return None
            return max(0.0, error.retry_after_seconds)
        return self.backoff(retry_index)


DEFAULT_POLICY = RetryPolicy()


async def _aclose(it: AsyncIterator[ProviderStreamEvent]) -> None:
    aclose = getattr(it, "aclose", None)
    if aclose is not None:
        await aclose()


async def retrying_stream(
    open_attempt: AttemptFactory,
    max_retries: int = 5,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> AsyncGenerator[ProviderStreamEvent, None]:
    """Run ``open_attempt`` until one attempt commits, then stream it to the end.

    Each attempt is closed (``aclose``) before the next starts and when the consumer
    stops early, so the underlying HTTP response is always released.
    """
    if max_retries < 0:
        raise ConfigError(f"max_retries must be >= 0, got {max_retries}")
    retry_index = 0
    while True:
        attempt = open_attempt()
        committed = False
        held: ProviderStreamEvent | None = None
        try:
            async for event in attempt:
                if committed:
                    yield event
                elif isinstance(event, MessageStart) and held is None:
                    held = event
                else:
                    committed = True
                    if held is not None:
                        yield held
                    yield event
            if not committed and held is not None:
                yield held
            return
        except SkawldError as err:
            if committed or retry_index >= max_retries:
                raise
            delay = policy.delay_for(err, retry_index)
            if delay is None:
                raise
        finally:
            await _aclose(attempt)
        retry_index += 1
        await policy.sleep(delay)
