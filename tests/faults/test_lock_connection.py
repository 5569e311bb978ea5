"""Pooled connections kept past their use. The writer lock's connection across a server restart, on a real PostgreSQL server: the lock
connection dies with the server, the first retake fails while it is down, and no later call
uses the pooled connection that was handed back (an error naming "released back to the pool"
was the symptom); once the server is back the run appends again, exactly once. And the
listener for task notifications: one per store, however many slots ask for it at once."""

from __future__ import annotations

import asyncio
import subprocess

import asyncpg
import pytest

from skawld_core.errors import SessionStoreError
from skawld_core.messages import Message, TextBlock
from skawld_core.sessions.postgres import PostgresSessionStore
from skawld_core.testing.postgres_server import PostgresServer


def _say(words: str) -> list[Message]:
    return [Message(role="user", content=[TextBlock(text=words)])]


def _pg_ctl(server: PostgresServer, *args: str) -> None:
    options = f"-p {server.port} -k {server.data_dir} -c listen_addresses=127.0.0.1 -c fsync=off"
    log = ["-l", str(server.data_dir.parent / "log"), "-o", options] if args[0] == "start" else []
    command = [*server._prefix(), str(server.bin_dir / "pg_ctl"), "-D", str(server.data_dir), *log, "-w", *args]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


@pytest.mark.timeout(120)
async def test_a_lock_connection_lost_in_a_restart_is_never_used_after_its_release(own_pg: PostgresServer) -> None:
    store = PostgresSessionStore(own_pg.dsn)
    await store.create(id="s")
    async with store.run_guard("s"):
        await store.append_messages("s", _say("one"))
        _pg_ctl(own_pg, "stop", "-m", "fast")  # the lock connection dies with the server
        errors: list[SessionStoreError] = []
        for _ in range(3):  # each call finds the server down: the lock cannot be taken again yet
            with pytest.raises(SessionStoreError) as caught:
                await store.append_messages("s", _say("two"))
            errors.append(caught.value)
        assert all(e.retryable for e in errors)
        assert not [e for e in errors if "released back to the pool" in str(e)], [str(e) for e in errors]
        _pg_ctl(own_pg, "start")
        await store.append_messages("s", _say("two"))  # the lock is taken again: nobody wrote meanwhile
    other = PostgresSessionStore(own_pg.dsn)
    async with other.run_guard("s"):  # released on exit
        await other.append_messages("s", _say("three"))
    texts = [m.message.content[0].text for m in await other.load_messages("s")]  # type: ignore[union-attr]
    assert texts == ["one", "two", "three"]
    await store.close()
    await other.close()


async def test_slots_asking_for_notifications_at_once_share_one_listener(own_pg: PostgresServer) -> None:
    store = PostgresSessionStore(own_pg.dsn, max_connections=40)
    await store.create(id="l")
    events = await asyncio.gather(*(store.task_ready("l") for _ in range(32)))  # 32 slots starting together
    assert len({id(e) for e in events}) == 1
    probe = await asyncpg.connect(own_pg.dsn)
    try:
        listening = await probe.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'skawld' AND query LIKE 'LISTEN%'"
        )
        assert listening == 1  # was one per slot: each a pooled connection kept for ever
    finally:
        await probe.close()
    await store.close()
