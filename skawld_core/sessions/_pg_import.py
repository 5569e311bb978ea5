"""`PostgresSessionStore.import_session`: write a `SessionDump` verbatim (one transaction)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ._pg_sql import jsonb
from .transfer import ImportCounts, SessionDump

if TYPE_CHECKING:
    import asyncpg


def parse_ts(value: str) -> datetime:
    """A stored ISO-8601 timestamp as an aware datetime (now for an empty one)."""
    if not value:
        return datetime.now(UTC)
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def numeric_max(ids: list[str]) -> int:
    return max((int(i) for i in ids if i.isdigit()), default=0)


async def import_dump(conn: asyncpg.Connection[Any], dump: SessionDump, schema: str) -> ImportCounts:
    """Insert what `conn`'s database lacks of `dump`; counts what was written."""
    counts = ImportCounts()
    rec = dump.record
    sid = rec.id
    status = await conn.execute(
        "INSERT INTO sessions (id, created_at, updated_at, meta, invoked_skills)"
        " VALUES ($1, $2, $3, $4::jsonb, $5::jsonb) ON CONFLICT (id) DO NOTHING",
        sid,
        parse_ts(rec.created_at),
        parse_ts(rec.updated_at),
        jsonb(rec.meta),
        jsonb([s.model_dump(mode="json") for s in rec.invoked_skills]),
    )
    counts.sessions = 0 if status.endswith(" 0") else 1
    row = await conn.fetchrow("SELECT next_seq FROM sessions WHERE id = $1 FOR UPDATE", sid)
    assert row is not None
    last_seq = int(row[0]) - 1
    new_messages = [m for m in dump.messages if m.seq > last_seq]
    if new_messages:
        await conn.copy_records_to_table(
            "messages",
            records=[
                (sid, m.seq, parse_ts(m.appended_at), m.message.model_dump_json(exclude_none=True))
                for m in new_messages
            ],
            columns=["session_id", "seq", "appended_at", "message_json"],
            schema_name=schema,
        )
    counts.messages = len(new_messages)
    have = {r[0] for r in await conn.fetch("SELECT id FROM tasks WHERE session_id = $1", sid)}
    new_tasks = [t for t in dump.tasks if t.id not in have]
    if new_tasks:
        await conn.executemany(
            "INSERT INTO tasks (session_id, id, subject, description, active_form, status, owner, metadata,"
            " created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10)",
            [
                (
                    sid,
                    t.id,
                    t.subject,
                    t.description,
                    t.active_form,
                    t.status,
                    t.owner,
                    jsonb(t.metadata),
                    parse_ts(t.created_at),
                    parse_ts(t.updated_at),
                )
                for t in new_tasks
            ],
        )
    counts.tasks = len(new_tasks)
    have_edges = {
        (r[0], r[1])
        for r in await conn.fetch("SELECT from_task_id, to_task_id FROM task_edges WHERE session_id = $1", sid)
    }
    new_edges = [e for e in dump.edges if e not in have_edges]
    if new_edges:
        await conn.executemany(
            "INSERT INTO task_edges (session_id, from_task_id, to_task_id) VALUES ($1, $2, $3)",
            [(sid, src, dst) for src, dst in new_edges],
        )
    counts.edges = len(new_edges)
    await conn.execute(
        "UPDATE sessions SET next_seq = GREATEST(next_seq, $2), next_task_id = GREATEST(next_task_id, $3),"
        " updated_at = GREATEST(updated_at, $4) WHERE id = $1",
        sid,
        max((m.seq for m in dump.messages), default=0) + 1,
        numeric_max([t.id for t in dump.tasks]) + 1,
        parse_ts(rec.updated_at),
    )
    return counts
