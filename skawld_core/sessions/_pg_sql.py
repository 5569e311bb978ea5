"""SQL fragments shared by the PostgreSQL store's modules, and its row readers (`rows` with server timestamps)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from . import rows
from .store import SessionRecord, Task
from .task_graph import Edge

# The stores' timestamp text (ISO-8601 UTC, microseconds, "Z"), formatted by the server.
ISO = """to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')"""
NOW = "GREATEST(clock_timestamp(), updated_at + interval '1 microsecond')"
TASK_ORDER = "(CASE WHEN t.id ~ '^[0-9]{1,18}$' THEN t.id::bigint END) NULLS LAST, t.id"


def without_nul(value: Any) -> Any:
    """`value` (JSON data) with every U+0000 in its strings written as the text ``\\u0000``:
    jsonb cannot hold U+0000, so such a value is stored escaped rather than refused."""
    if isinstance(value, str):
        return value.replace("\x00", "\\u0000") if "\x00" in value else value
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_nul(v) for v in value]
    return value


def jsonb(value: Any) -> str:
    """JSON text for a jsonb parameter (U+0000 escaped, see `without_nul`)."""
    return rows.dumps(without_nul(value))


def iso(value: datetime) -> str:
    """A timestamp as the stores' ISO-8601 UTC text (microseconds, ``Z``)."""
    return value.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def record_of(row: Any) -> SessionRecord:
    """A session row, timestamps formatted by `iso`."""
    return rows.record_of(row, iso)


def task_of(row: Any, edges: Sequence[Edge] | set[Edge]) -> Task:
    """A task row, timestamps formatted by `iso`."""
    return rows.task_of(row, edges, iso)
