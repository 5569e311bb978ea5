"""Retrying a store call through transient faults (``skawld work``, and the appends of a run
whose agent has a `StoreRetry` policy).

`retrying(call, ...)` re-runs `call` while it raises a `SessionStoreError` marked
`retryable` (a lost connection, a restarting or read-only server, a statement
timeout, a full disk: see `skawld_core.sessions._pg_errors`), with exponential
backoff and full jitter, for at most `budget_s` seconds; then the last error is
raised. Any other error is raised at once.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from skawld_core.errors import SessionStoreError

T = TypeVar("T")

FIRST_DELAY_S = 0.05
MAX_DELAY_S = 2.0


@dataclass(frozen=True)
class StoreRetry:
    """How a run retries an append that met a passing database fault (`Agent.store_retry`):
    for up to `budget_s` seconds, telling `log` about it."""

    budget_s: float
    log: Callable[[str], None]


def is_transient(exc: BaseException) -> bool:
    """A store error worth retrying."""
    return isinstance(exc, SessionStoreError) and exc.retryable


async def retrying(
    call: Callable[[], Awaitable[T]],
    *,
    what: str,
    budget_s: float,
    log: Callable[[str], None],
) -> T:
    """`call()`, retried through transient store errors for up to `budget_s` seconds."""
    deadline = time.monotonic() + budget_s
    delay = FIRST_DELAY_S
    attempt = 0
    while True:
        try:
            return await call()
        except SessionStoreError as exc:
            if not exc.retryable or time.monotonic() + delay > deadline:
                raise
            attempt += 1
            if attempt == 1 or attempt % 10 == 0:
                log(f"{what}: {exc} (retrying)")
        await asyncio.sleep(random.uniform(0, delay))
        delay = min(delay * 2, MAX_DELAY_S)
