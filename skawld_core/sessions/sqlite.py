"""`SqliteSessionStore`: the default, file-backed `SessionStore` (aiosqlite).

One connection per store, opened lazily on the first call. Every call runs under
one `asyncio.Lock` and inside a shielded task, so calls on one store object are
serialized, a cancelled caller never leaves a transaction half-done, and every
multi-statement write is a single `BEGIN IMMEDIATE` transaction (which also
serializes writers in other processes through SQLite's file lock).
"""

from __future__ import annotations

import asyncio
import sqlite3
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import aiosqlite
from pydantic import ValidationError

from ..errors import SessionStoreError
from ..messages import InvokedSkillRecord, Message
from ..project_dir import ensure_local_dir
from ._schema import SCHEMA_SQL, SCHEMA_VERSION
from .repair import SessionStoreCorruptError, is_corruption
from .rows import SKILLS, VALIDATE_CHUNK, dumps, load_stored_messages, record_of, tail_of, task_of
from .sqlite_claims import SqliteTaskClaims
from .sqlite_import import SqliteSessionImport
from .sqlite_writer import SqliteRunGuard
from .store import CreateTaskInput, HistoryTail, SessionRecord, StoredMessage, Task, TaskPatch
from .task_graph import Edge, MonotonicClock, apply_scalars, json_copy, plan_edges, sorted_ids

T = TypeVar("T")
Work = Callable[[aiosqlite.Connection], Awaitable[T]]
Mode = Literal["query", "read", "write"]

_SESSION_COLUMNS = "id, created_at, updated_at, meta_json, invoked_skills_json"
_TASK_COLUMNS = "id, subject, description, active_form, status, owner, metadata_json, created_at, updated_at"
_BUSY_TIMEOUT_S = 10.0


