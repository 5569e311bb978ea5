"""Workers wake on LISTEN/NOTIFY when a task becomes ready, instead of waiting out their poll."""

from __future__ import annotations

import json
import threading

from tests.cli.harness import CliEnv
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
