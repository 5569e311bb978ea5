"""`skawld tasks` and `skawld work` on a shared PostgreSQL task list, against the
local wire server: workers drain a graph with every task run exactly once, and a
SIGKILLed worker's task is re-run after its lease expires."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import threading
from typing import Any

import asyncpg
import pytest

from tests.cli.harness import CliEnv, parse_events, skawld_command
from tests.support.wire_server import RecordedRequest, Reply, text, turn

pytestmark = pytest.mark.timeout(600)

_TASK = re.compile(r"TASK-(\d+)")


def _task_of(req: RecordedRequest) -> str:
    found = _TASK.search(json.dumps(req.body["messages"][0]))
    assert found, "every worker prompt names its task"
    return found.group(1)


def _specs(n: int, *, layer: int = 10) -> str:
    """n tasks; task k (from 1) waits for task k - layer."""
    lines = []
    for k in range(1, n + 1):
        spec: dict[str, Any] = {"subject": f"TASK-{k}", "description": f"Do TASK-{k}.", "metadata": {"k": k}}
        if k > layer:
            spec["blocked_by"] = [f"@{k - layer}"]
        lines.append(json.dumps(spec))
    return "\n".join(lines) + "\n"


def _workers(cli: CliEnv, env: dict[str, str], count: int, *extra: str) -> list[subprocess.Popen[str]]:
    return [
        subprocess.Popen(
            [*skawld_command(), "work", "--list", "batch", *cli.args(*extra)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cli.repo,
            env=env,
        )
        for _ in range(count)
    ]


async def _tasks(dsn: str) -> dict[str, dict[str, Any]]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch("SELECT id, status, metadata::text, lease_owner FROM tasks WHERE session_id = 'batch'")
    finally:
        await conn.close()
    return {r[0]: {"status": r[1], "metadata": json.loads(r[2]), "lease_owner": r[3]} for r in rows}


def test_tasks_add_list_show(cli: CliEnv, fresh_db: str) -> None:
    env = {"SKAWLD_DATABASE_URL": fresh_db}
    one = cli.run(
        "tasks", "add", "--list", "batch", "first thing", "-d", "Do the first thing", "--meta", "file=a.py", env=env
    )
    assert one.returncode == 0, one.stderr
    first = json.loads(one.stdout)
    assert (first["id"], first["subject"], first["metadata"]) == ("1", "first thing", {"file": "a.py"})
    two = cli.run("tasks", "add", "--list", "batch", "second", "--blocked-by", "1", env=env)
    assert json.loads(two.stdout)["blocked_by"] == ["1"]
    bad = cli.run("tasks", "add", "--list", "batch", "third", "--blocked-by", "9", env=env)
    assert bad.returncode == 2 and "#9 not found" in bad.stderr
    listed = cli.run("tasks", "list", "--list", "batch", env=env)
    assert listed.stdout.splitlines() == ["#1 pending first thing", "#2 pending second (after #1)"]
    shown = cli.run("tasks", "show", "2", "--list", "batch", env=env)
    assert json.loads(shown.stdout)["blocked_by"] == ["1"]
    missing = cli.run("tasks", "show", "7", "--list", "batch", env=env)
    assert missing.returncode == 1 and "#7 not found" in missing.stderr
    memory = cli.run("tasks", "list", env={"SKAWLD_DATABASE_URL": ""})
    assert memory.returncode == 0  # the default SQLite store holds task lists too


def test_four_workers_drain_forty_tasks_exactly_once(cli: CliEnv, fresh_db: str) -> None:
    env = {**cli.env, "SKAWLD_DATABASE_URL": fresh_db}
    added = cli.run("tasks", "add", "--list", "batch", "--file", "-", input=_specs(40), env=env)
    assert added.returncode == 0, added.stderr
    cli.srv.anthropic.default = lambda req: turn(text(f"done TASK-{_task_of(req)}"))
    procs = _workers(cli, env, 4, "--concurrency", "2", "--lease", "30", "--poll", "0.1")
    outputs = [p.communicate(timeout=500) for p in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "finished:" in err
    order = [_task_of(r) for r in cli.srv.anthropic.requests]
    assert sorted(order, key=int) == [str(k) for k in range(1, 41)]  # each task ran exactly once
    for k in range(11, 41):
        assert order.index(str(k)) > order.index(str(k - 10)), f"TASK-{k} ran before its dependency"
    tasks = asyncio.run(_tasks(fresh_db))
    assert len(tasks) == 40
    for tid, task in tasks.items():
        meta = task["metadata"]
        assert task["status"] == "completed" and meta["outcome"] == "done" and meta["result"] == f"done TASK-{tid}"
        assert meta["attempts"] == 1 and meta["k"] == int(tid)
    listed = cli.run("tasks", "list", "--list", "batch", env=env)
    assert listed.stdout.count("completed/done") == 40

    sid = tasks["7"]["metadata"]["session"]
    cli.srv.anthropic.default = None
    cli.srv.anthropic.enqueue(turn(text("resumed")))
    resumed = cli.run(*cli.args("-p", "and then?", "--json", "--resume", sid), env=env)
    assert resumed.returncode == 0, resumed.stderr
    events = parse_events(resumed.stdout)
    assert events[0].session_id == sid and events[-1].final_text == "resumed"
    assert "TASK-7" in json.dumps(cli.srv.anthropic.last_body["messages"][0])


def test_a_killed_workers_task_is_rerun_after_its_lease(cli: CliEnv, fresh_db: str) -> None:
    env = {**cli.env, "SKAWLD_DATABASE_URL": fresh_db}
    added = cli.run("tasks", "add", "--list", "batch", "--file", "-", input=_specs(12, layer=100), env=env)
    assert added.returncode == 0, added.stderr
    slow_started, release = threading.Event(), threading.Event()
    slow_calls: list[int] = []

    def reply(req: RecordedRequest) -> Reply:
        task = _task_of(req)
        if task == "1":
            slow_calls.append(1)
            if len(slow_calls) == 1:  # the first run of TASK-1 hangs until its worker is killed
                slow_started.set()
                release.wait(120)
        return turn(text(f"done TASK-{task}"))

    cli.srv.anthropic.default = reply
    procs = _workers(cli, env, 3, "--lease", "2", "--poll", "0.1")
    try:
        assert slow_started.wait(90), "TASK-1 never started"
        owner = asyncio.run(_tasks(fresh_db))["1"]["lease_owner"]
        victim_pid = int(owner.split(":")[1])
        victim = next(p for p in procs if p.pid == victim_pid)
        victim.send_signal(signal.SIGKILL)
        victim.wait(30)
        survivors = [p for p in procs if p is not victim]
        outputs = [p.communicate(timeout=400) for p in survivors]
    finally:
        release.set()
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for proc, (_, err) in zip(survivors, outputs, strict=True):
        assert proc.returncode == 0, err
    tasks = asyncio.run(_tasks(fresh_db))
    assert all(t["status"] == "completed" and t["metadata"]["outcome"] == "done" for t in tasks.values()), tasks
    slow = tasks["1"]["metadata"]
    logs = "\n".join(err for _, err in outputs)
    assert len(slow_calls) == slow["attempts"] >= 2, logs  # re-run (a slow heartbeat may add one more)
    assert slow["result"] == "done TASK-1"
    assert str(victim_pid) not in slow["worker"].split(":")[1]
    order = [_task_of(r) for r in cli.srv.anthropic.requests]
    assert sorted(set(order), key=int) == [str(k) for k in range(1, 13)]  # nothing lost


def test_sigterm_lets_the_running_task_finish(cli: CliEnv, fresh_db: str) -> None:
    env = {**cli.env, "SKAWLD_DATABASE_URL": fresh_db}
    cli.run("tasks", "add", "--list", "batch", "--file", "-", input=_specs(3, layer=1), env=env)
    started, release = threading.Event(), threading.Event()

    def reply(req: RecordedRequest) -> Reply:
        started.set()
        release.wait(60)
        return turn(text(f"done TASK-{_task_of(req)}"))

    cli.srv.anthropic.default = reply
    (proc,) = _workers(cli, env, 1, "--lease", "30", "--poll", "0.1")
    try:
        assert started.wait(90)
        proc.send_signal(signal.SIGTERM)
        release.set()
        _, err = proc.communicate(timeout=60)
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopping" in err
    tasks = asyncio.run(_tasks(fresh_db))
    assert [tasks[k]["status"] for k in ("1", "2", "3")] == ["completed", "pending", "pending"]
