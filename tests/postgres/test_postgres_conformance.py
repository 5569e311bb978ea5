"""The SessionStore conformance suite on a real PostgreSQL server (one schema per store)."""

from __future__ import annotations

import uuid

import pytest

from skawld_core.sessions.postgres import PostgresSessionStore
from skawld_core.testing.conformance import CONFORMANCE_CHECKS, ConformanceCheck, run_session_store_check


@pytest.mark.parametrize(("name", "check"), CONFORMANCE_CHECKS, ids=[name for name, _ in CONFORMANCE_CHECKS])
async def test_conformance(name: str, check: ConformanceCheck, pg_dsn: str) -> None:
    await run_session_store_check(
        name, check, lambda: PostgresSessionStore(pg_dsn, schema=f"c_{uuid.uuid4().hex[:10]}")
    )
