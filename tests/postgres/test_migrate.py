"""`skawld sessions migrate`: SQLite -> PostgreSQL -> SQLite, idempotent, ids,
seqs, timestamps and task graphs preserved."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from skawld_core.messages import Message
from skawld_core.sessions import CreateTaskInput, TaskPatch
from skawld_core.sessions.postgres import PostgresSessionStore
from skawld_core.sessions.sqlite import SqliteSessionStore
from skawld_core.sessions.transfer import dump_session
from tests.cli.harness import CliEnv


def _msg(text: str, role: str = "user") -> Message:
    return Message.model_validate({"role": role, "content": [{"type": "text", "text": text}]})


async def _seed(path: Path) -> list[str]:
    store = SqliteSessionStore(path)
    ids = []
    for n in range(3):
        s = await store.create(meta={"title": f"session {n}", "cwd": "/x"})
        await store.append_messages(s.id, [_msg(f"q{n}"), _msg(f"a{n}", "assistant")])
        ids.append(s.id)
    graph = ids[0]
    for k in range(4):
        await store.create_task(graph, CreateTaskInput(subject=f"t{k}", description="d", metadata={"k": k}))
    await store.update_task(graph, "1", TaskPatch(add_blocks=["2", "3"]))
    await store.update_task(graph, "4", TaskPatch(status="completed"))
    await store.delete_task(graph, "3")
    await store.close()
    return ids


async def _dumps(store: SqliteSessionStore | PostgresSessionStore, ids: list[str]) -> list[object]:
    out = [await dump_session(store, i) for i in ids]
    await store.close()
    return out


def test_migrate_round_trip_is_idempotent(cli: CliEnv, fresh_db: str) -> None:
    ids = asyncio.run(_seed(cli.db))
    first = cli.run("sessions", "migrate", "--to", fresh_db)
    assert first.returncode == 0, first.stderr
    summary = json.loads(first.stdout)
    assert (summary["sessions_created"], summary["messages"], summary["tasks"], summary["edges"]) == (3, 6, 3, 1)
    original = asyncio.run(_dumps(SqliteSessionStore(cli.db), ids))
    assert asyncio.run(_dumps(PostgresSessionStore(fresh_db), ids)) == original  # ids, seqs, timestamps, graph

    again = cli.run("sessions", "migrate", "--to", fresh_db)
    assert json.loads(again.stdout)["sessions_changed"] == 0 and again.stderr == ""

    async def more() -> None:
        store = SqliteSessionStore(cli.db)
        await store.append_messages(ids[1], [_msg("later")])
        await store.close()

    asyncio.run(more())
    third = json.loads(cli.run("sessions", "migrate", "--to", fresh_db).stdout)
    assert (third["sessions_changed"], third["messages"]) == (1, 1)

    back = cli.repo / "back.db"
    home = cli.run("sessions", "migrate", "--from", fresh_db, "--to", str(back))
    assert home.returncode == 0, home.stderr
    assert json.loads(home.stdout)["sessions_created"] == 3
    copied = asyncio.run(_dumps(SqliteSessionStore(back), ids))
    assert copied == asyncio.run(_dumps(SqliteSessionStore(cli.db), ids))

    async def next_task_id() -> str:
        store = SqliteSessionStore(back)
        task = await store.create_task(ids[0], CreateTaskInput(subject="new", description="d"))
        await store.close()
        return task.id

    assert asyncio.run(next_task_id()) == "5"  # ids are never reused after a copy


def test_migrate_bad_input(cli: CliEnv, fresh_db: str) -> None:
    missing = cli.run("sessions", "migrate", "--to", fresh_db)
    assert missing.returncode == 1 and "no session database" in missing.stderr
    same = cli.run("sessions", "migrate", "--from", fresh_db, "--to", fresh_db)
    assert same.returncode == 2 and "same store" in same.stderr
    secret = "pw-XYZZY-777"
    down = cli.run("sessions", "migrate", "--from", f"postgresql://u:{secret}@127.0.0.1:1/x", "--to", "out.db")
    assert down.returncode == 1 and secret not in down.stderr and "u:***@" in down.stderr
