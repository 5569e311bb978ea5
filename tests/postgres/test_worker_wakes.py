"""A worker's idle slots wake when one of its own tasks ends, on PostgreSQL (LISTEN/NOTIFY)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from skawld_core.agent import Agent
from skawld_core.sessions import CreateTaskInput
from skawld_core.sessions.claims import GraphProgress
from skawld_core.sessions.postgres import PostgresSessionStore
from skawld_core.testing import FunctionProvider
from skawld_tui.cli.worker import Worker, WorkerOptions

pytestmark = pytest.mark.timeout(60)


class _LateLookingStore(PostgresSessionStore):
    """The real store; the answer to the first "how far is the list" call (a slot that found
    nothing to claim, while another runs the only task) is held back until a later call has
    been answered: that slot then starts waiting to be woken only after the other slot has
    finished the task, cleared its wake and looked again."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.calls = 0
        self.later_answered = asyncio.Event()

    async def graph_progress(self, session_id: str) -> GraphProgress:
        self.calls += 1
        first = self.calls == 1
        progress = await super().graph_progress(session_id)  # the first: "not drained, one running"
        if first:
            await self.later_answered.wait()
        else:
            self.later_answered.set()
        return progress


async def test_a_slot_that_looks_late_is_still_woken_by_a_task_ending(fresh_db: str, tmp_path: Path) -> None:
    store = _LateLookingStore(fresh_db, schema=f"wake_{uuid.uuid4().hex[:8]}")
    graph = (await store.create(id="list")).id
    await store.create_task(graph, CreateTaskInput(subject="only task", description=""))
    agent = Agent(
        provider=FunctionProvider(lambda req: "done"), model="fake", tools=[], session_store=store, cwd=tmp_path
    )
    # a poll far longer than the test's timeout: only a wake can end the drain in time
    options = WorkerOptions(task_list=graph, concurrency=2, lease_seconds=60, poll_seconds=600)
    summary = await Worker(agent, store, options, log=lambda line: None).run()
    await agent.close()
    assert (summary.done, summary.errors) == (1, 0)
    assert store.calls >= 2
    await store.close()
