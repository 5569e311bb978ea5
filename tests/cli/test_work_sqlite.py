"""`skawld work` on the default SQLite store: two workers on one machine drain a list."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from tests.cli.harness import CliEnv, skawld_command
from tests.support.wire_server import RecordedRequest, Reply, text, turn

pytestmark = pytest.mark.timeout(120)


def _reply(req: RecordedRequest) -> Reply:
    found = re.search(r"JOB-(\d+)", json.dumps(req.body["messages"][0]))
    assert found
    return turn(text(f"finished JOB-{found.group(1)}"))


def test_two_workers_drain_a_sqlite_task_list(cli: CliEnv) -> None:
    specs = "".join(json.dumps({"subject": f"JOB-{k}", "metadata": {"k": k}}) + "\n" for k in range(1, 9))
    assert cli.run("tasks", "add", "--file", "-", input=specs).returncode == 0
    cli.srv.anthropic.default = _reply
    procs = [
        subprocess.Popen(
            [*skawld_command(), "work", *cli.args("--lease", "30", "--poll", "0.1")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cli.repo,
            env=cli.env,
        )
        for _ in range(2)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=100)
        assert proc.returncode == 0, err
    prompts = [re.search(r"JOB-(\d+)", json.dumps(r.body["messages"][0])) for r in cli.srv.anthropic.requests]
    assert sorted(int(m.group(1)) for m in prompts if m) == list(range(1, 9))  # each exactly once
    listed = cli.run("tasks", "list", "--json")
    tasks = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [t["metadata"]["result"] for t in tasks] == [f"finished JOB-{k}" for k in range(1, 9)]
    assert all(t["status"] == "completed" and t["metadata"]["outcome"] == "done" for t in tasks)
    first_prompts = [json.dumps(r.body["messages"][0]) for r in cli.srv.anthropic.requests]
    assert any("Task metadata" in p and '\\"k\\": 1\\n' in p for p in first_prompts)  # metadata in the prompt


def test_work_without_a_persistent_store_is_a_config_error(cli: CliEnv) -> None:
    cli.write_user_config({"sessionStore": {"kind": "memory"}})
    out = cli.run("work", *cli.args())
    assert out.returncode == 3 and "task lists need a persistent store" in out.stderr


def test_work_on_a_missing_list_says_how_to_add_tasks(cli: CliEnv) -> None:
    out = cli.run("work", "--list", "nothing-here", *cli.args())
    assert out.returncode == 0
    assert "skawld tasks add --list nothing-here" in out.stderr
