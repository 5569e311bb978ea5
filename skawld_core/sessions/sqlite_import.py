"""`SqliteSessionStore.import_session` (`SessionImporter`): write a `SessionDump`
verbatim in one ``BEGIN IMMEDIATE`` transaction."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import aiosqlite

from .rows import dumps
from .store import Task
from .transfer import ImportCounts, SessionDump


def _task_row(sid: str, t: Task) -> tuple[Any, ...]:
    meta = dumps(t.metadata)
    return (sid, t.id, t.subject, t.description, t.active_form, t.status, t.owner, meta, t.created_at, t.updated_at)


class SqliteSessionImport:
    """Mixin: `import_session` over the store's `_run` plumbing."""

    _run: Callable[..., Awaitable[Any]]

    async def import_session(self, dump: SessionDump) -> ImportCounts:
        """Write the parts of `dump` this file lacks, keeping ids, seqs and timestamps."""

        async def work(conn: aiosqlite.Connection) -> ImportCounts:
            counts = ImportCounts()
            rec, sid = dump.record, dump.record.id
            cursor = await conn.execute(
                "INSERT OR IGNORE INTO sessions (id, created_at, updated_at, meta_json, invoked_skills_json)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    sid,
                    rec.created_at,
                    rec.updated_at,
                    dumps(rec.meta),
                    dumps([s.model_dump(mode="json") for s in rec.invoked_skills]),
                ),
            )
            counts.sessions = cursor.rowcount
            cursor = await conn.execute("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?", (sid,))
            row = await cursor.fetchone()
            last_seq = int(row[0]) if row else 0
            new_messages = [m for m in dump.messages if m.seq > last_seq]
            await conn.executemany(
                "INSERT INTO messages (session_id, seq, appended_at, message_json) VALUES (?, ?, ?, ?)",
                [(sid, m.seq, m.appended_at, m.message.model_dump_json(exclude_none=True)) for m in new_messages],
            )
            counts.messages = len(new_messages)
            have = {str(r[0]) for r in await conn.execute_fetchall("SELECT id FROM tasks WHERE session_id = ?", (sid,))}
            new_tasks = [t for t in dump.tasks if t.id not in have]
            await conn.executemany(
                "INSERT INTO tasks (session_id, id, subject, description, active_form, status, owner, metadata_json,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [_task_row(sid, t) for t in new_tasks],
            )
            counts.tasks = len(new_tasks)
            rows = await conn.execute_fetchall(
                "SELECT from_task_id, to_task_id FROM task_edges WHERE session_id = ?", (sid,)
            )
            have_edges = {(str(a), str(b)) for a, b in rows}
            new_edges = [e for e in dump.edges if e not in have_edges]
            await conn.executemany(
                "INSERT INTO task_edges (session_id, from_task_id, to_task_id, kind) VALUES (?, ?, ?, 'blocks')",
                [(sid, a, b) for a, b in new_edges],
            )
            counts.edges = len(new_edges)
            next_id = max((int(t.id) for t in dump.tasks if t.id.isdigit()), default=0) + 1
            await conn.execute(
                "INSERT INTO task_counters (session_id, next_id) VALUES (?, ?)"
                " ON CONFLICT (session_id) DO UPDATE SET next_id = MAX(next_id, excluded.next_id)",
                (sid, next_id),
            )
            await conn.execute(
                "UPDATE sessions SET updated_at = MAX(updated_at, ?) WHERE id = ?", (rec.updated_at, sid)
            )
            return counts

        result: ImportCounts = await self._run("import session", work, "write")
        return result
