"""PostgresSessionStore beyond the conformance suite: migrations, the DSN as a
secret, the cross-process run guard and task claims with leases."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from skawld_core import Agent
from skawld_core.errors import ConfigError, SessionStoreError
from skawld_core.messages import Message
from skawld_core.sessions import CreateTaskInput, TaskPatch
from skawld_core.sessions._pg_schema import MIGRATIONS, MIGRATIONS_TABLE
from skawld_core.sessions.claims import ClaimableTaskGraph, RunGuardStore
from skawld_core.sessions.dsn import redact_dsn, scrub
from skawld_core.sessions.postgres import PostgresSessionStore
from skawld_core.sessions.sqlite import SqliteSessionStore
from skawld_core.testing import ScriptedProvider, reply, text


def _schema() -> str:
    return f"s_{uuid.uuid4().hex[:10]}"


async def test_migrations_are_versioned_and_applied_once(pg_dsn: str) -> None:
    schema = _schema()
    stores = [PostgresSessionStore(pg_dsn, schema=schema) for _ in range(4)]
    await asyncio.gather(*(s.create() for s in stores))  # four "processes" connecting at once
    for s in stores:
        await s.close()
    conn = await asyncpg.connect(pg_dsn)
    try:
        rows = await conn.fetch(f"SELECT version FROM {schema}.skawld_schema_migrations")
        # 2: session_writers (writer lock), 3: task-ready NOTIFY, 4: the claim-order index, 5: fewer NOTIFYs
        assert [r[0] for r in rows] == [1, 2, 3, 4, 5]
        assert await conn.fetchval(f"SELECT count(*) FROM {schema}.sessions") == 4
        await conn.execute(f"INSERT INTO {schema}.skawld_schema_migrations (version) VALUES (999)")
    finally:
        await conn.close()
    newer = PostgresSessionStore(pg_dsn, schema=schema)
    with pytest.raises(SessionStoreError, match="schema version 999"):
        await newer.list_sessions()
    await newer.close()


async def test_connection_errors_never_show_the_password() -> None:
    secret = "hunter2-TOPSECRET"
    store = PostgresSessionStore(f"postgresql://alice:{secret}@127.0.0.1:1/db")
    with pytest.raises(SessionStoreError) as info:
        await store.list_sessions()
    assert secret not in str(info.value)
    assert "alice:***@127.0.0.1:1/db" in str(info.value)
    assert secret not in repr(store)
    await store.close()


def test_redaction_covers_every_dsn_form() -> None:
    assert redact_dsn("postgresql://u:p%40ss@h:5432/d?sslmode=require") == "postgresql://u:***@h:5432/d?sslmode=require"
    assert redact_dsn("postgres://h/d?user=u&password=xyz&x=1") == "postgres://h/d?user=u&password=***&x=1"
    assert redact_dsn("host=h password='a b' user=u") == "host=h password=*** user=u"
    assert redact_dsn("postgresql://u@h/d") == "postgresql://u@h/d"
    assert scrub("auth failed for pw s3cr3t", "postgresql://u:s3cr3t@h/d") == "auth failed for pw ***"


def test_missing_dsn_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="needs a DSN"):
        PostgresSessionStore("")
    with pytest.raises(ConfigError, match="schema name"):
        PostgresSessionStore("postgresql://h/d", schema="x; drop")


async def test_run_guard_excludes_other_processes(pg_dsn: str) -> None:
    schema = _schema()
    one, two = PostgresSessionStore(pg_dsn, schema=schema), PostgresSessionStore(pg_dsn, schema=schema)
    assert isinstance(one, RunGuardStore)
    async with one.run_guard("s1"):
        with pytest.raises(ConfigError, match="is running in another process"):
            async with two.run_guard("s1"):
                pass
        async with two.run_guard("s2"):  # another session is free
            pass
    async with two.run_guard("s1"):  # released on exit
        pass


async def test_a_running_session_writes_its_meta_on_the_lock_connection(pg_dsn: str) -> None:
    # two connections in the pool: one holds the writer lock, the other is busy elsewhere; the
    # session's meta update must not wait for a third
    store = PostgresSessionStore(pg_dsn, schema=_schema(), max_connections=2)
    sid = (await store.create()).id
    async with store.run_guard(sid):
        pool = await store._get_pool()
        busy = await pool.acquire()
        record = await asyncio.wait_for(store.update_meta(sid, {"title": "running"}), 60)
        await pool.release(busy)
        assert record.meta["title"] == "running"
        appended = await store.append_messages(
            sid, [Message.model_validate({"role": "user", "content": [{"type": "text", "text": "hi"}]})]
        )
        assert [m.seq for m in appended] == [1]
    assert (await store.load(sid)).meta["title"] == "running"  # type: ignore[union-attr]
    await store.close()


async def test_a_meta_update_after_the_lock_connection_died_goes_through_the_pool(pg_dsn: str) -> None:
    store = PostgresSessionStore(pg_dsn, schema=_schema())
    sid = (await store.create()).id
    hi = Message.model_validate({"role": "user", "content": [{"type": "text", "text": "hi"}]})
    async with store.run_guard(sid):
        lock_pid = store._held[sid].conn.get_server_pid()
        conn = await asyncpg.connect(pg_dsn)
        try:
            assert await conn.fetchval("SELECT pg_terminate_backend($1)", lock_pid)
        finally:
            await conn.close()
        assert (await store.update_meta(sid, {"title": "after"})).meta["title"] == "after"
        assert [m.seq for m in await store.append_messages(sid, [hi])] == [1]  # the lock is taken again
        assert store._held[sid].conn.get_server_pid() != lock_pid
    await store.close()


_HOLDER = """
import asyncio, sys
from skawld_core.sessions._pg_schema import MIGRATIONS, MIGRATIONS_TABLE
from skawld_core.sessions.postgres import PostgresSessionStore
from skawld_core.sessions.sqlite import SqliteSessionStore
async def main():
    store = PostgresSessionStore(sys.argv[1], schema=sys.argv[2])
    async with store.run_guard("held"):
        print("held", flush=True)
        await asyncio.sleep(3600)
