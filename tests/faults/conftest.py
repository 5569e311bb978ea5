"""Fault injection on real processes and a real PostgreSQL server (see docs/postgres.md, "Under faults").

Reuses the PostgreSQL fixtures of tests/postgres (`pg_dsn`, `fresh_db`: a throwaway
server started with initdb/pg_ctl, skipped outside CI without the binaries) and the
`cli` fixture (the real `skawld` command against a local wire server); `own_pg` is a
server of the test's own (to restart it, or give it a tablespace on a small disk).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from skawld_core.testing.postgres_server import PostgresServer, PostgresServerUnavailable, start_postgres
from tests.cli.harness import cli  # noqa: F401
from tests.postgres.conftest import fresh_db, pg_dsn  # noqa: F401


@pytest.fixture
def own_pg() -> Iterator[PostgresServer]:
    """A server of this test's own (to restart it)."""
    try:
        server = start_postgres()
    except PostgresServerUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI: {exc}")
        pytest.skip(f"no PostgreSQL server: {exc}")
    try:
        yield server
    finally:
        server.stop()
