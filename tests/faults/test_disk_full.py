"""A full disk, for real: a small tmpfs filled by a ballast file (see `tests.faults.disk`).

SQLite: a run that cannot write gets a clear error and exit code 1, the file stays valid and
the session resumable once space returns, with no half-written message. PostgreSQL: a
`skawld work` worker whose database's tablespace fills up retries, and finishes every task
once space returns, each run once.
"""

from __future__ import annotations

import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from skawld_core.testing.postgres_server import PostgresServer
from skawld_tui.exit_codes import EXIT_ERROR, EXIT_OK
from tests.cli.harness import CliEnv, parse_events
from tests.faults.disk import fill, small_disk
from tests.faults.history import assert_valid_history, sqlite_history, wait_for
from tests.faults.workers import WorkerProc, admin, drain_with_fault
from tests.support.wire_server import RecordedRequest, Reply, text, tool_call, turn

pytestmark = pytest.mark.timeout(240)

BIG = 400_000  # characters in the reply that no longer fits


def _prompt(req: RecordedRequest) -> str:
    last = req.body["messages"][-1]["content"]
    blocks = last if isinstance(last, list) else [{"type": "text", "text": last}]
    return " ".join(b.get("text", "") for b in blocks if b.get("type") == "text")


def _replies(req: RecordedRequest) -> Reply:
    prompt = _prompt(req)
    if "big" in prompt:
        return turn(text("x" * BIG, chunk_size=50_000))
    if "tool" in prompt:
        return turn(tool_call("Bash", {"command": "echo hi"}, id="t1"))
    return turn(text(f"ok: {prompt or 'result'}"))


@pytest.mark.parametrize("leave", [0, 96 * 1024], ids=["no-space-at-all", "space-for-small-writes"])
def test_sqlite_on_a_full_disk_fails_clearly_and_resumes_after(cli: CliEnv, tmp_path: Path, leave: int) -> None:
    with small_disk("2m") as disk:
        env = {"SKAWLD_DB_PATH": str(disk / "sessions.db")}
        cli.srv.anthropic.default = _replies
        first = cli.run(*cli.args("-p", "hello", "--json"), env=env)
        assert first.returncode == EXIT_OK, first.stderr
        sid = parse_events(first.stdout)[0].session_id
        before = sqlite_history(disk / "sessions.db", sid)

        ballast = disk / "ballast"
        fill(ballast, leave=leave)
        full = cli.run(*cli.args("-p", "big reply please", "--resume", sid), env=env)
        assert full.returncode == EXIT_ERROR, full.stdout + full.stderr
        assert "Traceback" not in full.stderr
        assert "database or disk is full" in full.stderr, full.stdout
        assert "skawld:" in full.stderr
        stored = sqlite_history(disk / "sessions.db", sid)
        assert stored[: len(before)] == before
        assert all("x" * 1000 not in str(m) for m in stored)  # the reply that did not fit is not half there
        assert_valid_history(stored)

        ballast.unlink()  # space returns
        again = cli.run(*cli.args("-p", "tool please", "--json", "--resume", sid), env=env)
        assert again.returncode == EXIT_OK, again.stderr
        with sqlite3.connect(disk / "sessions.db") as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = sqlite_history(disk / "sessions.db", sid)
        assert_valid_history(stored)
        assert stored[: len(before)] == before
        assert stored[-1]["content"][-1]["text"] == "ok: result"


def test_a_worker_on_a_full_postgres_disk_retries_and_finishes_once_space_returns(
    cli: CliEnv, tmp_path: Path, own_pg: PostgresServer
) -> None:
    """The database lives in a tablespace on a small tmpfs; a ballast file fills it mid-drain
    ("could not extend file": SQLSTATE 53100). The worker retries, no task fails or runs twice,
    and once the ballast is gone every task completes."""
    with small_disk("24m") as disk:
        location = disk / "tablespace"
        location.mkdir()
        if own_pg.run_as:
            shutil.chown(location, user=own_pg.run_as)
        admin(own_pg.dsn, f"CREATE TABLESPACE small LOCATION '{location}'", "CREATE DATABASE onsmall TABLESPACE small")
        ballast = disk / "ballast"

        def inject(workers: list[WorkerProc]) -> None:
            fill(ballast)
            threading.Thread(target=lift, args=(workers,), daemon=True).start()

        def lift(workers: list[WorkerProc]) -> None:
            wait_for(
                lambda: any("No space left" in line for w in workers for line in w.lines), "a full-disk retry", 120
            )
            ballast.unlink()

        try:
            done, runs = drain_with_fault(cli, own_pg.dsn.rsplit("/", 1)[0] + "/onsmall", 6, inject, reply_size=200_000)
        finally:
            ballast.unlink(missing_ok=True)
            admin(own_pg.dsn, "DROP DATABASE IF EXISTS onsmall WITH (FORCE)", "DROP TABLESPACE IF EXISTS small")
    assert all(t["metadata"]["outcome"] == "done" for t in done.values())
    assert all(t["metadata"]["attempts"] == 1 for t in done.values()), done
    assert runs == {str(k): 1 for k in range(1, 7)}  # each task's model turn ran once
