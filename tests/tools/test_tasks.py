"""Task tools over real stores: create, list, get, update, dependencies, deletion."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from skawld_core.errors import ToolInputError
from skawld_core.sessions import InMemorySessionStore, SessionStore
from skawld_core.tools import TaskCreateTool, TaskGetTool, TaskListTool, TaskUpdateTool, ToolContext

from .conftest import call, make_ctx, text_of

create, listing, get, update = TaskCreateTool(), TaskListTool(), TaskGetTool(), TaskUpdateTool()


@pytest.fixture
async def store() -> AsyncIterator[SessionStore]:
    s = InMemorySessionStore()
    await s.create(id="s1")
    yield s
    await s.close()


@pytest.fixture
def tctx(tmp_path: Path, store: SessionStore) -> ToolContext:
    return make_ctx(tmp_path, session_store=store)


def test_scopes_and_flags() -> None:
    assert (create.scope, listing.scope, get.scope, update.scope) == ("write", "read", "read", "write")
    assert all(t.parallel_safe for t in (create, listing, get, update))
    assert [t.name for t in (create, listing, get, update)] == ["TaskCreate", "TaskList", "TaskGet", "TaskUpdate"]


def test_validation_and_summaries() -> None:
    with pytest.raises(ToolInputError):
        create.validate({"subject": "   ", "description": "d"})
    with pytest.raises(ToolInputError):
        create.validate({"subject": "x"})
    with pytest.raises(ToolInputError):
        update.validate({"task_id": "1", "status": "done"})
    assert create.summarize(create.validate({"subject": " Ship it ", "description": ""})) == "Create task: Ship it"
    assert get.validate({"task_id": 3}).task_id == "3"
    assert update.validate({"task_id": "#4", "add_blocks": [5, "#6"]}).add_blocks == ["5", "6"]
    assert update.summarize(update.validate({"task_id": "2", "status": "deleted"})) == "Delete task #2"


async def test_create_ids_and_persistence(tctx: ToolContext, store: SessionStore) -> None:
    r1 = await call(create, tctx, subject="  First  ", description="one")
    r2 = await call(create, tctx, subject="Second", description="two", active_form="Doing second")
    assert text_of(r1) == "Task #1 created: First"
    assert text_of(r2) == "Task #2 created: Second"
    assert r1.summary == "Create task: First"
    stored = await store.get_task("s1", "2")
    assert stored is not None and stored.active_form == "Doing second"


async def test_list(tctx: ToolContext) -> None:
    r = await call(listing, tctx)
    assert text_of(r) == "No tasks found." and not r.is_error
    for s in ("A", "B", "C"):
        await call(create, tctx, subject=s, description="")
    await call(update, tctx, task_id="3", add_blocked_by=["1", "2"], owner="bob")
    await call(update, tctx, task_id="1", status="completed")
    assert text_of(await call(listing, tctx)).split("\n") == [
        "#1 [completed] A",
        "#2 [pending] B",
        "#3 [pending] C (bob) [blocked by #2]",
    ]


async def test_get(tctx: ToolContext) -> None:
    r = await call(get, tctx, task_id="9")
    assert r.is_error and text_of(r) == "Error: Task not found."
    await call(create, tctx, subject="Plain", description="just this")
    plain = text_of(await call(get, tctx, task_id="1")).split("\n")
    assert plain[:4] == ["Task #1", "  subject: Plain", "  status: pending", "  description: just this"]
    assert [line.split(":")[0].strip() for line in plain[4:]] == ["created_at", "updated_at"]
    await call(create, tctx, subject="Full", description="all", active_form="Fulling", metadata={"k": 1})
    await call(update, tctx, task_id="2", owner="ann", add_blocked_by=["1"])
    full = text_of(await call(get, tctx, task_id="2"))
    for line in ("  active_form: Fulling", "  owner: ann", "  blocked_by: #1", '  metadata: {"k": 1}'):
        assert line in full
    assert "  blocks: #2" in text_of(await call(get, tctx, task_id="1"))


async def test_update_diff_and_no_changes(tctx: ToolContext) -> None:
    await call(create, tctx, subject="A", description="")
    await call(create, tctx, subject="B", description="")
    r = await call(update, tctx, task_id="1", status="in_progress", subject="A2", owner="me", add_blocks=["2"])
    assert text_of(r) == (
        "Task #1 updated: subject A → A2; status pending → in_progress; owner (none) → me; blocks (none) → #2"
    )
    assert text_of(await call(update, tctx, task_id="1", status="in_progress")) == "Task #1 updated: no changes"


async def test_cycle_and_missing_edges(tctx: ToolContext) -> None:
    for s in ("A", "B"):
        await call(create, tctx, subject=s, description="")
    await call(update, tctx, task_id="1", add_blocks=["2"])
    r = await call(update, tctx, task_id="2", add_blocks=["1"])
    assert r.is_error and "Dependency cycle detected" in text_of(r)
    r = await call(update, tctx, task_id="1", add_blocks=["99"])
    assert r.is_error and "not found" in text_of(r)


async def test_metadata_merge_and_delete_key(tctx: ToolContext, store: SessionStore) -> None:
    await call(create, tctx, subject="M", description="", metadata={"a": 1, "b": 2})
    r = await call(update, tctx, task_id="1", metadata={"b": None, "c": 3})
    assert "metadata updated" in text_of(r)
    task = await store.get_task("s1", "1")
    assert task is not None and task.metadata == {"a": 1, "c": 3}


async def test_delete_and_ids_not_reused(tctx: ToolContext) -> None:
    await call(create, tctx, subject="Gone", description="")
    r = await call(update, tctx, task_id="1", status="deleted")
    assert text_of(r) == "Task #1 deleted."
    assert text_of(await call(listing, tctx)) == "No tasks found."
    r = await call(update, tctx, task_id="1", status="deleted")
    assert r.is_error and "not found" in text_of(r)
    assert text_of(await call(create, tctx, subject="Next", description="")) == "Task #2 created: Next"


async def test_without_store_is_error(ctx: ToolContext) -> None:
    r = await call(listing, ctx)
    assert r.is_error and "session store" in text_of(r)


async def test_sqlite_store_roundtrip(tmp_path: Path) -> None:
    from skawld_core.sessions import SqliteSessionStore

    db = tmp_path / "s.db"
    s = SqliteSessionStore(db)
    await s.create(id="s1")
    ctx = make_ctx(tmp_path, session_store=s)
    await call(create, ctx, subject="A", description="")
    await call(create, ctx, subject="B", description="")
    await call(update, ctx, task_id="2", add_blocked_by=["1"])
    await call(update, ctx, task_id="1", status="deleted")
    await s.close()
    s2 = SqliteSessionStore(db)
    ctx2 = make_ctx(tmp_path, session_store=s2)
    assert text_of(await call(listing, ctx2)) == "#2 [pending] B"
    assert text_of(await call(create, ctx2, subject="C", description="")) == "Task #3 created: C"
    r = await call(update, ctx2, task_id="3", add_blocks=["3"])
    assert r.is_error
    await s2.close()
