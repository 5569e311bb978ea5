"""skawld-managed retry for provider streams (vendor SDK retries are off).

`retrying_stream` is the one streaming driver: every provider (`wire.WireProvider`, so
Anthropic, OpenAI Chat and OpenAI Responses, on both transports) streams through it.

Rules (reference-behaviour §2.13):

- ``max_retries`` retries after the first attempt (default 5); negative is a `ConfigError`.
- Only `SkawldError`s with ``retryable=True`` are retried (rate limits, 5xx, network
  errors, a stream that closed before its final event).
- Retries happen only before the attempt *commits*: `MessageStart` is yielded once, before
  the first attempt, and does not count; once an attempt has yielded any other event,
  errors propagate.
- Delay for retry *n* (0-based): ``base * 2**n`` capped at ``max_delay``, with ±``jitter``
  uniform jitter. Retrying is bounded in time too: a retry whose delay would end more
  than ``max_elapsed`` (120 s) after the first attempt started is not made.
  A `RateLimitError.retry_after_seconds` is honoured exactly; if it is
  over ``max_retry_after`` (120 s) the error is raised at once.
- Cancelling the consumer's task during a backoff sleep ends the stream at once with
  `asyncio.CancelledError` (no further attempt); during an attempt, the vendor stream is
  closed first.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import ConfigError, RateLimitError, SkawldError
from .base import MessageEnd, MessageStart, ProviderStreamEvent

SleepFn = Callable[[float], Awaitable[None]]
"""An awaitable sleep, injectable so tests need not wait real seconds."""


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff parameters. ``sleep`` and ``rand`` are injectable for tests."""

    base_delay: float = 1.0
    max_delay: float = 30.0
    jitter: float = 0.2
    max_retry_after: float = 120.0
    max_elapsed: float = 120.0
    """Seconds from the first attempt after which no retry starts."""
    sleep: SleepFn = field(default=asyncio.sleep)
    rand: Callable[[], float] = field(default=random.random)
    clock: Callable[[], float] = field(default=time.monotonic)

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
        if getattr(error, "retry_now", False):
            return 0.0
        if isinstance(error, RateLimitError) and error.retry_after_seconds is not None:
            if error.retry_after_seconds > self.max_retry_after:
                return None
            return max(0.0, error.retry_after_seconds)
        return self.backoff(retry_index)


DEFAULT_POLICY = RetryPolicy()


class StreamMapper(Protocol):
    """Turns one vendor stream into normalized events, one vendor event at a time."""

    def feed(self, event: Any) -> ProviderStreamEvent | list[ProviderStreamEvent] | None:
        """Events for one vendor event (None when there is nothing to emit)."""
        ...

    def finish(self) -> list[ProviderStreamEvent]:
        """Final events (ending with `MessageEnd`); raises if the stream ended too early."""
        ...


class VendorStream(Protocol):
    """What the SDKs' async streams offer: async iteration and ``close()``."""

    def __aiter__(self) -> AsyncIterator[Any]: ...

    async def close(self) -> None: ...


async def retrying_stream(
    open_stream: Callable[[], Awaitable[VendorStream]],
    make_mapper: Callable[[], StreamMapper],
    map_exception: Callable[[BaseException], BaseException],
    max_retries: int = 5,
    policy: RetryPolicy = DEFAULT_POLICY,
    setup: Callable[[], None] | None = None,
    amend_end: Callable[[MessageEnd], Awaitable[MessageEnd]] | None = None,
) -> AsyncGenerator[ProviderStreamEvent, None]:
    """Stream one model turn with retries, mapping vendor events as they arrive (retry and
    mapping fused in one generator: one layer per event instead of four).

    Yields `MessageStart` once, then opens attempts with ``open_stream``; each attempt gets a
    fresh mapper from ``make_mapper``. Every failure (opening, reading, mapping, or the
    mapper's `finish`) is passed through ``map_exception``; a `SkawldError` with
    ``retryable=True`` is retried (per ``policy``, at most ``max_retries`` times) only while
    the current attempt has yielded nothing. Each vendor stream is closed before the next
    attempt starts and when the consumer stops early. ``setup`` runs first, inside the
    generator (e.g. API-key checks), so its errors surface on iteration, not on the call.
    ``amend_end`` may replace the final `MessageEnd` (e.g. usage recounted by the server's
    tokenizer).
    """
    if setup is not None:
        setup()
    if max_retries < 0:
        raise ConfigError(f"max_retries must be >= 0, got {max_retries}")
    yield MessageStart()
    retry_index = 0
    started = policy.clock()
    while True:
        committed = False
        try:
            vendor = await open_stream()
            try:
                mapper = make_mapper()
                feed = mapper.feed
                async for raw in vendor:
                    out = feed(raw)
                    if out is None:
                        continue
                    committed = True
                    if type(out) is list:
                        for ev in out:
                            yield ev
                    else:
                        yield out  # type: ignore[misc]
                for ev in mapper.finish():
                    committed = True
                    if amend_end is not None and isinstance(ev, MessageEnd):
                        ev = await amend_end(ev)
                    yield ev
            finally:
                await vendor.close()
            return
        except Exception as exc:
            err = map_exception(exc)
            delay: float | None = None
            if isinstance(err, SkawldError) and not committed and retry_index < max_retries:
                delay = policy.delay_for(err, retry_index)
                if delay is not None and policy.clock() - started + delay > policy.max_elapsed:
                    delay = None
            if delay is None:
                if err is exc:
                    raise
                raise err from exc
        retry_index += 1
        await policy.sleep(delay)
