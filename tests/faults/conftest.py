"""Fault injection on real processes and a real PostgreSQL server (see docs/postgres.md, "Under faults").

Reuses the PostgreSQL fixtures of tests/postgres (`pg_dsn`, `fresh_db`: a throwaway
server started with initdb/pg_ctl, skipped outside CI without the binaries) and the
`cli` fixture (the real `skawld` command against a local wire server).
"""

from __future__ import annotations

from tests.cli.harness import cli  # noqa: F401
from tests.postgres.conftest import fresh_db, pg_dsn  # noqa: F401
