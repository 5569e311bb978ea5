"""`PostgresSessionStore`: a `SessionStore` in PostgreSQL (asyncpg), shared by
many processes and machines.

- A connection pool is opened lazily on the first call (per event loop), and
  pending schema migrations (`_pg_schema.MIGRATIONS`) are applied then.
- Every multi-statement write is one transaction. Writes that allocate a
  number (message `seq`, task id) or change the task graph first lock the
  session's row (`UPDATE ... RETURNING` / `SELECT ... FOR UPDATE`), so
  concurrent writers in any process get gap-free, duplicate-free numbers and
  cycle checks see every committed edge.
- Calls run in a shielded task: a cancelled caller never leaves a write
  half-done (the same guarantee as `SqliteSessionStore`).
- The DSN is a secret: it is never part of an error message or a repr
  (passwords are redacted, see `dsn.scrub`).
- `run_guard` holds the session's writer lock (an advisory lock on a pooled
  connection, plus a writer epoch); appends to a held session run on that
  connection and carry the epoch (see `_pg_writer`). PostgreSQL drops the lock
  when that connection (or the process) dies.
- Task claims (`ClaimableTaskGraph`) use ``FOR UPDATE SKIP LOCKED`` with
  leases; see `claims`.

``asyncpg`` is an optional dependency (``pip install 'skawld[postgres]'``),
imported on first use.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import ValidationError

from ..errors import ConfigError, SessionStoreError
from ..messages import InvokedSkillRecord, Message
from ._pg_claims import PostgresTaskClaims
from ._pg_errors import caught, is_transient, store_error
from ._pg_import import import_dump
from ._pg_listen import PostgresTaskListener
from ._pg_schema import MIGRATION_LOCK_KEY, MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION
from ._pg_sql import ISO as _ISO
from ._pg_sql import NOW as _NOW
from ._pg_sql import TASK_ORDER as _TASK_ORDER
from ._pg_sql import jsonb, record_of, task_of
from ._pg_writer import PostgresRunGuard, WriterLease
from .dsn import redact_dsn, scrub
from .rows import SKILLS, load_stored_messages, tail_of
from .store import CreateTaskInput, HistoryTail, SessionRecord, StoredMessage, Task, TaskPatch
from .task_graph import Edge, apply_scalars, json_copy, plan_edges, sorted_ids
from .transfer import ImportCounts, SessionDump

if TYPE_CHECKING:
    import asyncpg

T = TypeVar("T")
Work = Callable[["asyncpg.Connection[Any]"], Awaitable[T]]

INSTALL_HINT = "PostgresSessionStore needs asyncpg: pip install 'skawld[postgres]'"

_SESSION_COLUMNS = "id, created_at, updated_at, meta::text, invoked_skills::text"
_TASK_COLUMNS = "id, subject, description, active_form, status, owner, metadata::text, created_at, updated_at"


def _import_asyncpg() -> Any:
    try:
        import asyncpg
    except ImportError as exc:
        raise ConfigError(INSTALL_HINT, cause=exc) from None
    return asyncpg


class PostgresSessionStore(PostgresTaskClaims, PostgresRunGuard, PostgresTaskListener):
    """A `SessionStore` in a PostgreSQL database named by `dsn`.

    `schema` (default ``public``) is the PostgreSQL schema holding the tables;
    it is created if missing, so several independent stores can share one
    database. `max_connections` bounds the pool. Nothing connects until the
    first call; after `close()` the next call reconnects.

    `synchronous_commit=False` (the default) commits without waiting for the
    server's WAL flush: a committed write is visible to every process at once
    and survives a crash of skawld or of the server process, but the last
    fraction of a second of commits can be lost if the server's machine loses
    power — the same trade as `SqliteSessionStore` (WAL, ``synchronous=NORMAL``).
    Pass `True` to wait for the flush on every commit.
    """

    def __init__(
        self, dsn: str, *, schema: str = "public", max_connections: int = 10, synchronous_commit: bool = False
    ) -> None:
        if not dsn or not dsn.strip():
            raise ConfigError("PostgresSessionStore needs a DSN (postgresql://user@host/db)")
        if not schema.replace("_", "").isalnum():
            raise ConfigError(f"Invalid PostgreSQL schema name {schema!r} (letters, digits and _ only)")
        self._dsn = dsn
        self.schema = schema
        self.max_connections = max(2, max_connections)
        self.synchronous_commit = synchronous_commit
        self._pool: Any = None
        self._pool_loop: asyncio.AbstractEventLoop | None = None
        self._pool_lock: asyncio.Lock | None = None
        self._held: dict[str, WriterLease] = {}  # session id -> writer lock held by run_guard
        self._ready: dict[str, asyncio.Event] = {}  # task list -> "a task may be ready" (task_ready)
        self._listener: Any = None

    def __repr__(self) -> str:
        return f"PostgresSessionStore({redact_dsn(self._dsn)!r}, schema={self.schema!r})"

    @property
    def redacted_dsn(self) -> str:
        """The DSN with its password replaced by ``***`` (safe to show)."""
        return redact_dsn(self._dsn)

    # ----- sessions -----

    async def create(self, *, id: str | None = None, meta: Mapping[str, Any] | None = None) -> SessionRecord:
        """Create a session, or return the existing one (its meta unchanged)."""
        session_id = id if id is not None else str(uuid.uuid4())
        meta_json = jsonb(json_copy(meta or {}, "Session meta"))

        async def work(conn: asyncpg.Connection[Any]) -> SessionRecord:
            # One statement (one round trip, atomic): the new row, or the existing one unchanged.
            row = await conn.fetchrow(
                f"""WITH ins AS (
                  INSERT INTO sessions (id, created_at, updated_at, meta)
                  VALUES ($1, clock_timestamp(), clock_timestamp(), $2::jsonb) ON CONFLICT (id) DO NOTHING
                  RETURNING {_SESSION_COLUMNS})
                SELECT * FROM ins UNION ALL
                SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM ins)""",
                session_id,
                meta_json,
            )
            if row is None:  # inserted meanwhile by a transaction this statement's snapshot predates
                record = await self._load_record(conn, session_id)
                assert record is not None
                return record
            return record_of(row)

        return await self._run("create session", work, write=False)  # one atomic statement

    async def load(self, id: str) -> SessionRecord | None:
        """The session record (a fresh copy), or `None`."""

        async def work(conn: asyncpg.Connection[Any]) -> SessionRecord | None:
            return await self._load_record(conn, id)

        return await self._run("load session", work, write=False)

    async def list_sessions(self, *, limit: int | None = None, offset: int = 0) -> list[SessionRecord]:
        """Sessions by `updated_at` descending, paged by `limit` / `offset`."""

        async def work(conn: asyncpg.Connection[Any]) -> list[SessionRecord]:
            rows = await conn.fetch(
                f"SELECT {_SESSION_COLUMNS} FROM sessions ORDER BY updated_at DESC, id DESC LIMIT $1 OFFSET $2",
                None if limit is None else max(limit, 0),
                max(offset, 0),
            )
            return [record_of(row) for row in rows]

        return await self._run("list sessions", work, write=False)

    async def update_meta(self, id: str, meta: Mapping[str, Any]) -> SessionRecord:
        """Shallow-merge `meta` into the session's meta (one atomic statement)."""
        patch = jsonb(json_copy(meta, "Session meta"))

        async def work(conn: asyncpg.Connection[Any]) -> SessionRecord:
            row = await conn.fetchrow(
                f"UPDATE sessions SET meta = meta || $2::jsonb, updated_at = {_NOW} WHERE id = $1 "
                f"RETURNING {_SESSION_COLUMNS}",
                id,
                patch,
            )
            if row is None:
                raise SessionStoreError(f"Session {id!r} not found")
            return record_of(row)

        # one atomic statement; a running session's goes on its writer lock's connection
        done, record = await self._shielded(self._on_writer_connection(id, "update session meta", work))
        if done:
            assert record is not None
            return record
        return await self._run("update session meta", work, write=False)

    async def delete(self, id: str) -> None:
        """Delete the session; messages, tasks and edges cascade."""

        async def work(conn: asyncpg.Connection[Any]) -> None:
            await conn.execute("DELETE FROM sessions WHERE id = $1", id)

        await self._run("delete session", work)

    # ----- messages -----

    async def load_messages(self, id: str) -> list[StoredMessage]:
        """The session's messages in `seq` order (empty for an unknown id)."""

        async def work(conn: asyncpg.Connection[Any]) -> list[StoredMessage]:
            rows = await conn.fetch(
                f"SELECT seq, {_ISO.format('appended_at')}, message_json FROM messages WHERE session_id = $1"
                " ORDER BY seq",
                id,
            )
            # Validated off the event loop, once, by pydantic-core (`stored_messages_of`).
            return await load_stored_messages(rows, f"session {id!r}")

        return await self._run("load messages", work, write=False)

    async def load_tail(self, id: str, limit: int) -> HistoryTail:
        """The last `limit` messages in `seq` order and the message count, from one snapshot."""

        async def work(conn: asyncpg.Connection[Any]) -> HistoryTail:
            async with conn.transaction(isolation="repeatable_read", readonly=True):
                total = await conn.fetchval("SELECT count(*) FROM messages WHERE session_id = $1", id)
                rows = await conn.fetch(
                    f"SELECT seq, {_ISO.format('appended_at')}, message_json FROM messages WHERE session_id = $1"
                    " ORDER BY seq DESC LIMIT $2",
                    id,
                    max(0, limit),
                )
            return await tail_of(int(total), rows, f"session {id!r}")

        return await self._run("load messages", work, write=False)

    async def append_messages(self, id: str, messages: Sequence[Message]) -> list[StoredMessage]:
        """Append `messages` atomically with the next `seq` values (from 1)."""
        try:
            payloads = [m.model_dump_json(exclude_none=True) for m in messages]
            copies = [Message.model_validate_json(p) for p in payloads]
        except (ValidationError, ValueError, TypeError) as exc:
            raise SessionStoreError(f"Cannot serialize messages: {exc}", cause=exc) from exc
        lease = self._held.get(id)
        if lease is not None:  # fenced: on the lock's own connection, with the writer epoch
            return await self._shielded(self._append_held(lease, id, payloads, copies))

        async def work(conn: asyncpg.Connection[Any]) -> list[StoredMessage]:
            # One statement (one round trip, atomic): taking the seq range locks the session
            # row until commit, so concurrent appenders queue there and seqs stay gap-free.
            row = await conn.fetchrow(
                f"""WITH s AS (
                  UPDATE sessions SET next_seq = next_seq + $2, updated_at = {_NOW} WHERE id = $1
                  RETURNING next_seq - $2 AS start, updated_at),
                ins AS (
                  INSERT INTO messages (session_id, seq, appended_at, message_json)
                  SELECT $1, s.start + m.ord - 1, s.updated_at, m.body
                  FROM s, unnest($3::text[]) WITH ORDINALITY AS m(body, ord))
                SELECT s.start, {_ISO.format("s.updated_at")} FROM s""",
                id,
                len(payloads),
                payloads,
            )
            if row is None:
                raise SessionStoreError(f"Session {id!r} not found")
            start, at = int(row[0]), row[1]
            return [StoredMessage(seq=start + i, appended_at=at, message=m) for i, m in enumerate(copies)]

        return await self._run("append messages", work, write=False)  # one atomic statement

    # ----- invoked skills -----

    async def set_invoked_skills(self, id: str, skills: Sequence[InvokedSkillRecord]) -> None:
        """Replace the session's invoked-skill list."""
        payload = jsonb(SKILLS.dump_python(list(skills), mode="json"))

        async def work(conn: asyncpg.Connection[Any]) -> None:
            status = await conn.execute(
                f"UPDATE sessions SET invoked_skills = $2::jsonb, updated_at = {_NOW} WHERE id = $1", id, payload
            )
            if status.endswith(" 0"):
                raise SessionStoreError(f"Session {id!r} not found")

        await self._run("set invoked skills", work, write=False)  # one statement

    # ----- tasks -----

    async def create_task(self, session_id: str, input: CreateTaskInput) -> Task:
        """Create a task with the session's next numeric id (never reused)."""
        metadata_json = jsonb(json_copy(input.metadata, "Task metadata"))

        async def work(conn: asyncpg.Connection[Any]) -> Task:
            row = await conn.fetchrow(
                f"UPDATE sessions SET next_task_id = next_task_id + 1, updated_at = {_NOW} WHERE id = $1 "
                "RETURNING next_task_id - 1, updated_at",
                session_id,
            )
            if row is None:
                raise SessionStoreError(f"Session {session_id!r} not found")
            task_id, now = str(row[0]), row[1]
            await conn.execute(
                "INSERT INTO tasks (session_id, id, subject, description, active_form, status, owner, metadata,"
                " created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $9)",
                session_id,
                task_id,
                input.subject,
                input.description,
                input.active_form,
                input.status,
                input.owner,
                metadata_json,
                now,
            )
            task = await self._load_task(conn, session_id, task_id, [])
            assert task is not None
            return task

        return await self._run("create task", work)

    async def get_task(self, session_id: str, task_id: str) -> Task | None:
        """The task with derived `blocks` / `blocked_by`, or `None`."""

        async def work(conn: asyncpg.Connection[Any]) -> Task | None:
            edges = await self._edges_of(conn, session_id, task_id)
            return await self._load_task(conn, session_id, task_id, edges)

        return await self._run("get task", work, write=False)

    async def list_tasks(self, session_id: str) -> list[Task]:
        """All tasks of the session in numeric id order."""

        async def work(conn: asyncpg.Connection[Any]) -> list[Task]:
            async with conn.transaction(isolation="repeatable_read", readonly=True):
                edges = await self._edges(conn, session_id)
                rows = await conn.fetch(
                    f"SELECT {_TASK_COLUMNS} FROM tasks t WHERE session_id = $1 ORDER BY {_TASK_ORDER}", session_id
                )
            tasks = [task_of(row, edges) for row in rows]
            order = {tid: i for i, tid in enumerate(sorted_ids(t.id for t in tasks))}
            return sorted(tasks, key=lambda t: order[t.id])

        return await self._run("list tasks", work, write=False)

    async def update_task(self, session_id: str, task_id: str, patch: TaskPatch) -> Task | None:
        """Apply `patch` in one transaction; `None` if the task is missing or deleted.

        A missing edge target or a cycle raises `SessionStoreError` and changes nothing.
        """
        patch_metadata = json_copy(patch.metadata, "Task metadata") if patch.metadata is not None else None

        async def work(conn: asyncpg.Connection[Any]) -> Task | None:
            # The session row lock serializes graph changes, so the cycle check sees every edge.
            if await conn.fetchval("SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE", session_id) is None:
                return None
            current = await self._load_task(conn, session_id, task_id, [])
            if current is None:
                return None
            if patch.status == "deleted":
                await conn.execute("DELETE FROM tasks WHERE session_id = $1 AND id = $2", session_id, task_id)
                await self._touch(conn, session_id)
                return None
            edges = await self._edges(conn, session_id)
            ids = {r[0] for r in await conn.fetch("SELECT id FROM tasks WHERE session_id = $1", session_id)}
            plan = plan_edges(task_id, patch, edges, ids)
            scalars = apply_scalars(current, patch.model_copy(update={"metadata": patch_metadata}))
            await conn.execute(
                "UPDATE tasks SET subject = $3, description = $4, active_form = $5, status = $6, owner = $7,"
                f" metadata = $8::jsonb, updated_at = {_NOW} WHERE session_id = $1 AND id = $2",
                session_id,
                task_id,
                scalars.subject,
                scalars.description,
                scalars.active_form,
                scalars.status,
                scalars.owner,
                jsonb(scalars.metadata),
            )
            if plan.remove:
                await conn.executemany(
                    "DELETE FROM task_edges WHERE session_id = $1 AND from_task_id = $2 AND to_task_id = $3",
                    [(session_id, src, dst) for src, dst in plan.remove],
                )
            if plan.add:
                await conn.executemany(
                    "INSERT INTO task_edges (session_id, from_task_id, to_task_id) VALUES ($1, $2, $3)",
                    [(session_id, src, dst) for src, dst in sorted(plan.add)],
                )
            await self._touch(conn, session_id)
            new_edges = (set(edges) - plan.remove) | plan.add
            return await self._load_task(conn, session_id, task_id, new_edges)

        return await self._run("update task", work)

    async def delete_task(self, session_id: str, task_id: str) -> bool:
        """Delete the task and every edge touching it; `False` if it was missing."""

        async def work(conn: asyncpg.Connection[Any]) -> bool:
            status = await conn.execute("DELETE FROM tasks WHERE session_id = $1 AND id = $2", session_id, task_id)
            if status.endswith(" 0"):
                return False
            await self._touch(conn, session_id)
            return True

        return await self._run("delete task", work)

    # ----- import (SessionImporter) -----

    async def import_session(self, dump: SessionDump) -> ImportCounts:
        """Write the parts of `dump` this database lacks, keeping ids, seqs and timestamps."""

        async def work(conn: asyncpg.Connection[Any]) -> ImportCounts:
            return await import_dump(conn, dump, self.schema)

        return await self._run("import session", work)

    # ----- lifecycle -----

    async def close(self) -> None:
        """Close the connection pool (waits for calls in progress)."""
        pool, self._pool = self._pool, None
        loop, self._pool_loop = self._pool_loop, None
        if pool is None:
            return
        if loop is asyncio.get_running_loop():
            await self._stop_listening(pool)
            try:
                await asyncio.wait_for(pool.close(), timeout=10)
            except (TimeoutError, Exception):
                pool.terminate()
        else:
            pool.terminate()
        self._listener = None

    async def __aenter__(self) -> PostgresSessionStore:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # ----- plumbing -----

    async def _run(self, op: str, work: Work[T], *, write: bool = True) -> T:
        """Run `work` on a pooled connection (in a transaction when `write`), shielded from the caller."""
        return await self._shielded(self._on_connection(op, work, write))

    async def _shielded(self, call: Awaitable[T]) -> T:
        """Await `call` in its own task: a cancelled caller never leaves a write half-done."""
        task = asyncio.ensure_future(call)
        task.add_done_callback(_retrieve_exception)
        return await asyncio.shield(task)

    async def _on_connection(self, op: str, work: Work[T], write: bool) -> T:
        asyncpg = _import_asyncpg()
        pool = await self._get_pool()
        try:
            async with pool.acquire() as conn:
                try:
                    if not write:
                        return await work(conn)
                    async with conn.transaction():
                        return await work(conn)
                except caught(asyncpg) as exc:
                    if is_transient(exc):  # a retry must not get this connection back (dead, or read-only)
                        _terminate(conn)
                    raise
        except caught(asyncpg) as exc:
            raise self._error(op, exc) from None

    def _error(self, op: str, exc: BaseException) -> SessionStoreError:
        return store_error(op, exc, self._dsn)

    async def _get_pool(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._pool is not None and self._pool_loop is loop:
            return self._pool
        if self._pool_lock is None or self._pool_loop is not loop:
            if self._pool is not None:
                self._pool.terminate()  # made on another (finished) event loop
                self._pool = None
            self._listener, self._ready = None, {}
            self._pool_lock, self._pool_loop = asyncio.Lock(), loop
        async with self._pool_lock:
            if self._pool is None:
                self._pool = await self._open_pool()
        return self._pool

    async def _open_pool(self) -> Any:
        asyncpg = _import_asyncpg()
        try:
            conn = await asyncpg.connect(self._dsn)
        except caught(asyncpg, ValueError) as exc:
            detail = scrub(f"{type(exc).__name__}: {exc}", self._dsn)
            error = SessionStoreError(f"Cannot connect to session database {self.redacted_dsn}: {detail}")
            error.retryable = is_transient(exc)
            raise error from None
        try:
            await self._migrate(conn)
        except caught(asyncpg) as exc:
            raise self._error("migrate schema", exc) from None
        finally:
            await conn.close()
        try:
            return await asyncpg.create_pool(
                self._dsn,
                min_size=0,  # no background reconnect loop (and its tracebacks) while the server is down
                max_size=self.max_connections,
                reset=_keep_session,
                server_settings={
                    "search_path": self.schema,
                    "application_name": "skawld",
                    "synchronous_commit": "on" if self.synchronous_commit else "off",
                },
            )
        except caught(asyncpg) as exc:
            raise self._error("open pool", exc) from None

    async def _migrate(self, conn: asyncpg.Connection[Any]) -> None:
        schema = _quote_ident(self.schema)
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK_KEY)
            # CREATE SCHEMA needs the CREATE privilege even when the schema exists: ask first.
            if await conn.fetchval("SELECT 1 FROM pg_namespace WHERE nspname = $1", self.schema) is None:
                await conn.execute(f"CREATE SCHEMA {schema}")
            await conn.execute(f"SET LOCAL search_path TO {schema}")
            if await conn.fetchval("SELECT to_regclass('skawld_schema_migrations')") is None:
                await conn.execute(MIGRATIONS_TABLE)  # a user without CREATE can use a migrated schema
            applied = {int(r[0]) for r in await conn.fetch("SELECT version FROM skawld_schema_migrations")}
            newest = max(applied, default=0)
            if newest > SCHEMA_VERSION:
                raise SessionStoreError(
                    f"Session database {self.redacted_dsn} (schema {self.schema}) has schema version {newest}; "
                    f"this skawld supports version {SCHEMA_VERSION}"
                )
            for version, sql in MIGRATIONS:
                if version not in applied:
                    await conn.execute(sql)
                    await conn.execute("INSERT INTO skawld_schema_migrations (version) VALUES ($1)", version)

    async def _touch(self, conn: asyncpg.Connection[Any], id: str) -> None:
        status = await conn.execute(f"UPDATE sessions SET updated_at = {_NOW} WHERE id = $1", id)
        if status.endswith(" 0"):
            raise SessionStoreError(f"Session {id!r} not found")

    async def _load_record(self, conn: asyncpg.Connection[Any], id: str) -> SessionRecord | None:
        row = await conn.fetchrow(f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = $1", id)
        return record_of(row) if row is not None else None

    async def _edges(self, conn: asyncpg.Connection[Any], session_id: str) -> list[Edge]:
        rows = await conn.fetch("SELECT from_task_id, to_task_id FROM task_edges WHERE session_id = $1", session_id)
        return [(str(src), str(dst)) for src, dst in rows]

    async def _edges_of(self, conn: asyncpg.Connection[Any], session_id: str, task_id: str) -> list[Edge]:
        rows = await conn.fetch(
            "SELECT from_task_id, to_task_id FROM task_edges WHERE session_id = $1"
            " AND (from_task_id = $2 OR to_task_id = $2)",
            session_id,
            task_id,
        )
        return [(str(src), str(dst)) for src, dst in rows]

    async def _load_task(
        self, conn: asyncpg.Connection[Any], session_id: str, task_id: str, edges: Sequence[Edge] | set[Edge]
    ) -> Task | None:
        row = await conn.fetchrow(
            f"SELECT {_TASK_COLUMNS} FROM tasks WHERE session_id = $1 AND id = $2", session_id, task_id
        )
        return task_of(row, edges) if row is not None else None


async def _keep_session(conn: Any) -> None:
    """Pool reset hook: nothing to undo (skawld never leaves LISTEN, temp tables or
    session SETs on a pooled connection), which saves a round trip per call."""


def _terminate(conn: Any) -> None:
    """Close a pooled connection at once; a no-op when the pool already took it back."""
    try:
        conn.terminate()
    except Exception:
        pass


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _retrieve_exception(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()
