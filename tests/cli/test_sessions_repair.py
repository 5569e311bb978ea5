"""A damaged sessions.db: the run says what happened and what to do; `skawld sessions repair` recovers."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path

import pytest

from skawld_core.messages import Message
from skawld_core.sessions.sqlite import SqliteSessionStore
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn

pytestmark = pytest.mark.timeout(90)

SESSIONS, MESSAGES_EACH = 20, 4


def _fill(path: Path) -> None:
    """A real store with enough rows to span many pages."""

    async def go() -> None:
        store = SqliteSessionStore(path)
        try:
            for i in range(SESSIONS):
                rec = await store.create(meta={"title": f"session {i}", "cwd": str(path.parent.parent)})
                body = [
                    {"role": "user", "content": [{"type": "text", "text": f"{i}-{n} " + "x" * 1500}]}
                    for n in range(MESSAGES_EACH)
                ]
                await store.append_messages(rec.id, [Message.model_validate(m) for m in body])
        finally:
            await store.close()

    asyncio.run(go())


def _blocked(cli: CliEnv) -> None:
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 3, out.stderr
    assert str(cli.db) in out.stderr and "damaged" in out.stderr
    assert "skawld sessions repair" in out.stderr
    assert "Traceback" not in out.stderr


def _recovered(stdout: str) -> tuple[int, int]:
    m = re.search(r"recovered (\d+) session\(s\) and (\d+) message\(s\)", stdout)
    assert m, stdout
    return int(m.group(1)), int(m.group(2))


def _works_again(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("fine")))
    out = cli.run(*cli.args("-p", "hi"))
    assert out.returncode == 0, out.stderr


def _backups(cli: CliEnv) -> list[Path]:
    return sorted(p for p in cli.db.parent.iterdir() if re.fullmatch(r"sessions\.db\.corrupt-[0-9TZ-]+", p.name))


def test_truncated_database_is_repaired_with_what_can_be_read(cli: CliEnv) -> None:
    _fill(cli.db)
    data = cli.db.read_bytes()
    cli.db.write_bytes(data[: len(data) * 45 // 100])
    damaged = cli.db.read_bytes()
    _blocked(cli)

    out = cli.run("sessions", "repair")
    assert out.returncode == 0, out.stderr
    sessions, messages = _recovered(out.stdout)
    assert 0 < sessions <= SESSIONS
    assert 0 < messages < SESSIONS * MESSAGES_EACH
    (backup,) = _backups(cli)
    assert backup.read_bytes() == damaged, "the broken file is kept as it was"

    listed = cli.run("sessions", "list", "--limit", "100")
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert len(rows) == sessions
    assert sum(r["message_count"] for r in rows) == messages
    _works_again(cli)


def test_garbage_database_is_replaced_and_kept(cli: CliEnv) -> None:
    cli.db.parent.mkdir(parents=True)
    garbage = random.Random(11).randbytes(64 * 1024)
    cli.db.write_bytes(garbage)
    _blocked(cli)
    listed = cli.run("sessions", "list")
    assert listed.returncode == 3 and "skawld sessions repair" in listed.stderr

    out = cli.run("sessions", "repair", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert (report["sessions"], report["messages"]) == (0, 0)
    assert Path(report["backup"]).read_bytes() == garbage
    _works_again(cli)


def test_healthy_database_is_left_alone(cli: CliEnv) -> None:
    _fill(cli.db)
    before = cli.db.read_bytes()
    out = cli.run("sessions", "repair")
    assert out.returncode == 0 and "not damaged" in out.stdout
    assert cli.db.read_bytes() == before and not _backups(cli)
    forced = cli.run("sessions", "repair", "--force")
    assert _recovered(forced.stdout) == (SESSIONS, SESSIONS * MESSAGES_EACH)
