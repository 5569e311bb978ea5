"""`skawld -p` on a shared PostgreSQL store: config selection, the DSN as a secret,
and 20 concurrent processes writing to one database."""

from __future__ import annotations

import asyncio
import subprocess
from typing import Any

import asyncpg
import pytest

from tests.cli.harness import CliEnv, parse_events, skawld_command
from tests.support.wire_server import RecordedRequest, Reply, text, tool_call, turn

pytestmark = pytest.mark.timeout(600)

SECRET = "pw-SECRET-9f3k"


def _with_password(dsn: str) -> str:
    # The test server trusts every local connection, so any password is accepted.
    return dsn.replace("postgresql://postgres@", f"postgresql://postgres:{SECRET}@")


def _read_then_answer(req: RecordedRequest) -> Reply:
    """First request of a session: a Read call; after its result: the answer."""
    last = req.body["messages"][-1]
    content = last["content"] if isinstance(last["content"], list) else []
    if any(block.get("type") == "tool_result" for block in content):
        return turn(text("all done"))
    return turn(tool_call("Read", {"file_path": "notes.txt"}, id="r1"))


async def _rows(dsn: str, sql: str, *args: Any) -> list[Any]:
    conn = await asyncpg.connect(dsn)
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()


def test_twenty_concurrent_processes_on_one_database(cli: CliEnv, fresh_db: str) -> None:
    (cli.repo / "notes.txt").write_text("hello\n")
    cli.srv.anthropic.default = _read_then_answer
    dsn = _with_password(fresh_db)
    env = {**cli.env, "SKAWLD_DATABASE_URL": dsn}
    procs = [
        subprocess.Popen(
            [*skawld_command(), *cli.args("-p", f"job {i}", "--json")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cli.repo,
            env=env,
        )
        for i in range(20)
    ]
    outputs = [p.communicate(timeout=500) for p in procs]
    session_ids = []
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert SECRET not in out and SECRET not in err
        assert "lock" not in err.lower()
        events = parse_events(out)
        assert events[-1].type == "result" and events[-1].subtype == "success"
        session_ids.append(events[0].session_id)
    assert len(set(session_ids)) == 20
    rows = asyncio.run(_rows(fresh_db, "SELECT session_id, array_agg(seq ORDER BY seq) FROM messages GROUP BY 1"))
    seqs = {r[0]: list(r[1]) for r in rows}
    assert set(seqs) == set(session_ids)
    assert all(s == [1, 2, 3, 4] for s in seqs.values()), seqs  # no gap, no duplicate

    resumed = cli.run(*cli.args("-p", "again", "--json", "--resume", session_ids[0]), env={"SKAWLD_DATABASE_URL": dsn})
    assert resumed.returncode == 0, resumed.stderr
    after = asyncio.run(_rows(fresh_db, "SELECT seq FROM messages WHERE session_id = $1 ORDER BY seq", session_ids[0]))
    assert [r[0] for r in after] == list(range(1, 9))


def test_project_config_dsn_needs_trust(cli: CliEnv, fresh_db: str) -> None:
    cli.write_project_config({"sessionStore": {"kind": "postgres", "dsn": _with_password(fresh_db)}})
    cli.srv.anthropic.enqueue(turn(text("hi")))
    out = cli.run(*cli.args("-p", "hello", "--json"))
    assert out.returncode == 3
    assert "/sessionStore" in out.stderr
    assert SECRET not in out.stderr and SECRET not in out.stdout
    trusted = cli.run(*cli.args("-p", "hello", "--json", "--accept-project-config", "--verbose"))
    assert trusted.returncode == 0, trusted.stderr
    assert "sessions in PostgreSQL postgresql://postgres:***@127.0.0.1:" in trusted.stderr
    assert SECRET not in trusted.stderr and SECRET not in trusted.stdout
    sid = parse_events(trusted.stdout)[0].session_id
    assert [r[0] for r in asyncio.run(_rows(fresh_db, "SELECT id FROM sessions"))] == [sid]
    assert not cli.db.exists()  # nothing went to SQLite


def test_a_postgres_store_without_dsn_is_a_config_error(cli: CliEnv) -> None:
    cli.write_user_config({"sessionStore": {"kind": "postgres"}})
    out = cli.run(*cli.args("-p", "hello"))
    assert out.returncode == 3
    assert "/sessionStore/dsn" in out.stderr and "required" in out.stderr


def test_an_unreachable_database_fails_cleanly(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("hi")))
    dsn = f"postgresql://bob:{SECRET}@127.0.0.1:1/nowhere"
    out = cli.run(*cli.args("-p", "hello", "--json"), env={"SKAWLD_DATABASE_URL": dsn})
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert SECRET not in out.stderr and SECRET not in out.stdout
    assert "bob:***@127.0.0.1:1/nowhere" in out.stderr + out.stdout


def test_sessions_commands_read_a_postgres_store(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": _with_password(fresh_db)}
    cli.srv.anthropic.enqueue(turn(text("stored in postgres")))
    out = cli.run(*cli.args("-p", "hello", "--json"), env=env)
    assert out.returncode == 0, out.stderr
    sid = parse_events(out.stdout)[0].session_id
    listed = cli.run("sessions", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert sid in listed.stdout and SECRET not in listed.stdout + listed.stderr
    shown = cli.run("sessions", "show", sid, env=env)
    assert shown.returncode == 0 and "stored in postgres" in shown.stdout
    # a DSN from an untrusted project config is not connected to by the session commands either
    cli.write_project_config({"sessionStore": {"kind": "postgres", "dsn": _with_password(fresh_db)}})
    gated = cli.run("sessions", "list")
    assert gated.returncode == 3 and "/sessionStore" in gated.stderr and SECRET not in gated.stderr
