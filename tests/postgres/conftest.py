"""A real PostgreSQL server for the tests in this folder.

The session-scoped `pg_dsn` fixture uses ``SKAWLD_TEST_PG_DSN`` when set, else
starts a throwaway server (initdb + pg_ctl on a free port) and stops it at the
end. Without the server binaries the tests skip with the reason, except when
``CI=true``: then they fail.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from skawld_core.testing.postgres_server import PostgresServerUnavailable, start_postgres  # noqa: E402
from tests.cli.harness import cli  # noqa: E402, F401


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    """DSN of a PostgreSQL server's ``postgres`` database (superuser)."""
    given = os.environ.get("SKAWLD_TEST_PG_DSN")
    if given:
        yield given
        return
    try:
        server = start_postgres()
    except PostgresServerUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required in CI: {exc}")
        pytest.skip(f"no PostgreSQL server: {exc}")
    try:
        yield server.dsn
    finally:
        server.stop()


def _with_database(dsn: str, name: str) -> str:
    base, _, _ = dsn.rpartition("/")
    return f"{base}/{name}"


async def _create_database(dsn: str, name: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


@pytest.fixture
def fresh_db(pg_dsn: str) -> str:
    """DSN of a new, empty database on the test server."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    asyncio.run(_create_database(pg_dsn, name))
    return _with_database(pg_dsn, name)
