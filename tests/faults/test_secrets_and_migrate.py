"""DSN passwords never printed (any password, parsed not pattern-matched), `sessions migrate`
taking its target from the environment (out of argv), and U+0000 in a migrated title."""

from __future__ import annotations

import asyncio
import json

import pytest

from skawld_core.messages import Message, TextBlock
from skawld_core.sessions.dsn import dsn_password, redact_dsn, scrub
from skawld_core.sessions.sqlite import SqliteSessionStore
from tests.cli.harness import CliEnv
from tests.faults.history import pg_fetch


@pytest.mark.parametrize(
    ("dsn", "password", "shown"),
    [
        ("postgresql://me:p@ss@db:5432/x", "p@ss", "postgresql://me:***@db:5432/x"),
        ("postgresql://me:a:b/c@d@db/x?sslmode=require", "a:b/c@d", "postgresql://me:***@db/x?sslmode=require"),
        ("postgres://me:%40t@db/x", "@t", "postgres://me:***@db/x"),
        ("postgresql://me@db/x", None, "postgresql://me@db/x"),
    ],
)
def test_redaction_holds_for_any_password(dsn: str, password: str | None, shown: str) -> None:
    assert dsn_password(dsn) == password
    assert redact_dsn(f"failed ({dsn}): refused") == f"failed ({shown}): refused"
    if password:
        assert password not in scrub(f"{dsn} said {password}", dsn)


def test_an_unreachable_database_with_an_at_sign_password_is_never_printed(cli: CliEnv) -> None:
    dsn = "postgresql://me:s3cr@t-pw@127.0.0.1:1/db"
    run = cli.run(*cli.args("-p", "hi", "--json"), env={"SKAWLD_DATABASE_URL": dsn})
    assert run.returncode != 0
    assert "s3cr" not in run.stderr + run.stdout and "t-pw" not in run.stderr + run.stdout
    assert "postgresql://me:***@127.0.0.1:1/db" in run.stderr


async def _sqlite_session_with_a_nul_title(cli: CliEnv) -> str:
    store = SqliteSessionStore(cli.db)
    try:
        record = await store.create(meta={"title": "a\x00title"})
        await store.append_messages(record.id, [Message(role="user", content=[TextBlock(text="hi \x00")])])
        return record.id
    finally:
        await store.close()


def test_migrate_takes_the_target_from_the_environment_and_escapes_nul(cli: CliEnv, fresh_db: str) -> None:
    sid = asyncio.run(_sqlite_session_with_a_nul_title(cli))
    first = cli.run("sessions", "migrate", env={"SKAWLD_DATABASE_URL": fresh_db})  # no DSN in argv
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["sessions_created"] == 1
    rows = pg_fetch(fresh_db, "SELECT meta->>'title' FROM sessions WHERE id = $1", sid)
    assert rows[0][0] == "a\\u0000title"  # stored escaped: jsonb cannot hold U+0000
    again = cli.run("sessions", "migrate", "--to", "env:TARGET", env={"TARGET": fresh_db})
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["sessions_created"] == 0 and json.loads(again.stdout)["messages"] == 0
    missing = cli.run("sessions", "migrate", "--to", "env:NOPE")
    assert missing.returncode == 2 and "NOPE is not set" in missing.stderr
