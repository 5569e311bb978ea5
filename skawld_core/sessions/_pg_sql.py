"""SQL fragments and row conversions shared by the PostgreSQL store's modules."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..errors import SessionStoreError
from ..messages import InvokedSkillRecord
from .store import SessionRecord, Task
from .task_graph import Edge, links_for

SKILLS = TypeAdapter(list[InvokedSkillRecord])
# The stores' timestamp text (ISO-8601 UTC, microseconds, "Z"), formatted by the server.
ISO = """to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')"""
NOW = "GREATEST(clock_timestamp(), updated_at + interval '1 microsecond')"
TASK_ORDER = "(CASE WHEN t.id ~ '^[0-9]{1,18}$' THEN t.id::bigint END) NULLS LAST, t.id"


def iso(value: datetime) -> str:
    """A timestamp as the stores' ISO-8601 UTC text (microseconds, ``Z``)."""
    return value.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def loads_dict(raw: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise SessionStoreError(f"Corrupt {what} in session database: {exc}") from exc
    if not isinstance(value, dict):
        raise SessionStoreError(f"Corrupt {what} in session database: expected an object")
    return value


def record_of(row: Any) -> SessionRecord:
    id_, created_at, updated_at, meta_json, skills_json = row
    try:
        skills = SKILLS.validate_json(skills_json)
    except ValidationError as exc:
        raise SessionStoreError(f"Corrupt invoked skills of session {id_!r}: {exc}") from exc
    return SessionRecord(
        id=id_,
        created_at=iso(created_at),
        updated_at=iso(updated_at),
        meta=loads_dict(meta_json, "session meta"),
        invoked_skills=skills,
    )


def task_of(row: Any, edges: Sequence[Edge] | set[Edge]) -> Task:
    task_id, subject, description, active_form, status, owner, metadata_json, created_at, updated_at = row
    blocks, blocked_by = links_for(str(task_id), edges)
    return Task(
        id=str(task_id),
        subject=subject,
        description=description,
        active_form=active_form,
        status=status,
        owner=owner,
        metadata=loads_dict(metadata_json, "task metadata"),
        blocks=blocks,
        blocked_by=blocked_by,
        created_at=iso(created_at),
        updated_at=iso(updated_at),
    )
