"""Two processes on one session (SQLite and PostgreSQL): a resumer that arrives while the
first is inside a Bash call is refused at once and writes nothing; two resumers at once:
exactly one runs; a crashed holder does not block; a killed lock connection is noticed."""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Callable
from typing import Any

import pytest

from tests.cli.harness import CliEnv, parse_events, skawld_command
from tests.faults.history import assert_valid_history, pg_fetch, pg_history, sqlite_history, wait_for
from tests.support.wire_server import RecordedRequest, Reply, text, tool_call, turn

pytestmark = pytest.mark.timeout(240)

BLOCKING_BASH = "touch started; while [ ! -e go ]; do sleep 0.05; done; echo finished"
EXIT_BUSY = 5


def _store(cli: CliEnv, kind: str, request: pytest.FixtureRequest) -> tuple[dict[str, str], Callable[[str], list[Any]]]:
    """The environment selecting the store, and a reader of a session's stored history."""
    if kind == "sqlite":
        return {}, lambda sid: sqlite_history(cli.db, sid)
    dsn = request.getfixturevalue("fresh_db")
    return {"SKAWLD_DATABASE_URL": dsn}, lambda sid: pg_history(dsn, sid)


def _first_run_replies(req: RecordedRequest) -> Reply:
    """The blocking Bash call for the prompt "start", "first done" after its result, "ok" for anything else."""
    last = req.body["messages"][-1]["content"]
    blocks = last if isinstance(last, list) else [{"type": "text", "text": last}]
    if any(b.get("type") == "tool_result" for b in blocks):
        return turn(text("first done"))
    if any(b.get("type") == "text" and b.get("text") == "start" for b in blocks):
        return turn(tool_call("Bash", {"command": BLOCKING_BASH}, id="b1"))
    return turn(text("ok"))


def _start_in_bash(cli: CliEnv, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """Start `skawld -p` whose first tool call blocks in Bash until `go` exists; return it and its session id."""
    cli.srv.anthropic.default = _first_run_replies
    first = cli.popen(*cli.args("-p", "start", "--json", "--allowed-tools", "Bash"), env=env)
    assert first.stdout is not None
    session_id = parse_events(first.stdout.readline())[0].session_id
    wait_for(lambda: (cli.repo / "started").exists(), "the first run to be inside Bash")
    return first, session_id


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_resumer_mid_tool_is_refused_and_writes_nothing(
    cli: CliEnv, kind: str, request: pytest.FixtureRequest
) -> None:
    env, history = _store(cli, kind, request)
    first, sid = _start_in_bash(cli, env)
    try:
        before = history(sid)
        second = cli.run(*cli.args("-p", "me too", "--json", "--resume", sid), env=env)
        assert second.returncode == EXIT_BUSY, second.stderr
        assert f"session {sid[:8]} is running in another process (pid {first.pid} on host" in second.stderr
        assert "use --fork-session to branch it" in second.stderr
        assert history(sid) == before  # nothing written: no synthetic result for the running call
        forked = cli.run(*cli.args("-p", "branch", "--json", "--resume", sid, "--fork-session"), env=env)
        assert forked.returncode == 0, forked.stderr  # forking a running session works
    finally:
        (cli.repo / "go").touch()
        _out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    stored = history(sid)
    assert_valid_history(stored)
    assert stored[-1]["content"][-1]["text"] == "first done"
    assert "finished" in str(stored[2]["content"][0]["content"])  # the real Bash result, not a synthetic one


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_two_resumers_at_once_one_runs_the_other_is_refused(
    cli: CliEnv, kind: str, request: pytest.FixtureRequest
) -> None:
    env, history = _store(cli, kind, request)
    crashed, sid = _start_in_bash(cli, env)
    crashed.send_signal(signal.SIGKILL)  # leaves a dangling tool_use and a lock row of a dead process
    crashed.wait(30)
    crashed.communicate()
    assert history(sid)[-1]["content"][0]["type"] == "tool_use"

    someone_exited = threading.Event()

    def reply(req: RecordedRequest) -> Reply:
        assert someone_exited.wait(60), "the other resumer never finished"
        return turn(text("resumed"))

    cli.srv.anthropic.default = reply
    both = [
        subprocess.Popen(
            [*skawld_command(), *cli.args("-p", "continue", "--json", "--resume", sid)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cli.repo,
            env={**cli.env, **env},
        )
        for _ in range(2)
    ]
    refused = wait_for(lambda: next((p for p in both if p.poll() is not None), None), "one resumer to be refused")
    someone_exited.set()
    winner = next(p for p in both if p is not refused)
    _, err = refused.communicate(timeout=30)
    winner.communicate(timeout=60)
    assert (refused.returncode, winner.returncode) == (EXIT_BUSY, 0), err
    assert f"pid {winner.pid} on host" in err
    stored = history(sid)
    assert_valid_history(stored)
    synthetic = [m for m in stored if "interrupted" in str(m) and m["role"] == "user"]
    assert len(synthetic) == 1  # the dangling call answered once, by the winner
    assert len(cli.srv.anthropic.requests) == 1 + 1  # the crashed run's first turn, then the winner's


def _lock_backends(dsn: str) -> list[int]:
    rows = pg_fetch(
        dsn,
        "SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database"
        " WHERE l.locktype = 'advisory' AND l.granted AND d.datname = current_database()",
    )
    return [int(r[0]) for r in rows]


def _terminate(dsn: str, pids: list[int]) -> None:
    pg_fetch(dsn, "SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid", pids)


def test_a_killed_lock_connection_is_noticed_and_the_run_is_fenced(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": fresh_db}
    first, sid = _start_in_bash(cli, env)
    try:
        held = wait_for(lambda: _lock_backends(fresh_db), "the run's writer lock")
        _terminate(fresh_db, held)
        wait_for(lambda: not _lock_backends(fresh_db), "the lock to be dropped with its connection")
        cli.srv.anthropic.default = lambda req: turn(text("took over"))
        second = cli.run(*cli.args("-p", "take over", "--json", "--resume", sid), env=env)
        assert second.returncode == 0, second.stderr  # the lock was free: the session is taken over
    finally:
        (cli.repo / "go").touch()
        out, _err = first.communicate(timeout=60)
    events = parse_events(out)
    assert first.returncode == 1 and events[-1].subtype == "error"
    errors = [e for e in events if e.type == "error"]
    assert errors and errors[0].error.name == "SessionFencedError", errors
    stored = pg_history(fresh_db, sid)
    assert_valid_history(stored)
    assert stored[-1]["content"][-1]["text"] == "took over"
    results = [b for m in stored for b in m["content"] if b.get("type") == "tool_result"]
    assert [str(b["content"]) for b in results] == [
        "Tool call interrupted; side effects unknown."
    ]  # not the fenced one


def test_a_killed_lock_connection_without_a_takeover_is_retaken(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": fresh_db}
    first, sid = _start_in_bash(cli, env)
    try:
        held = wait_for(lambda: _lock_backends(fresh_db), "the run's writer lock")
        _terminate(fresh_db, held)
    finally:
        (cli.repo / "go").touch()
        _out, err = first.communicate(timeout=60)
    assert first.returncode == 0, err
    stored = pg_history(fresh_db, sid)
    assert_valid_history(stored)
    assert "finished" in str(stored[2]["content"][0]["content"]) and stored[-1]["content"][-1]["text"] == "first done"
    assert [r[0] for r in pg_fetch(fresh_db, "SELECT pid FROM session_writers")] == [None]  # released at the end
