"""Workers wake on LISTEN/NOTIFY when a task becomes ready, instead of waiting out their poll."""

from __future__ import annotations

import json
import signal
import threading

from tests.cli.harness import CliEnv
from tests.faults.history import pg_fetch, wait_for
from tests.faults.workers import add_tasks, check_drained, start_workers, task_of
from tests.support.wire_server import RecordedRequest, Reply, text, turn


def test_an_idle_slot_wakes_when_a_task_is_added(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": fresh_db}
    add_tasks(cli, env, 1)
    second_arrived = threading.Event()

    def reply(req: RecordedRequest) -> Reply:
        if task_of(req) == "1":  # task 1 holds its slot until task 2 has reached the model
            assert second_arrived.wait(60), "the idle slot never woke for task 2"
        else:
            second_arrived.set()
        return turn(text(f"done TASK-{task_of(req)}"))

    cli.srv.anthropic.default = reply
    # a poll far longer than the wait above: only the notification can wake the idle slot in time
    workers = start_workers(cli, env, 1, "--concurrency", "2", "--lease", "30", "--poll", "120")
    workers[0].wait_for_line("claimed #1")
    added = cli.run(
        "tasks", "add", "--list", "batch", "--file", "-", input=json.dumps({"subject": "TASK-2"}) + "\n", env=env
    )
    assert added.returncode == 0, added.stderr
    check_drained(fresh_db, 2, workers)
    assert [task_of(r) for r in cli.srv.anthropic.requests] == ["1", "2"]


def _idle_after_looking(dsn: str) -> bool:
    """Some worker found nothing to claim and asked how far the list is (then it waits to be woken)."""
    rows = pg_fetch(
        dsn,
        "SELECT 1 FROM pg_stat_activity WHERE state = 'idle' AND query LIKE '%FILTER (WHERE t.status = ''pending'')%'",
    )
    return bool(rows)


def _gated(cli: CliEnv, *held: str) -> dict[str, threading.Event]:
    """The model's reply to each task in `held` waits for its event; other tasks are answered at once."""
    gates = {tid: threading.Event() for tid in held}

    def reply(req: RecordedRequest) -> Reply:
        if task_of(req) in gates:
            assert gates[task_of(req)].wait(60), f"task {task_of(req)} was never let go"
        return turn(text(f"done TASK-{task_of(req)}"))

    cli.srv.anthropic.default = reply
    return gates


def test_an_idle_worker_wakes_when_its_dependency_completes_elsewhere(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": fresh_db}
    specs = [{"subject": "TASK-1"}, {"subject": "TASK-2", "blocked_by": ["@1"]}, {"subject": "TASK-3"}]
    added = cli.run(
        "tasks", "add", "--list", "batch", "--file", "-", input="".join(json.dumps(s) + "\n" for s in specs), env=env
    )
    assert added.returncode == 0, added.stderr
    gates = _gated(cli, "1", "3")
    first = start_workers(cli, env, 1, "--concurrency", "2", "--lease", "30", "--poll", "120")[0]
    first.wait_for_line("claimed #1")
    first.wait_for_line("claimed #3")
    # another process, idle: task 2 waits on task 1; only the server's notification can wake it in time
    second = start_workers(cli, env, 1, "--lease", "30", "--poll", "120")[0]
    wait_for(lambda: _idle_after_looking(fresh_db), "the second worker to find nothing ready")
    first.proc.send_signal(signal.SIGTERM)  # the first finishes its tasks and claims nothing more
    first.wait_for_line("stopping")
    gates["1"].set()  # task 1 completes while task 3 still runs: the list is neither empty nor drained
    second.wait_for_line("claimed #2")
    gates["3"].set()
    check_drained(fresh_db, 3, [first, second])


def test_an_idle_worker_sees_the_list_drained_when_the_last_task_finishes_elsewhere(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": fresh_db}
    add_tasks(cli, env, 1)
    gates = _gated(cli, "1")
    first = start_workers(cli, env, 1, "--lease", "30", "--poll", "120")[0]
    first.wait_for_line("claimed #1")
    second = start_workers(cli, env, 1, "--lease", "30", "--poll", "120")[0]
    wait_for(lambda: _idle_after_looking(fresh_db), "the second worker to find nothing ready")
    gates["1"].set()
    # check_drained waits for both to exit; the second one can only learn in time from the notification
    check_drained(fresh_db, 1, [first, second])
