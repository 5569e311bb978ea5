"""`skawld work` under faults on a real PostgreSQL server: a poison result, a worker stopped
past its lease, killed backends and a server restart, read-only mode and a statement timeout."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import threading
from typing import Any

import pytest

from skawld_core.testing.postgres_server import PostgresServer
from tests.cli.harness import CliEnv
from tests.faults.history import pg_fetch, wait_for
from tests.faults.workers import (
    KILL_SKAWLD,
    add_tasks,
    admin,
    check_drained,
    drain_with_fault,
    start_workers,
    task_of,
    tasks,
)
from tests.support.wire_server import RecordedRequest, Reply, text, tool_call, turn

pytestmark = pytest.mark.timeout(240)


def _has_result(req: RecordedRequest) -> bool:
    last = req.body["messages"][-1]["content"]
    return isinstance(last, list) and any(b.get("type") == "tool_result" for b in last)


def test_a_poison_result_is_stored_escaped_and_the_next_task_runs(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": fresh_db}
    add_tasks(cli, env, 2)
    cli.srv.anthropic.default = lambda req: turn(text(f"done TASK-{task_of(req)} \x00 with a NUL"))
    workers = start_workers(cli, env, 1, "--lease", "30", "--poll", "0.1")
    done = check_drained(fresh_db, 2, workers)
    assert [task_of(r) for r in cli.srv.anthropic.requests] == ["1", "2"]  # each ran once, none for ever
    assert done["1"]["metadata"]["result"] == "done TASK-1 \\u0000 with a NUL"
    assert done["1"]["metadata"]["outcome"] == "done" and done["1"]["metadata"]["attempts"] == 1


def test_a_task_that_never_finishes_ends_failed_after_max_attempts(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": fresh_db}
    add_tasks(cli, env, 1)
    started = threading.Event()

    def hang(req: RecordedRequest) -> Reply:
        started.set()
        threading.Event().wait(30)
        return turn(text("too late"))

    # Claims that never finish: a worker killed mid-run (its lease expires).
    for attempt in (1,):
        started.clear()
        cli.srv.anthropic.default = hang
        (worker,) = start_workers(cli, env, 1, "--lease", "1", "--poll", "0.1")
        assert started.wait(60), f"attempt {attempt} never reached the model"
        worker.proc.send_signal(signal.SIGKILL)
        worker.finish()
    cli.srv.anthropic.default = lambda req: turn(text("should not run"))
    workers = start_workers(cli, env, 1, "--lease", "1", "--poll", "0.1", "--max-attempts", "1")
    done = check_drained(fresh_db, 1, workers, code=1)  # exit 1: a task failed
    meta = done["1"]["metadata"]
    assert meta["outcome"] == "failed" and meta["result"].startswith("gave up after 1 unfinished attempt (last: ")
    assert meta["attempts"] == 2 and len(cli.srv.anthropic.requests) == 1  # the second claim ran nothing


def test_a_worker_stopped_past_its_lease_executes_nothing_after_it(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": fresh_db}
    add_tasks(cli, env, 1)
    log = cli.repo / "side-effects.log"
    step = (
        "echo step$N-attempt$SKAWLD_TASK_ATTEMPT-fence$SKAWLD_TASK_FENCE-task$SKAWLD_TASK_ID | tee -a side-effects.log"
    )
    first_waiting, release_first = threading.Event(), threading.Event()

    def reply(req: RecordedRequest) -> Reply:
        attempt = re.search(r"attempt(\d)", json.dumps(req.body["messages"])) if _has_result(req) else None
        results = sum(
            1
            for m in req.body["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        )
        if results == 0:
            return turn(tool_call("Bash", {"command": step.replace("$N", "1")}, id="s1"))
        if results == 1:
            if attempt and attempt.group(1) == "1":  # the first worker's second step waits while it is stopped
                first_waiting.set()
                assert release_first.wait(120)
            return turn(tool_call("Bash", {"command": step.replace("$N", "2")}, id="s2"))
        return turn(text("all steps done"))

    cli.srv.anthropic.default = reply
    hook = "echo hook-task$SKAWLD_TASK_ID-fence$SKAWLD_TASK_FENCE >> hooks.log"
    cli.write_user_config({"hooks": {"PreToolUse": [{"matcher": "Bash", "command": hook}]}})
    (first,) = start_workers(cli, env, 1, "--lease", "3", "--poll", "0.1", "--allowed-tools", "Bash")
    assert first_waiting.wait(90), "the first worker never reached step 2"
    first.proc.send_signal(signal.SIGSTOP)
    try:
        (second,) = start_workers(cli, env, 1, "--lease", "10", "--poll", "0.1", "--allowed-tools", "Bash")
        second_err = second.finish(timeout=120)  # claims after the lease expires, runs both steps, drains
        assert second.proc.returncode == 0, second_err
    finally:
        release_first.set()  # its step-2 reply is on the wire when it resumes
        first.proc.send_signal(signal.SIGCONT)
    first_err = first.finish(timeout=60)
    assert first.proc.returncode == 0, first_err
    assert "lost the lease on #1" in first_err
    lines = log.read_text().split()
    done = tasks(fresh_db)
    final = done["1"]["metadata"]["attempts"]
    assert done["1"]["status"] == "completed" and final >= 2
    # the stopped worker ran step 1 only: nothing after its lease was gone
    assert [x for x in lines if "attempt1-" in x] == ["step1-attempt1-fence1-task1"], second_err + first_err
    hooks = (cli.repo / "hooks.log").read_text().split()
    assert hooks == ["hook-task1-fence1", *[f"hook-task1-fence{final}"] * 2]  # no hook after the lease was gone
    assert [x for x in lines if f"attempt{final}-" in x] == [
        f"step1-attempt{final}-fence{final}-task1",
        f"step2-attempt{final}-fence{final}-task1",
    ]


def test_killed_backends_and_a_server_restart_during_a_drain(cli: CliEnv, own_pg: PostgresServer) -> None:
    dsn = own_pg.dsn
    pg_ctl = [*own_pg._prefix(), str(own_pg.bin_dir / "pg_ctl"), "-D", str(own_pg.data_dir)]
    options = f"-p {own_pg.port} -k {own_pg.data_dir} -c listen_addresses=127.0.0.1 -c fsync=off"
    log = ["-l", str(own_pg.data_dir.parent / "log"), "-o", options]

    def restart(workers: Any) -> None:
        admin(dsn, KILL_SKAWLD)
        # no pipes: the restarted server would inherit them and keep run() waiting
        subprocess.run([*pg_ctl, "-m", "fast", "-w", "stop"], check=True, stdout=subprocess.DEVNULL)
        threading.Thread(target=start_again, args=(workers,), daemon=True).start()

    def start_again(workers: Any) -> None:
        wait_for(lambda: any("(retrying)" in line for w in workers for line in w.lines), "a worker to retry")
        subprocess.run([*pg_ctl, *log, "-w", "start"], check=True, stdout=subprocess.DEVNULL)

    done, _runs = drain_with_fault(cli, dsn, 8, restart)
    assert all(t["metadata"]["outcome"] == "done" for t in done.values())  # a database fault fails no task


@pytest.mark.parametrize(
    "setting",
    ["default_transaction_read_only = on", "statement_timeout = '1ms'"],
    ids=["read-only", "statement-timeout"],
)
def test_a_database_wide_fault_is_retried_until_it_passes(cli: CliEnv, fresh_db: str, setting: str) -> None:
    name = fresh_db.rsplit("/", 1)[1]
    key = setting.split(" =")[0]

    def fault(workers: Any) -> None:
        admin(fresh_db, f'ALTER DATABASE "{name}" SET {setting}', KILL_SKAWLD)  # new connections get it
        worker = workers[0]
        threading.Thread(target=lift, args=(worker,), daemon=True).start()

    def lift(worker: Any) -> None:
        worker.wait_for_line("(retrying)", timeout=120)  # the fault was met and is being retried
        admin(fresh_db, f'ALTER DATABASE "{name}" RESET {key}', KILL_SKAWLD)

    done, _runs = drain_with_fault(cli, fresh_db, 6, fault)
    assert all(t["metadata"]["outcome"] == "done" for t in done.values())
    rows = pg_fetch(fresh_db, "SELECT count(*) FROM pg_db_role_setting")
    assert rows[0][0] == 0  # the fault was lifted by the test, not by the workers