asyncio.run(main())
"""


async def test_run_guard_is_released_when_the_holder_is_killed(pg_dsn: str) -> None:
    schema = _schema()
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, pg_dsn, schema], stdout=subprocess.PIPE, text=True, env=os.environ.copy()
    )
    try:
        assert proc.stdout is not None
        assert await asyncio.to_thread(proc.stdout.readline) == "held\n"
        store = PostgresSessionStore(pg_dsn, schema=schema)
        with pytest.raises(ConfigError, match="is running in another process"):
            async with store.run_guard("held"):
                pass
        proc.send_signal(signal.SIGKILL)
        await asyncio.to_thread(proc.wait)
        for _ in range(200):  # the server notices the dead connection shortly after
            try:
                async with store.run_guard("held"):
                    break
            except ConfigError:
                await asyncio.sleep(0.05)
        else:
            pytest.fail("the lock of a killed process was never released")
    finally:
        proc.kill()
        proc.wait()


async def test_a_session_running_elsewhere_refuses_a_second_run(pg_dsn: str, tmp_path: object) -> None:
    schema = _schema()
    other = PostgresSessionStore(pg_dsn, schema=schema)
    agent = Agent(
        provider=ScriptedProvider([reply(text("hi"))]),
        model="m",
        tools=[],
        session_store=PostgresSessionStore(pg_dsn, schema=schema),
    )
    session = await agent.session()
    async with other.run_guard(session.id):
        with pytest.raises(ConfigError, match="is running in another process"):
            async with session.run("hello") as run:
                async for _ in run:
                    pass
    events = [e async for e in session.run("hello")]
    assert events[-1].type == "result"
    assert [m.seq for m in await other.load_messages(session.id)] == [1, 2]
    await agent.close()
    await other.close()


# ----- claims (both stores) -----


@pytest.fixture(params=["postgres", "sqlite"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Any]:
    """Store objects on one shared graph (each like another process)."""
    if request.param == "sqlite":
        return lambda: SqliteSessionStore(tmp_path / "sessions.db")
    dsn, schema = request.getfixturevalue("pg_dsn"), _schema()
    return lambda: PostgresSessionStore(dsn, schema=schema, max_connections=20)


async def _graph(store: Any, n: int) -> str:
    s = await store.create(meta={"title": "graph"})
    for i in range(n):
        await store.create_task(s.id, CreateTaskInput(subject=f"t{i + 1}", description=f"do {i + 1}"))
    return s.id


async def test_concurrent_claims_never_share_a_task(make: Callable[[], Any]) -> None:
    store = make()
    assert isinstance(store, ClaimableTaskGraph)
    sid = await _graph(store, 30)
    workers = [make() for _ in range(3)]

    async def drain(s: Any, name: str) -> list[str]:
        got = []
        while (claim := await s.claim_task(sid, name, lease_seconds=60)) is not None:
            got.append(claim.task.id)
            assert await s.finish_task(sid, claim.task.id, name, outcome="done", result=f"by {name}")
        return got

    results = await asyncio.gather(*(drain(w, f"w{i}{j}") for i, w in enumerate(workers) for j in range(3)))
    claimed = [tid for r in results for tid in r]
    assert sorted(claimed, key=int) == [str(i) for i in range(1, 31)]
    progress = await store.graph_progress(sid)
    assert (progress.done, progress.ready, progress.leased, progress.drained) == (30, 0, 0, True)
    for w in [store, *workers]:
        await w.close()


async def test_claims_follow_dependencies_and_failures_block(make: Callable[[], Any]) -> None:
    store = make()
    sid = await _graph(store, 4)
    await store.update_task(sid, "1", TaskPatch(add_blocks=["2"]))
    await store.update_task(sid, "3", TaskPatch(add_blocks=["4"]))
    first = await store.claim_task(sid, "w", lease_seconds=60)
    second = await store.claim_task(sid, "w", lease_seconds=60)
    assert first is not None and second is not None
    assert (first.task.id, second.task.id) == ("1", "3")
    assert first.task.status == "in_progress" and first.task.owner == "w" and first.attempt == 1
    assert await store.claim_task(sid, "w", lease_seconds=60) is None  # 2 and 4 are blocked
    await store.finish_task(sid, "1", "w", outcome="done", result="ok")
    await store.finish_task(sid, "3", "w", outcome="failed", result="boom")
    third = await store.claim_task(sid, "w", lease_seconds=60)
    assert third is not None and third.task.id == "2"
    assert await store.claim_task(sid, "w", lease_seconds=60) is None  # 4 waits on a failed task
    done = await store.get_task(sid, "3")
    assert done is not None and done.metadata["outcome"] == "failed" and done.metadata["result"] == "boom"
    progress = await store.graph_progress(sid)
    assert (progress.pending, progress.leased, progress.failed, progress.ready) == (1, 1, 1, 0)
    await store.close()


async def test_an_expired_lease_returns_the_task_to_the_pool(make: Callable[[], Any]) -> None:
    store = make()
    sid = await _graph(store, 1)
    lost = await store.claim_task(sid, "dead", lease_seconds=0.2)
    assert lost is not None
    assert await store.claim_task(sid, "alive", lease_seconds=60) is None  # lease still live
    assert await store.heartbeat_task(sid, "1", "dead", lease_seconds=0.2)
    assert not await store.heartbeat_task(sid, "1", "someone-else", lease_seconds=60)
    again = None
    for _ in range(100):
        again = await store.claim_task(sid, "alive", lease_seconds=60)
        if again is not None:
            break
        await asyncio.sleep(0.05)
    assert again is not None and again.task.id == "1" and again.attempt == 2
    assert not await store.finish_task(sid, "1", "dead", outcome="done", result="late")  # lease was lost
    assert not await store.heartbeat_task(sid, "1", "dead", lease_seconds=60)
    assert await store.finish_task(sid, "1", "alive", outcome="done", result="ok")
    task = await store.get_task(sid, "1")
    assert task is not None and task.status == "completed" and task.metadata["result"] == "ok"
    assert task.metadata["attempts"] == 2
    await store.close()


async def test_release_puts_a_task_back(make: Callable[[], Any]) -> None:
    store = make()
    sid = await _graph(store, 1)
    claim = await store.claim_task(sid, "w", lease_seconds=60)
    assert claim is not None
    assert await store.release_task(sid, "1", "w")
    task = await store.get_task(sid, "1")
    assert task is not None and (task.status, task.owner) == ("pending", None)
    assert (await store.claim_task(sid, "v", lease_seconds=60)) is not None
    await store.close()


async def test_a_schema_from_before_the_claim_index_upgrades_and_claims_in_order(pg_dsn: str) -> None:
    schema = _schema()
    conn = await asyncpg.connect(pg_dsn)
    try:  # a database made by the previous release: migrations 1-3 only, with a task list in it
        await conn.execute(f"CREATE SCHEMA {schema}; SET search_path TO {schema}; {MIGRATIONS_TABLE}")
        for version, sql in MIGRATIONS[:3]:
            await conn.execute(sql)
            await conn.execute("INSERT INTO skawld_schema_migrations (version) VALUES ($1)", version)
        await conn.execute(
            "INSERT INTO sessions (id, created_at, updated_at) VALUES ('old', now(), now());"
            "INSERT INTO tasks (session_id, id, subject, description, status, created_at, updated_at)"
            " SELECT 'old', k, 'task ' || k, '', CASE WHEN k = '1' THEN 'completed' ELSE 'pending' END, now(), now()"
            " FROM unnest(ARRAY['10', '2', '1', 'b', '3']) k"
        )
    finally:
        await conn.close()
    store = PostgresSessionStore(pg_dsn, schema=schema)
    claimed = []
    while (claim := await store.claim_task("old", "w", lease_seconds=60)) is not None:
        claimed.append(claim.task.id)
    assert claimed == ["2", "3", "10", "b"]  # numeric ids in number order, then the rest; "1" was done
    await store.close()
    conn = await asyncpg.connect(pg_dsn)
    try:
        versions = await conn.fetch(f"SELECT version FROM {schema}.skawld_schema_migrations ORDER BY version")
        assert [r[0] for r in versions] == [1, 2, 3, 4, 5]
        assert await conn.fetchval(f"SELECT to_regclass('{schema}.tasks_claim_order_idx')") is not None
    finally:
        await conn.close()


async def test_a_user_without_create_privilege_uses_a_migrated_schema(pg_dsn: str) -> None:
    schema, role = _schema(), f"app_{uuid.uuid4().hex[:8]}"
    owner = PostgresSessionStore(pg_dsn, schema=schema)
    await owner.create(id="made-by-owner")
    await owner.close()
    conn = await asyncpg.connect(pg_dsn)
    try:
        await conn.execute(f"CREATE ROLE {role} LOGIN")
        await conn.execute(f"REVOKE CREATE ON SCHEMA public FROM PUBLIC; GRANT USAGE ON SCHEMA {schema} TO {role}")
        await conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {role}")
    finally:
        await conn.close()
    app = PostgresSessionStore(pg_dsn.replace("postgresql://postgres@", f"postgresql://{role}@"), schema=schema)
    assert [r.id for r in await app.list_sessions()] == ["made-by-owner"]
    s = await app.create()
    assert [
        m.seq
        for m in await app.append_messages(
            s.id, [Message.model_validate({"role": "user", "content": [{"type": "text", "text": "hi"}]})]
        )
    ] == [1]
    await app.close()
