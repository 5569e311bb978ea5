"""How one `Worker` claims: its slots take turns (one claim in flight per worker process)."""

from __future__ import annotations

from pathlib import Path

from skawld_core.agent import Agent
from skawld_core.sessions import CreateTaskInput
from skawld_core.sessions.claims import TaskClaim
from skawld_core.sessions.sqlite import SqliteSessionStore
from skawld_core.testing import FunctionProvider
from skawld_tui.cli.worker import Worker, WorkerOptions


class _CountingStore(SqliteSessionStore):
    """The real SQLite store, noting how many claims are in flight at once."""

    in_flight = 0
    most_at_once = 0

    async def claim_task(self, session_id: str, worker: str, *, lease_seconds: float) -> TaskClaim | None:
        self.in_flight += 1
        self.most_at_once = max(self.most_at_once, self.in_flight)
        try:
            return await super().claim_task(session_id, worker, lease_seconds=lease_seconds)
        finally:
            self.in_flight -= 1


async def test_slots_claim_one_at_a_time_and_drain_every_task(tmp_path: Path) -> None:
    store = _CountingStore(tmp_path / "sessions.db")
    graph = (await store.create(id="list")).id
    for k in range(24):
        await store.create_task(graph, CreateTaskInput(subject=f"task {k}", description=""))
    agent = Agent(
        provider=FunctionProvider(lambda req: "done"), model="fake", tools=[], session_store=store, cwd=tmp_path
    )
    options = WorkerOptions(task_list=graph, concurrency=8, lease_seconds=60, poll_seconds=0.05)
    summary = await Worker(agent, store, options, log=lambda line: None).run()
    await agent.close()
    assert (summary.done, summary.failed, summary.errors) == (24, 0, 0)
    assert store.most_at_once == 1  # eight slots, but never two claims at once
    assert all(t.status == "completed" for t in await store.list_tasks(graph))
    await store.close()