class SqliteSessionStore(SqliteTaskClaims, SqliteSessionImport, SqliteRunGuard):
    """A `SessionStore` in one SQLite file (default `<cwd>/.skawld/sessions.db`).

    Nothing touches the disk until the first method call; the parent directory
    is created then. After `close()` the next call reopens the file. Task
    claims (`ClaimableTaskGraph`) come from `SqliteTaskClaims`, the writer lock
    (`RunGuardStore`) from `SqliteRunGuard`.
    """

    def __init__(self, path: str | Path | None = None, *, cwd: Path | None = None) -> None:
        base = Path(cwd) if cwd is not None else Path.cwd()
        if path is None:
            self.path = base / ".skawld" / "sessions.db"
        elif str(path) == ":memory:":
            self.path = Path(":memory:")
        else:
            candidate = Path(path).expanduser()
            self.path = candidate if candidate.is_absolute() else base / candidate
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._clock = MonotonicClock()
        self._held: dict[str, int] = {}  # session id -> writer epoch, while run_guard holds it

    # ----- sessions -----

    async def create(self, *, id: str | None = None, meta: Mapping[str, Any] | None = None) -> SessionRecord:
        """Create a session, or return the existing one (its meta unchanged)."""
        session_id = id if id is not None else str(uuid.uuid4())
        meta_json = dumps(json_copy(meta or {}, "Session meta"))

        async def work(conn: aiosqlite.Connection) -> SessionRecord:
            now = self._clock.now()
            await conn.execute(
                "INSERT OR IGNORE INTO sessions (id, created_at, updated_at, meta_json) VALUES (?, ?, ?, ?)",
                (session_id, now, now, meta_json),
            )
            record = await self._load_record(conn, session_id)
            assert record is not None
            return record

        return await self._run("create session", work, "write")

    async def load(self, id: str) -> SessionRecord | None:
        """The session record (a fresh copy), or `None`."""

        async def work(conn: aiosqlite.Connection) -> SessionRecord | None:
            return await self._load_record(conn, id)

        return await self._run("load session", work, "query")

    async def list_sessions(self, *, limit: int | None = None, offset: int = 0) -> list[SessionRecord]:
        """Sessions by `updated_at` descending, paged by `limit` / `offset`."""
        sql_limit = -1 if limit is None else max(limit, 0)

        async def work(conn: aiosqlite.Connection) -> list[SessionRecord]:
            rows = await conn.execute_fetchall(
                f"SELECT {_SESSION_COLUMNS} FROM sessions ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?",
                (sql_limit, max(offset, 0)),
            )
            return [record_of(row) for row in rows]

        return await self._run("list sessions", work, "query")

    async def update_meta(self, id: str, meta: Mapping[str, Any]) -> SessionRecord:
        """Shallow-merge `meta` into the session's meta in one transaction."""
        patch = json_copy(meta, "Session meta")

        async def work(conn: aiosqlite.Connection) -> SessionRecord:
            record = await self._require(conn, id)
            merged = {**record.meta, **patch}
            await conn.execute(
                "UPDATE sessions SET meta_json = ?, updated_at = ? WHERE id = ?",
                (dumps(merged), self._clock.now(), id),
            )
            updated = await self._load_record(conn, id)
            assert updated is not None
            return updated

        return await self._run("update session meta", work, "write")

    async def delete(self, id: str) -> None:
        """Delete the session; messages, tasks, edges and counter cascade."""

        async def work(conn: aiosqlite.Connection) -> None:
            await conn.execute("DELETE FROM sessions WHERE id = ?", (id,))

        await self._run("delete session", work, "write")

    # ----- messages -----

    async def load_messages(self, id: str) -> list[StoredMessage]:
        """The session's messages in `seq` order (empty for an unknown id)."""

        async def work(conn: aiosqlite.Connection) -> list[StoredMessage]:
            where = f"session {id!r} in {self.path}"
            out: list[StoredMessage] = []
            # A chunk at a time: only one chunk's rows are alive beside the messages they become.
            async with conn.execute(
                "SELECT seq, appended_at, message_json FROM messages WHERE session_id = ? ORDER BY seq", (id,)
            ) as cursor:
                while rows := list(await cursor.fetchmany(VALIDATE_CHUNK)):
                    out += await load_stored_messages(rows, where)  # once, off the event loop
            return out

        return await self._run("load messages", work, "query")

    async def load_tail(self, id: str, limit: int) -> HistoryTail:
        """The last `limit` messages in `seq` order and the message count, from one read transaction."""

        async def work(conn: aiosqlite.Connection) -> HistoryTail:
            async with conn.execute("SELECT COUNT(*) FROM messages WHERE session_id = ?", (id,)) as cursor:
                (total,) = await cursor.fetchone() or (0,)
            async with conn.execute(
                "SELECT seq, appended_at, message_json FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?",
                (id, max(0, limit)),
            ) as cursor:
                rows = list(await cursor.fetchall())
            return await tail_of(total, rows, f"session {id!r} in {self.path}")

        return await self._run("load messages", work, "read")

    async def append_messages(self, id: str, messages: Sequence[Message]) -> list[StoredMessage]:
        """Append `messages` atomically with the next `seq` values (from 1)."""
        try:
            payloads = [m.model_dump_json(exclude_none=True) for m in messages]
            copies = [Message.model_validate_json(p) for p in payloads]
        except (ValidationError, ValueError, TypeError) as exc:
            raise SessionStoreError(f"Cannot serialize messages: {exc}", cause=exc) from exc

        async def work(conn: aiosqlite.Connection) -> list[StoredMessage]:
            await self.check_fence(conn, id)
            now = self._clock.now()
            await self._touch(conn, id, now)
            if not payloads:
                return []
            cursor = await conn.execute("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?", (id,))
            row = await cursor.fetchone()
            start = int(row[0]) + 1 if row else 1
            await conn.executemany(
                "INSERT INTO messages (session_id, seq, appended_at, message_json) VALUES (?, ?, ?, ?)",
                [(id, start + i, now, p) for i, p in enumerate(payloads)],
            )
            return [StoredMessage(seq=start + i, appended_at=now, message=m) for i, m in enumerate(copies)]

        return await self._run("append messages", work, "write")

    # ----- invoked skills -----

    async def set_invoked_skills(self, id: str, skills: Sequence[InvokedSkillRecord]) -> None:
        """Replace the session's invoked-skill list."""
        payload = SKILLS.dump_json(list(skills)).decode()

        async def work(conn: aiosqlite.Connection) -> None:
            cursor = await conn.execute(
                "UPDATE sessions SET invoked_skills_json = ?, updated_at = ? WHERE id = ?",
                (payload, self._clock.now(), id),
            )
            if cursor.rowcount == 0:
                raise SessionStoreError(f"Session {id!r} not found")

        await self._run("set invoked skills", work, "write")

    # ----- tasks -----

    async def create_task(self, session_id: str, input: CreateTaskInput) -> Task:
        """Create a task with the session's next numeric id (never reused)."""
        metadata_json = dumps(json_copy(input.metadata, "Task metadata"))

        async def work(conn: aiosqlite.Connection) -> Task:
            now = self._clock.now()
            await self._touch(conn, session_id, now)
            await conn.execute(
                "INSERT OR IGNORE INTO task_counters (session_id, next_id) VALUES (?, 1)",
                (session_id,),
            )
            cursor = await conn.execute("SELECT next_id FROM task_counters WHERE session_id = ?", (session_id,))
            row = await cursor.fetchone()
            assert row is not None
            task_id = str(row[0])
            await conn.execute("UPDATE task_counters SET next_id = next_id + 1 WHERE session_id = ?", (session_id,))
            await conn.execute(
                f"INSERT INTO tasks (session_id, {_TASK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_id,
                    task_id,
                    input.subject,
                    input.description,
                    input.active_form,
                    input.status,
                    input.owner,
                    metadata_json,
                    now,
                    now,
                ),
            )
            task = await self._load_task(conn, session_id, task_id, [])
            assert task is not None
            return task

        return await self._run("create task", work, "write")

    async def get_task(self, session_id: str, task_id: str) -> Task | None:
        """The task with derived `blocks` / `blocked_by`, or `None`."""

        async def work(conn: aiosqlite.Connection) -> Task | None:
            return await self._load_task(conn, session_id, task_id, await self._edges(conn, session_id))

        return await self._run("get task", work, "read")

    async def list_tasks(self, session_id: str) -> list[Task]:
        """All tasks of the session in numeric id order."""

        async def work(conn: aiosqlite.Connection) -> list[Task]:
            edges = await self._edges(conn, session_id)
            rows = await conn.execute_fetchall(
                f"SELECT {_TASK_COLUMNS} FROM tasks WHERE session_id = ? ORDER BY CAST(id AS INTEGER), id",
                (session_id,),
            )
            tasks = [task_of(row, edges) for row in rows]
            order = {tid: i for i, tid in enumerate(sorted_ids(t.id for t in tasks))}
            return sorted(tasks, key=lambda t: order[t.id])

        return await self._run("list tasks", work, "read")

    async def update_task(self, session_id: str, task_id: str, patch: TaskPatch) -> Task | None:
        """Apply `patch` in one transaction; `None` if the task is missing or deleted.

        A missing edge target or a cycle raises `SessionStoreError` and changes nothing.
        """
        patch_metadata = json_copy(patch.metadata, "Task metadata") if patch.metadata is not None else None

        async def work(conn: aiosqlite.Connection) -> Task | None:
            current = await self._load_task(conn, session_id, task_id, [])
            if current is None:
                return None
            now = self._clock.now()
            if patch.status == "deleted":
                await conn.execute("DELETE FROM tasks WHERE session_id = ? AND id = ?", (session_id, task_id))
                await self._touch(conn, session_id, now)
                return None
            edges = await self._edges(conn, session_id)
            id_rows = await conn.execute_fetchall("SELECT id FROM tasks WHERE session_id = ?", (session_id,))
            plan = plan_edges(task_id, patch, edges, {str(r[0]) for r in id_rows})
            scalars = apply_scalars(current, patch.model_copy(update={"metadata": patch_metadata}))
            await conn.execute(
                "UPDATE tasks SET subject = ?, description = ?, active_form = ?, status = ?, owner = ?,"
                " metadata_json = ?, updated_at = ? WHERE session_id = ? AND id = ?",
                (
                    scalars.subject,
                    scalars.description,
                    scalars.active_form,
                    scalars.status,
                    scalars.owner,
                    dumps(scalars.metadata),
                    now,
                    session_id,
                    task_id,
                ),
            )
            if plan.remove:
                await conn.executemany(
                    "DELETE FROM task_edges WHERE session_id = ? AND from_task_id = ? AND to_task_id = ?",
                    [(session_id, src, dst) for src, dst in plan.remove],
                )
            if plan.add:
                await conn.executemany(
                    "INSERT INTO task_edges (session_id, from_task_id, to_task_id, kind) VALUES (?, ?, ?, 'blocks')",
                    [(session_id, src, dst) for src, dst in sorted(plan.add)],
                )
            await self._touch(conn, session_id, now)
            new_edges = (set(edges) - plan.remove) | plan.add
            return await self._load_task(conn, session_id, task_id, new_edges)

        return await self._run("update task", work, "write")

    async def delete_task(self, session_id: str, task_id: str) -> bool:
        """Delete the task and every edge touching it; `False` if it was missing."""

        async def work(conn: aiosqlite.Connection) -> bool:
            cursor = await conn.execute("DELETE FROM tasks WHERE session_id = ? AND id = ?", (session_id, task_id))
            if cursor.rowcount == 0:
                return False
            await self._touch(conn, session_id, self._clock.now())
            return True

        return await self._run("delete task", work, "write")

    # ----- lifecycle -----

    async def close(self) -> None:
        """Close the database handle (waits for the call in progress)."""
        async with self._loop_lock():
            await self._close_connection()

    async def __aenter__(self) -> SqliteSessionStore:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ----- plumbing -----

    async def _run(self, op: str, work: Work[T], mode: Mode) -> T:
        """Run `work` under the store lock in a task that a cancelled caller cannot interrupt."""
        task = asyncio.ensure_future(self._locked(op, work, mode))
        task.add_done_callback(_retrieve_exception)
        return await asyncio.shield(task)

    def _loop_lock(self) -> asyncio.Lock:
        """The store lock, re-created if the store is used from a new event loop."""
        loop = asyncio.get_running_loop()
        if self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        return self._lock

    async def _locked(self, op: str, work: Work[T], mode: Mode) -> T:
        async with self._loop_lock():
            conn = await self._connection()
            if mode == "query":
                try:
                    return await work(conn)
                except sqlite3.Error as exc:
                    raise self._error(op, exc) from exc
            try:
                await conn.execute("BEGIN IMMEDIATE" if mode == "write" else "BEGIN")
            except sqlite3.Error as exc:
                raise self._error(op, exc) from exc
            try:
                result = await work(conn)
                await conn.execute("COMMIT")
            except BaseException as exc:
                await self._rollback(conn)
                if isinstance(exc, sqlite3.Error):
                    raise self._error(op, exc) from exc
                raise
            return result

    async def _rollback(self, conn: aiosqlite.Connection) -> None:
        try:
            await conn.execute("ROLLBACK")
        except (sqlite3.Error, ValueError):
            # SQLite already rolled back (e.g. after SQLITE_FULL) or the handle is broken:
            # reopen on the next call rather than risk reusing a half-open transaction.
            await self._close_connection()

    def _error(self, op: str, exc: sqlite3.Error) -> SessionStoreError:
        if is_corruption(exc):
            return SessionStoreCorruptError(self.path, str(exc))
        return SessionStoreError(f"Session store {op} failed ({self.path}): {exc}", cause=exc)

    async def _connection(self) -> aiosqlite.Connection:
        if self._conn is not None:
            return self._conn
        memory = str(self.path) == ":memory:"
        try:
            if not memory:
                ensure_local_dir(self.path.parent)
        except OSError as exc:
            raise SessionStoreError(f"Cannot create session database directory {self.path.parent}: {exc}") from exc
        conn: aiosqlite.Connection | None = None
        try:
            conn = await aiosqlite.connect(str(self.path), isolation_level=None, timeout=_BUSY_TIMEOUT_S)
            await conn.execute("PRAGMA foreign_keys = ON")
            if not memory:
                await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            cursor = await conn.execute("PRAGMA user_version")
            row = await cursor.fetchone()
            version = int(row[0]) if row else 0
            if version > SCHEMA_VERSION:
                raise SessionStoreError(
                    f"Session database {self.path} has schema version {version}; "
                    f"this skawld supports version {SCHEMA_VERSION}"
                )
            if version < SCHEMA_VERSION:
                await conn.executescript(SCHEMA_SQL)
        except (sqlite3.Error, OSError, SessionStoreError) as exc:
            if conn is not None:
                await _quiet_close(conn)
            if isinstance(exc, SessionStoreError):
                raise
            if is_corruption(exc):
                raise SessionStoreCorruptError(self.path, str(exc)) from exc
            raise SessionStoreError(f"Cannot open session database {self.path}: {exc}", cause=exc) from exc
        self._conn = conn
        return conn

    async def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await _quiet_close(conn)

    async def _touch(self, conn: aiosqlite.Connection, id: str, now: str) -> None:
        cursor = await conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (now, id))
        if cursor.rowcount == 0:
            raise SessionStoreError(f"Session {id!r} not found")

    async def _require(self, conn: aiosqlite.Connection, id: str) -> SessionRecord:
        record = await self._load_record(conn, id)
        if record is None:
            raise SessionStoreError(f"Session {id!r} not found")
        return record

    async def _load_record(self, conn: aiosqlite.Connection, id: str) -> SessionRecord | None:
        cursor = await conn.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = ?", (id,))
        row = await cursor.fetchone()
        return record_of(row) if row is not None else None

    async def _edges(self, conn: aiosqlite.Connection, session_id: str) -> list[Edge]:
        rows = await conn.execute_fetchall(
            "SELECT from_task_id, to_task_id FROM task_edges WHERE session_id = ?", (session_id,)
        )
        return [(str(src), str(dst)) for src, dst in rows]

    async def _load_task(
        self, conn: aiosqlite.Connection, session_id: str, task_id: str, edges: Sequence[Edge] | set[Edge]
    ) -> Task | None:
        cursor = await conn.execute(
            f"SELECT {_TASK_COLUMNS} FROM tasks WHERE session_id = ? AND id = ?", (session_id, task_id)
        )
        row = await cursor.fetchone()
        return task_of(row, edges) if row is not None else None


async def _quiet_close(conn: aiosqlite.Connection) -> None:
    try:
        await conn.close()
    except (sqlite3.Error, ValueError):
        pass


def _retrieve_exception(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()
