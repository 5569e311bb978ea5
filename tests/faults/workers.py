"""Running real `skawld work` processes for the fault cases, with their stderr collected as it comes."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.cli.harness import CliEnv, skawld_command
from tests.faults.history import assert_valid_history, pg_fetch, pg_history, wait_for
from tests.support.wire_server import RecordedRequest, Reply, text, turn


@dataclass
class WorkerProc:
    """A `skawld work` process and the stderr lines it wrote so far."""

    proc: subprocess.Popen[str]
    lines: list[str] = field(default_factory=list)
    _reader: threading.Thread | None = None

    def start_reading(self) -> None:
        def read() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.lines.append(line)

        self._reader = threading.Thread(target=read, daemon=True)
        self._reader.start()

    def wait_for_line(self, needle: str, timeout: float = 60) -> None:
        wait_for(lambda: any(needle in line for line in self.lines), f"{needle!r} in the worker's stderr", timeout)

    def finish(self, timeout: float = 120) -> str:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the worker did not finish:\n" + "".join(self.lines)) from None
        if self._reader is not None:
            self._reader.join(10)
        return "".join(self.lines)


def start_workers(cli: CliEnv, env: dict[str, str], count: int, *extra: str) -> list[WorkerProc]:
    workers = []
    for _ in range(count):
        proc = subprocess.Popen(
            [*skawld_command(), "work", "--list", "batch", *cli.args(*extra)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cli.repo,
            env={**cli.env, **env},
        )
        worker = WorkerProc(proc)
        worker.start_reading()
        workers.append(worker)
    return workers


def add_tasks(cli: CliEnv, env: dict[str, str], count: int) -> None:
    specs = "".join(
        json.dumps({"subject": f"TASK-{k}", "description": f"Do TASK-{k}."}) + "\n" for k in range(1, count + 1)
    )
    added = cli.run("tasks", "add", "--list", "batch", "--file", "-", input=specs, env=env)
    assert added.returncode == 0, added.stderr


def tasks(dsn: str) -> dict[str, dict[str, Any]]:
    rows = pg_fetch(dsn, "SELECT id, status, metadata::text FROM tasks WHERE session_id = 'batch'")
    return {r[0]: {"status": r[1], "metadata": json.loads(r[2])} for r in rows}


def check_drained(dsn: str, count: int, workers: list[WorkerProc], code: int = 0) -> dict[str, dict[str, Any]]:
    """Every worker exited with `code` (0: none died of a fault; 1: a task failed), every task completed once with a done/failed
    outcome and a reason, and every task's session history is valid."""
    for worker in workers:
        err = worker.finish()
        assert worker.proc.returncode == code, err
        assert "finished:" in err
    done = tasks(dsn)
    assert sorted(done, key=int) == [str(k) for k in range(1, count + 1)]
    for tid, task in done.items():
        meta = task["metadata"]
        assert task["status"] == "completed" and meta["outcome"] in ("done", "failed"), (tid, task)
        assert meta["result"], (tid, task)
        if "session" in meta:
            assert_valid_history(pg_history(dsn, meta["session"]))
    return done


_TASK = re.compile(r"TASK-(\d+)")

KILL_SKAWLD = (
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
    " WHERE application_name = 'skawld' OR (datname = current_database() AND pid <> pg_backend_pid())"
)


def task_of(req: RecordedRequest) -> str:
    """The task id a model request is for (from its first message, the task's prompt)."""
    found = _TASK.search(json.dumps(req.body["messages"][0]))
    assert found
    return found.group(1)


def admin(dsn: str, *statements: str) -> None:
    """Run `statements` on a fresh superuser connection that no injected fault applies to."""
    import asyncpg

    async def go() -> None:
        conn = await asyncpg.connect(
            dsn, server_settings={"default_transaction_read_only": "off", "statement_timeout": "0"}
        )
        try:
            for sql in statements:
                await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(go())


def drain_with_fault(
    cli: CliEnv, dsn: str, count: int, inject: Any, *, at: int = 4, reply_size: int = 0
) -> tuple[dict[str, Any], Counter[str]]:
    """Drain `count` tasks with a worker of three slots; when the `at`-th model request arrives, `inject(workers)`
    runs (in the server's thread) before that request is answered. The workers must have met the
    fault (a retried call or a released task) and survived it. Returns the tasks and how many model
    requests each task's runs made; `reply_size` pads every answer with that many random (incompressible)
    characters."""
    env = {"SKAWLD_DATABASE_URL": dsn}
    add_tasks(cli, env, count)
    runs: Counter[str] = Counter()
    lock = threading.Lock()
    workers: list[Any] = []

    def reply(req: RecordedRequest) -> Reply:
        with lock:
            runs[task_of(req)] += 1
            if sum(runs.values()) == at:
                inject(workers)
        return turn(text(f"done TASK-{task_of(req)} {os.urandom(reply_size // 2).hex()}".rstrip()))

    cli.srv.anthropic.default = reply
    workers.extend(start_workers(cli, env, 1, "--concurrency", "3", "--lease", "20", "--poll", "0.1"))
    done = check_drained(dsn, count, workers)
    stderr = "".join(line for w in workers for line in w.lines)
    assert "(retrying)" in stderr or "released #" in stderr, stderr
    assert "Traceback" not in stderr
    return done, runs
