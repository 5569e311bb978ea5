"""Fixtures for provider tests: a live `WireServer` and a retry policy that never sleeps."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:  # make `tests.support` importable under plain `pytest`
    sys.path.insert(0, _ROOT)

from skawld_core.providers.retry import RetryPolicy  # noqa: E402
from tests.support import provider_kit  # noqa: E402
from tests.support.provider_kit import RecordingSleep  # noqa: E402
from tests.support.wire_server import WireServer  # noqa: E402


@pytest.fixture(params=provider_kit.TRANSPORTS)
def transport(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test that talks to the wire server runs once per transport (HTTP and SDK)."""
    provider_kit.TRANSPORT = request.param
    try:
        yield request.param
    finally:
        provider_kit.TRANSPORT = "http"


@pytest.fixture
def wire(transport: str) -> Iterator[WireServer]:
    """A fresh scripted server for one test (run once per transport)."""
    with WireServer() as srv:
        yield srv


@pytest.fixture
def sleeps() -> RecordingSleep:
    return RecordingSleep()


@pytest.fixture
def fast_retry(sleeps: RecordingSleep) -> RetryPolicy:
    """Default backoff rules, but the sleeps are recorded instead of waited."""
    return RetryPolicy(sleep=sleeps, rand=lambda: 0.5)
