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


def iso(value: datetime) -> str:
    """A timestamp as the stores' ISO-8601 UTC text (microseconds, ``Z``)."""
    return value.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def record_of(row: Any) -> SessionRecord:
    """A session row, timestamps formatted by `iso`."""
    return rows.record_of(row, iso)


def task_of(row: Any, edges: Sequence[Edge] | set[Edge]) -> Task:
    """A task row, timestamps formatted by `iso`."""
    return rows.task_of(row, edges, iso)
