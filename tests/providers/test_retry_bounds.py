"""Retrying is bounded in time as well as in count."""

from __future__ import annotations

import pytest

from skawld_core.errors import ProviderError
from skawld_core.providers.retry import RetryPolicy
from tests.support.provider_kit import collect, make_provider
from tests.support.wire_server import WireServer, http_error

pytestmark = pytest.mark.timeout(60)


class Clock:
    """A clock that the injected sleep moves forward."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


async def test_no_retry_starts_after_max_elapsed(wire: WireServer) -> None:
    wire.chat.default = http_error(503, "busy")
    clock = Clock()
    policy = RetryPolicy(base_delay=4.0, max_delay=30.0, jitter=0.0, max_elapsed=20.0, sleep=clock.sleep, clock=clock)
    with pytest.raises(ProviderError, match="503"):
        await collect(make_provider("chat", wire, retry_policy=policy))
    # 4 + 8 fit in 20 s; 16 more would end at 28 s: stopped after 3 attempts, not 6.
    assert clock.slept == [4.0, 8.0] and len(wire.chat.requests) == 3


async def test_the_count_still_bounds_quick_retries(wire: WireServer) -> None:
    wire.chat.default = http_error(503, "busy")
    clock = Clock()
    policy = RetryPolicy(base_delay=0.01, jitter=0.0, sleep=clock.sleep, clock=clock)
    with pytest.raises(ProviderError):
        await collect(make_provider("chat", wire, retry_policy=policy))
    assert len(wire.chat.requests) == 6
