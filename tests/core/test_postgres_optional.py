"""asyncpg is optional: importing skawld_core never loads it, and using the
PostgreSQL store without it is a clear ConfigError naming the extra."""

from __future__ import annotations

import subprocess
import sys

_BLOCKED = """
import asyncio, sys
sys.modules["asyncpg"] = None  # as if it were not installed
from skawld_core.errors import ConfigError
from skawld_core.sessions import PostgresSessionStore
try:
    asyncio.run(PostgresSessionStore("postgresql://u:pw@127.0.0.1/d").list_sessions())
except ConfigError as exc:
    print("ConfigError:", exc)
"""


def test_missing_asyncpg_names_the_extra() -> None:
    out = subprocess.run([sys.executable, "-c", _BLOCKED], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ConfigError: PostgresSessionStore needs asyncpg: pip install 'skawld[postgres]'"


def test_importing_skawld_core_does_not_load_asyncpg() -> None:
    code = "import sys, skawld_core, skawld_core.sessions, skawld_core.session; print('asyncpg' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
