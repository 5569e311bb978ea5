"""Running real `skawld work` processes for the fault cases, with their stderr collected as it comes."""

from __future__ import annotations

import json
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Any

from tests.cli.harness import CliEnv, skawld_command
from tests.faults.history import assert_valid_history, pg_fetch, pg_history, wait_for


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
