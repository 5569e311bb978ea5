"""Attacks on the one-writer, fencing and task guarantees of docs/postgres.md and docs/sessions.md,
from the documentation alone: three resumers at once, a stopped holder, a stale lock row whose pid
was reused, a stopped worker on SQLite, lease edge values, poison results and DSN passwords with
`@`, `:` and `%` on a real server. The two holes it found (a raw password's fragment in a parse
error, an unbounded `--lease`) are closed; the tests keep them so."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import threading
from typing import Any

import pytest

from tests.cli.harness import CliEnv, skawld_command
from tests.faults.history import assert_valid_history, pg_fetch, pg_history, sqlite_history, wait_for
from tests.faults.test_two_writers import EXIT_BUSY, _start_in_bash, _store
from tests.faults.workers import KILL_SKAWLD, admin, drain_with_fault, start_workers
from tests.support.wire_server import RecordedRequest, Reply, text, tool_call, turn

pytestmark = pytest.mark.timeout(240)


def _resumers(cli: CliEnv, env: dict[str, str], sid: str, count: int) -> list[subprocess.Popen[str]]:
    return [
        subprocess.Popen(
            [*skawld_command(), *cli.args("-p", "continue", "--json", "--resume", sid)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cli.repo,
            env={**cli.env, **env},
        )
        for _ in range(count)
    ]


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_three_resumers_after_a_crash_exactly_one_runs(cli: CliEnv, kind: str, request: pytest.FixtureRequest) -> None:
    env, history = _store(cli, kind, request)
    crashed, sid = _start_in_bash(cli, env)
    crashed.send_signal(signal.SIGKILL)
    crashed.communicate(timeout=30)
    refused_both = threading.Event()

    def reply(req: RecordedRequest) -> Reply:
        assert refused_both.wait(60), "the other resumers never finished"
        return turn(text("resumed"))

    cli.srv.anthropic.default = reply
    procs = _resumers(cli, env, sid, 3)
    wait_for(lambda: sum(p.poll() is not None for p in procs) >= 2, "two resumers to be refused")
    refused_both.set()
    outs = {p.pid: p.communicate(timeout=60) for p in procs}
    codes = sorted(p.returncode for p in procs)
    assert codes == [0, EXIT_BUSY, EXIT_BUSY], outs
    stored = history(sid)
    assert_valid_history(stored)
    assert sum(1 for m in stored if m["role"] == "user" and "interrupted" in str(m)) == 1
    assert stored[-1]["content"][-1]["text"] == "resumed"


def test_a_stale_sqlite_lock_row_whose_pid_was_reused_does_not_block(cli: CliEnv) -> None:
    crashed, sid = _start_in_bash(cli, {})
    crashed.send_signal(signal.SIGKILL)
    crashed.communicate(timeout=30)
    with sqlite3.connect(cli.db) as conn:
        rows = conn.execute("SELECT pid FROM session_writers WHERE session_id = ?", (sid,)).fetchall()
        assert rows == [(crashed.pid,)], rows  # the dead holder's row is still there
        # the pid now belongs to a live process (this test) started at another time
        conn.execute("UPDATE session_writers SET pid = ? WHERE session_id = ?", (os.getpid(), sid))
    cli.srv.anthropic.default = lambda req: turn(text("resumed"))
    second = cli.run(*cli.args("-p", "continue", "--json", "--resume", sid))
    assert second.returncode == 0, second.stderr
    stored = sqlite_history(cli.db, sid)
    assert_valid_history(stored)
    assert stored[-1]["content"][-1]["text"] == "resumed"


def _sqlite_tasks(cli: CliEnv) -> dict[str, dict[str, Any]]:
    listed = cli.run("tasks", "list", "--list", "batch", "--json")
    assert listed.returncode == 0, listed.stderr
    return {str(t["id"]): t for t in (json.loads(line) for line in listed.stdout.splitlines())}


def _add(cli: CliEnv, env: dict[str, str], count: int) -> None:
    specs = "".join(json.dumps({"subject": f"TASK-{k}"}) + "\n" for k in range(1, count + 1))
    added = cli.run("tasks", "add", "--list", "batch", "--file", "-", input=specs, env=env)
    assert added.returncode == 0, added.stderr


def _worker(cli: CliEnv, env: dict[str, str], *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*skawld_command(), "work", "--list", "batch", *cli.args(*extra)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cli.repo,
        env={**cli.env, **env},
    )


STEP = "echo step$N-attempt$SKAWLD_TASK_ATTEMPT-fence$SKAWLD_TASK_FENCE-task$SKAWLD_TASK_ID >> side-effects.log"


def _results(req: RecordedRequest) -> int:
    return sum(
        1
        for m in req.body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    )


def test_a_sqlite_worker_stopped_past_its_lease_executes_nothing_after_it(cli: CliEnv) -> None:
    _add(cli, {}, 1)
    first_waiting, release_first = threading.Event(), threading.Event()

    def reply(req: RecordedRequest) -> Reply:
        n = _results(req)
        if n == 0:
            return turn(tool_call("Bash", {"command": STEP.replace("$N", "1")}, id="s1"))
        if n == 1:
            if not first_waiting.is_set():  # the first worker's step 2 waits while it is stopped
                first_waiting.set()
                assert release_first.wait(120)
            return turn(tool_call("Bash", {"command": STEP.replace("$N", "2")}, id="s2"))
        return turn(text("all steps done"))

    cli.srv.anthropic.default = reply
    first = _worker(cli, {}, "--lease", "3", "--poll", "0.1", "--allowed-tools", "Bash")
    assert first_waiting.wait(90), "the first worker never reached step 2"
    first.send_signal(signal.SIGSTOP)
    try:
        second = _worker(cli, {}, "--lease", "10", "--poll", "0.1", "--allowed-tools", "Bash")
        _o, second_err = second.communicate(timeout=120)
        assert second.returncode == 0, second_err
    finally:
        release_first.set()
        first.send_signal(signal.SIGCONT)
    _o, first_err = first.communicate(timeout=60)
    assert first.returncode == 0, first_err
    lines = (cli.repo / "side-effects.log").read_text().split()
    assert [x for x in lines if "attempt1-" in x] == ["step1-attempt1-fence1-task1"], lines
    task = _sqlite_tasks(cli)["1"]
    assert task["status"] == "completed" and task["metadata"]["outcome"] == "done"
    final = task["metadata"]["attempts"]
    assert [x for x in lines if f"attempt{final}-" in x] == [
        f"step1-attempt{final}-fence{final}-task1",
        f"step2-attempt{final}-fence{final}-task1",
    ]


@pytest.mark.parametrize("lease", ["inf", "1e308"])
def test_a_huge_lease_is_a_usage_error(cli: CliEnv, lease: str) -> None:
    _add(cli, {}, 1)
    cli.srv.anthropic.default = lambda req: turn(text("ran"))
    out = cli.run("work", "--list", "batch", *cli.args("--lease", lease, "--poll", "0.1"), timeout=60)
    # refused like any other out-of-range option (exit 2), before anything is claimed
    assert out.returncode == 2 and "--lease" in out.stderr and "Traceback" not in out.stderr, (
        out.returncode,
        out.stderr,
    )


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_lone_surrogate_result_ends_done_or_failed_and_the_list_drains(
    cli: CliEnv, kind: str, request: pytest.FixtureRequest
) -> None:
    env, _history = _store(cli, kind, request)
    _add(cli, env, 2)

    def reply(req: RecordedRequest) -> Reply:
        k = re.search(r"TASK-(\d+)", json.dumps(req.body["messages"][0]))
        assert k
        return turn(text(f"done TASK-{k.group(1)} \ud800 half a pair"))

    cli.srv.anthropic.default = reply
    worker = _worker(cli, env, "--lease", "30", "--poll", "0.1", "--max-attempts", "2")
    try:
        _o, err = worker.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        worker.kill()
        _o, err = worker.communicate()
        raise AssertionError("the worker did not drain:\n" + err) from None
    assert "Traceback" not in err, err
    assert worker.returncode in (0, 1), err
    listed = cli.run("tasks", "list", "--list", "batch", "--json", env=env)
    tasks = [json.loads(line) for line in listed.stdout.splitlines()]
    assert len(tasks) == 2 and all(t["status"] == "completed" for t in tasks), tasks
    assert all(t["metadata"]["outcome"] in ("done", "failed") and t["metadata"]["result"] for t in tasks), tasks
    assert len(cli.srv.anthropic.requests) <= 4


PASSWORD = "p@ss:w%rd/x"


def _never_shown(outputs: list[str]) -> None:
    from urllib.parse import quote

    for out in outputs:
        for piece in (PASSWORD, quote(PASSWORD, safe=""), "p@ss", "w%rd", "w%25rd"):
            assert piece not in out, out


def _attacker_dsns(fresh_db: str) -> tuple[str, str]:
    """A role whose password has `@`, `:`, `%` and `/`: its DSN percent-encoded, and written raw."""
    from urllib.parse import quote

    host_db = fresh_db.split("@", 1)[1]
    role = "r_" + host_db.rsplit("/", 1)[1]  # roles are per server: one per database
    pg_fetch(fresh_db, f"CREATE ROLE {role} LOGIN PASSWORD '{PASSWORD}' SUPERUSER")
    return f"postgresql://{role}:{quote(PASSWORD, safe='')}@{host_db}", f"postgresql://{role}:{PASSWORD}@{host_db}"


def test_an_encoded_password_with_at_colon_percent_on_a_real_server_is_never_printed(
    cli: CliEnv, fresh_db: str
) -> None:
    good, _raw = _attacker_dsns(fresh_db)
    missing_db = good.rsplit("/", 1)[0] + "/no_such_db"
    cli.srv.anthropic.default = lambda req: turn(text("ok"))
    outputs: list[str] = []
    for dsn in (good, missing_db):
        run = cli.run(*cli.args("-p", "hi", "--json", "--verbose"), env={"SKAWLD_DATABASE_URL": dsn})
        outputs.append(run.stdout + run.stderr)
    assert '"subtype":"success"' in outputs[0].replace(" ", ""), outputs[0]
    assert "no_such_db" in outputs[1] and "***" in outputs[1], outputs[1]
    _add(cli, {"SKAWLD_DATABASE_URL": good}, 1)

    def dump_environment(req: RecordedRequest) -> Reply:  # the task tries to read the DSN from its environment
        if _results(req) == 0:
            return turn(tool_call("Bash", {"command": "env; tr '\\0' '\\n' < /proc/$PPID/environ"}, id="e1"))
        return turn(text("finished"))

    cli.srv.anthropic.default = dump_environment
    worker = _worker(cli, {"SKAWLD_DATABASE_URL": good}, "--lease", "30", "--poll", "0.1", "--allowed-tools", "Bash")
    with open(f"/proc/{worker.pid}/cmdline", "rb") as f:
        cmdline = f.read().decode()
    out, err = worker.communicate(timeout=60)
    outputs += [out, err, cmdline]
    migrate = cli.run("sessions", "migrate", "--to", "env:T", "--verbose", env={"T": missing_db})
    outputs.append(migrate.stdout + migrate.stderr)
    listed = cli.run("tasks", "show", "--list", "batch", "1", env={"SKAWLD_DATABASE_URL": good})
    outputs.append(listed.stdout + listed.stderr)
    sessions = pg_fetch(fresh_db, "SELECT meta::text FROM sessions UNION ALL SELECT message_json FROM messages")
    outputs += [r[0] for r in sessions]
    sent = json.dumps([r.body for r in cli.srv.anthropic.requests])
    assert "SKAWLD_TASK_ID" in sent  # the task's environment did reach the model
    outputs.append(sent)
    assert worker.returncode == 0, err
    _never_shown(outputs)


def test_a_raw_password_with_at_colon_percent_is_never_printed(cli: CliEnv, fresh_db: str) -> None:
    _good, raw = _attacker_dsns(fresh_db)
    cli.srv.anthropic.default = lambda req: turn(text("ok"))
    run = cli.run(*cli.args("-p", "hi", "--json", "--verbose"), env={"SKAWLD_DATABASE_URL": raw})
    _never_shown([run.stdout + run.stderr])


def test_a_server_restart_mid_tool_without_a_takeover_lets_the_run_finish(cli: CliEnv, own_pg: Any) -> None:
    env = {"SKAWLD_DATABASE_URL": own_pg.dsn}
    first, sid = _start_in_bash(cli, env)
    try:
        _restart(own_pg)
    finally:
        (cli.repo / "go").touch()
    _out, err = first.communicate(timeout=90)
    assert first.returncode == 0, err
    stored = pg_history(own_pg.dsn, sid)
    assert_valid_history(stored)
    assert "finished" in str(stored[2]["content"][0]["content"]) and stored[-1]["content"][-1]["text"] == "first done"


def _restart(server: Any) -> None:
    pg_ctl = [*server._prefix(), str(server.bin_dir / "pg_ctl"), "-D", str(server.data_dir)]
    options = f"-p {server.port} -k {server.data_dir} -c listen_addresses=127.0.0.1 -c fsync=off"
    log = ["-l", str(server.data_dir.parent / "log"), "-o", options]
    subprocess.run([*pg_ctl, "-m", "fast", "-w", "stop"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([*pg_ctl, *log, "-w", "start"], check=True, stdout=subprocess.DEVNULL)


def test_alter_system_read_only_during_a_drain_is_retried(cli: CliEnv, own_pg: Any) -> None:
    dsn = own_pg.dsn

    def fault(workers: Any) -> None:
        admin(dsn, "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()", KILL_SKAWLD)
        threading.Thread(target=lift, args=(workers[0],), daemon=True).start()

    def lift(worker: Any) -> None:
        worker.wait_for_line("(retrying)", timeout=120)
        admin(dsn, "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()")

    done, _runs = drain_with_fault(cli, dsn, 6, fault)
    assert all(t["metadata"]["outcome"] == "done" for t in done.values())


def test_a_second_sigterm_aborts_the_task_and_releases_it_at_once(cli: CliEnv) -> None:
    _add(cli, {}, 1)

    def reply(req: RecordedRequest) -> Reply:
        if _results(req) == 0:
            cmd = STEP.replace("$N", "1") + "; touch in-tool; sleep 100; echo late >> side-effects.log"
            return turn(tool_call("Bash", {"command": cmd}, id="s1"))
        return turn(text("finished"))

    cli.srv.anthropic.default = reply
    (first,) = start_workers(cli, {}, 1, "--lease", "60", "--poll", "0.1", "--allowed-tools", "Bash")
    wait_for(lambda: (cli.repo / "in-tool").exists(), "the task to be inside Bash")
    first.proc.send_signal(signal.SIGTERM)
    first.wait_for_line("signal again to abort them")
    first.proc.send_signal(signal.SIGTERM)
    err = first.finish(timeout=30)
    (cli.repo / "in-tool").unlink()
    task = _sqlite_tasks(cli)["1"]
    assert task["status"] != "completed", task
    cli.srv.anthropic.default = lambda req: turn(text("second run"))
    second = _worker(cli, {}, "--lease", "60", "--poll", "0.1")
    _o, err2 = second.communicate(timeout=30)  # far less than the 60 s lease: it was released
    assert second.returncode == 0, err + err2
    task = _sqlite_tasks(cli)["1"]
    assert task["status"] == "completed" and task["metadata"]["result"] == "second run", task
    assert "late" not in (cli.repo / "side-effects.log").read_text()  # the aborted Bash call was ended
