"""A conformance suite for `SessionStore` implementations.

Run every check against a factory of fresh, empty stores::

    await run_session_store_conformance(lambda: MyStore(...))

or parametrize pytest over `CONFORMANCE_CHECKS` (pairs of name and
`async def check(store) -> None`) and call each check with a fresh store. A
failing check raises `AssertionError` naming the check and what went wrong.
Each check closes nothing itself; `run_session_store_conformance` closes every
store it creates.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from ..errors import SessionStoreError
from ..messages import InvokedSkillRecord, Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from ..sessions.store import CreateTaskInput, SessionStore, Task, TaskPatch

StoreFactory = Callable[[], Awaitable[SessionStore]] | Callable[[], SessionStore]
ConformanceCheck = Callable[[SessionStore], Awaitable[None]]


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _text(text: str, role: str = "user") -> Message:
    return Message.model_validate({"role": role, "content": [{"type": "text", "text": text}]})


async def _expect_store_error(awaitable: Awaitable[Any], what: str, contains: str | None = None) -> None:
    try:
        await awaitable
    except SessionStoreError as exc:
        if contains is not None:
            _expect(contains in str(exc), f"{what}: error message {str(exc)!r} should contain {contains!r}")
        return
    except Exception as exc:
        raise AssertionError(f"{what}: expected SessionStoreError, got {exc!r}") from exc
    raise AssertionError(f"{what}: expected SessionStoreError, nothing was raised")


async def _task(store: SessionStore, sid: str, subject: str = "task", **extra: Any) -> Task:
    return await store.create_task(sid, CreateTaskInput(subject=subject, description=f"{subject} desc", **extra))


async def _get(store: SessionStore, sid: str, task_id: str) -> Task:
    task = await store.get_task(sid, task_id)
    _expect(task is not None, f"task {task_id} should exist")
    assert task is not None
    return task


async def _graph(store: SessionStore, sid: str) -> dict[str, tuple[list[str], list[str]]]:
    return {t.id: (t.blocks, t.blocked_by) for t in await store.list_tasks(sid)}


def _iso(value: str, what: str) -> None:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise AssertionError(f"{what} {value!r} is not ISO-8601") from exc
    _expect(parsed.utcoffset() == timedelta(0), f"{what} {value!r} is not UTC")


# ----- sessions -----


async def check_create_and_load_round_trip(store: SessionStore) -> None:
    created = await store.create(meta={"title": "hello", "n": 1, "nested": {"k": [1, 2]}})
    _expect(bool(created.id), "create() must assign an id")
    _expect(created.meta == {"title": "hello", "n": 1, "nested": {"k": [1, 2]}}, f"meta not stored: {created.meta}")
    _iso(created.created_at, "created_at")
    _iso(created.updated_at, "updated_at")
    loaded = await store.load(created.id)
    _expect(loaded is not None, "load() of a created session returned None")
    assert loaded is not None
    _expect(loaded.id == created.id and loaded.meta == created.meta, f"load() differs: {loaded} vs {created}")
    _expect(loaded.invoked_skills == [], "a new session has no invoked skills")


async def check_create_with_id_is_idempotent(store: SessionStore) -> None:
    first = await store.create(id="fixed-id", meta={"a": 1})
    second = await store.create(id="fixed-id", meta={"b": 2})
    _expect(first.id == second.id == "fixed-id", "create(id=...) must use the given id")
    _expect(second.meta == {"a": 1}, f"create() of an existing id must ignore the new meta, got {second.meta}")
    _expect(second.created_at == first.created_at, "create() of an existing id must return the stored record")
    _expect(len(await store.list_sessions()) == 1, "create() of an existing id must not add a session")


async def check_concurrent_creates_get_unique_ids(store: SessionStore) -> None:
    records = await asyncio.gather(*(store.create() for _ in range(20)))
    ids = {r.id for r in records}
    _expect(len(ids) == 20, f"20 concurrent creates gave {len(ids)} distinct ids")
    _expect(len(await store.list_sessions()) == 20, "every concurrent create must be listed")


async def check_load_missing_returns_none(store: SessionStore) -> None:
    _expect(await store.load("no-such-session") is None, "load() of an unknown id must return None")
    _expect(await store.load_messages("no-such-session") == [], "load_messages() of an unknown id must be []")


async def check_list_is_updated_desc_with_limit_offset(store: SessionStore) -> None:
    a = await store.create(id="a")
    b = await store.create(id="b")
    c = await store.create(id="c")
    await store.append_messages(b.id, [_text("bump b")])
    await store.append_messages(a.id, [_text("bump a")])
    order = [r.id for r in await store.list_sessions()]
    _expect(order == [a.id, b.id, c.id], f"list_sessions() must be updated_at desc: got {order}")
    _expect([r.id for r in await store.list_sessions(limit=2)] == ["a", "b"], "limit=2 must give the 2 newest")
    paged = [r.id for r in await store.list_sessions(limit=1, offset=1)]
    _expect(paged == ["b"], f"limit=1 offset=1 must give ['b'], got {paged}")
    _expect([r.id for r in await store.list_sessions(offset=2)] == ["c"], "offset=2 must skip two sessions")
    _expect(await store.list_sessions(offset=3) == [], "offset past the end must give []")


async def check_update_meta_merges(store: SessionStore) -> None:
    s = await store.create(meta={"a": 1})
    updated = await store.update_meta(s.id, {"b": 2})
    _expect(updated.meta == {"a": 1, "b": 2}, f"update_meta must shallow-merge, got {updated.meta}")
    replaced = await store.update_meta(s.id, {"a": {"x": 1}})
    _expect(replaced.meta == {"a": {"x": 1}, "b": 2}, f"update_meta must replace top-level keys, got {replaced.meta}")
    loaded = await store.load(s.id)
    _expect(loaded is not None and loaded.meta == {"a": {"x": 1}, "b": 2}, "merged meta must be persisted")


async def check_update_meta_unknown_id_raises(store: SessionStore) -> None:
    await _expect_store_error(store.update_meta("no-such-session", {"a": 1}), "update_meta() of an unknown id")
    _expect(await store.load("no-such-session") is None, "update_meta() of an unknown id must not create it")


async def check_concurrent_update_meta_keeps_every_key(store: SessionStore) -> None:
    s = await store.create()
    keys = [f"k{i}" for i in range(10)]
    await asyncio.gather(*(store.update_meta(s.id, {k: i}) for i, k in enumerate(keys)))
    loaded = await store.load(s.id)
    assert loaded is not None
    _expect(loaded.meta == {k: i for i, k in enumerate(keys)}, f"concurrent update_meta lost keys: {loaded.meta}")


async def check_load_returns_isolated_copy(store: SessionStore) -> None:
    meta: dict[str, Any] = {"list": [1], "nested": {"x": 1}}
    s = await store.create(meta=meta)
    meta["list"].append(2)
    meta["nested"]["x"] = 99
    await store.set_invoked_skills(s.id, [InvokedSkillRecord(name="skill-a", body="b")])
    first = await store.load(s.id)
    assert first is not None
    first.meta["list"].append(3)
    first.meta["new"] = True
    first.invoked_skills.clear()
    again = await store.load(s.id)
    assert again is not None
    _expect(again.meta == {"list": [1], "nested": {"x": 1}}, f"mutating inputs or a loaded record leaked: {again.meta}")
    _expect([k.name for k in again.invoked_skills] == ["skill-a"], "mutating a loaded record's skills leaked")
    appended = _text("original")
    [returned] = await store.append_messages(s.id, [appended])
    appended.content.append(TextBlock(text="mutated input"))
    returned.message.content.append(TextBlock(text="mutated output"))
    loaded = await store.load_messages(s.id)
    _expect(loaded[0].message.text() == "original", "mutating an appended or returned message changed the store")
    loaded[0].message.content.append(TextBlock(text="injected"))
    reloaded = await store.load_messages(s.id)
    _expect(len(reloaded[0].message.content) == 1, "mutating a loaded message changed the store")
    task = await _task(store, s.id, metadata={"k": [1]})
    task.metadata["k"].append(2)
    task.blocks.append("42")
    fresh = await _get(store, s.id, task.id)
    _expect(fresh.metadata == {"k": [1]} and fresh.blocks == [], "mutating a returned task changed the store")


async def check_delete_cascades(store: SessionStore) -> None:
    s = await store.create(id="doomed", meta={"a": 1})
    await store.append_messages(s.id, [_text("one"), _text("two")])
    t1 = await _task(store, s.id, "first")
    t2 = await _task(store, s.id, "second")
    await store.update_task(s.id, t1.id, TaskPatch(add_blocks=[t2.id]))
    other = await store.create(id="survivor")
    await store.append_messages(other.id, [_text("keep")])
    await store.delete(s.id)
    _expect(await store.load(s.id) is None, "delete() must remove the session")
    _expect(await store.load_messages(s.id) == [], "delete() must cascade to messages")
    _expect(await store.list_tasks(s.id) == [], "delete() must cascade to tasks")
    _expect(await store.get_task(s.id, t1.id) is None, "delete() must cascade to tasks")
    _expect([r.id for r in await store.list_sessions()] == ["survivor"], "delete() must only remove that session")
    _expect(len(await store.load_messages(other.id)) == 1, "delete() must not touch other sessions")
    again = await store.create(id="doomed")
    _expect(again.meta == {}, "a re-created session must start fresh")
    _expect(await store.load_messages(again.id) == [], "a re-created session must have no messages")
    stored = await store.append_messages(again.id, [_text("new")])
    _expect(stored[0].seq == 1, "seq of a re-created session must restart at 1")
    fresh = await _task(store, again.id)
    _expect(fresh.id == "1" and fresh.blocks == [], f"delete() must cascade to the task counter, got id {fresh.id}")
    await store.delete("no-such-session")  # a no-op, not an error


async def check_invoked_skills_are_overwritten(store: SessionStore) -> None:
    s = await store.create()
    skills = [InvokedSkillRecord(name="a", args="x"), InvokedSkillRecord(name="b", body="body")]
    await store.set_invoked_skills(s.id, skills)
    loaded = await store.load(s.id)
    assert loaded is not None
    _expect(loaded.invoked_skills == skills, f"invoked skills must round-trip in order: {loaded.invoked_skills}")
    await store.set_invoked_skills(s.id, [InvokedSkillRecord(name="c")])
    loaded = await store.load(s.id)
    assert loaded is not None
    _expect([k.name for k in loaded.invoked_skills] == ["c"], "set_invoked_skills must overwrite the list")


# ----- messages -----


async def check_seq_is_monotonic_from_one(store: SessionStore) -> None:
    s = await store.create()
    first = await store.append_messages(s.id, [_text("m1")])
    rest = await store.append_messages(s.id, [_text("m2", "assistant"), _text("m3")])
    _expect([m.seq for m in first] == [1], f"the first seq must be 1, got {[m.seq for m in first]}")
    _expect([m.seq for m in rest] == [2, 3], f"seq must continue 2, 3, got {[m.seq for m in rest]}")
    _expect(await store.append_messages(s.id, []) == [], "appending nothing returns []")
    loaded = await store.load_messages(s.id)
    _expect([m.seq for m in loaded] == [1, 2, 3], f"load_messages must be in seq order: {[m.seq for m in loaded]}")
    _expect([m.message.text() for m in loaded] == ["m1", "m2", "m3"], "messages must load in append order")
    _expect([m.message.role for m in loaded] == ["user", "assistant", "user"], "roles must round-trip")
    for m in loaded:
        _iso(m.appended_at, "appended_at")


async def check_load_tail_is_the_last_messages_and_the_count(store: SessionStore) -> None:
    s = await store.create()
    await store.append_messages(s.id, [_text(f"m{i}", "user" if i % 2 else "assistant") for i in range(1, 6)])
    total, tail = await store.load_tail(s.id, 2)
    _expect(total == 5, f"load_tail must count every message, got {total}")
    _expect(
        [m.seq for m in tail] == [4, 5], f"load_tail must be the last messages in seq order: {[m.seq for m in tail]}"
    )
    _expect([m.message.text() for m in tail] == ["m4", "m5"], "load_tail must return the messages themselves")
    _iso(tail[0].appended_at, "appended_at")
    total, tail = await store.load_tail(s.id, 50)
    _expect(total == 5 and [m.seq for m in tail] == [1, 2, 3, 4, 5], "a limit past the start must return them all")
    total, tail = await store.load_tail(s.id, 0)
    _expect(total == 5 and tail == [], "a limit of 0 must return the count only")
    tail[:] = (await store.load_tail(s.id, 1)).messages
    tail[0].message.content.append(TextBlock(text="injected"))
    _expect(len((await store.load_tail(s.id, 1)).messages[0].message.content) == 1, "load_tail must return copies")
    _expect(await store.load_tail("no-such-session", 3) == (0, []), "load_tail of an unknown id must be (0, [])")


async def check_messages_round_trip(store: SessionStore) -> None:
    s = await store.create()
    messages = [
        Message(
            role="assistant",
            content=[
                ThinkingBlock(thinking="hmm", signature="sig"),
                TextBlock(text="calling 🔧 «tools»"),
                ToolUseBlock(id="tu_1", name="Read", input={"path": "a.py", "opts": {"n": [1, 2]}}),
            ],
            provider_metadata={"openai_responses": {"response_id": "r1"}},
        ),
        Message(
            role="user",
            content=[ToolResultBlock(tool_use_id="tu_1", content="file body\n", is_error=False)],
        ),
        Message(
            role="user",
            content=[ToolResultBlock(tool_use_id="tu_2", content=[TextBlock(text="bad")], is_error=True)],
        ),
    ]
    await store.append_messages(s.id, messages)
    loaded = [m.message for m in await store.load_messages(s.id)]
    _expect(loaded == messages, f"messages must round-trip unchanged:\n{loaded}\n!=\n{messages}")


async def check_append_bumps_updated_at(store: SessionStore) -> None:
    s = await store.create()
    await store.append_messages(s.id, [_text("x")])
    loaded = await store.load(s.id)
    assert loaded is not None
    _expect(loaded.updated_at >= s.updated_at, "append must not move updated_at backwards")
    _expect(loaded.created_at == s.created_at, "append must not change created_at")


async def check_sessions_are_isolated(store: SessionStore) -> None:
    a = await store.create()
    b = await store.create()
    await store.append_messages(a.id, [_text("a1"), _text("a2")])
    stored = await store.append_messages(b.id, [_text("b1")])
    _expect(stored[0].seq == 1, "seq is per session and starts at 1")
    _expect([m.message.text() for m in await store.load_messages(a.id)] == ["a1", "a2"], "sessions must be isolated")
    _expect([m.message.text() for m in await store.load_messages(b.id)] == ["b1"], "sessions must be isolated")
    await _task(store, a.id)
    _expect(await store.list_tasks(b.id) == [], "tasks must be isolated per session")
    tb = await _task(store, b.id)
    _expect(tb.id == "1", "task ids are per session")


async def check_concurrent_appends_are_gap_free(store: SessionStore) -> None:
    s = await store.create()
    results = await asyncio.gather(*(store.append_messages(s.id, [_text(f"m{i}"), _text(f"n{i}")]) for i in range(15)))
    seqs = sorted(m.seq for batch in results for m in batch)
    _expect(seqs == list(range(1, 31)), f"concurrent appends must give seq 1..30 without gaps, got {seqs}")
    for batch in results:
        _expect(batch[1].seq == batch[0].seq + 1, "one append's messages must get consecutive seqs")
    loaded = await store.load_messages(s.id)
    _expect([m.seq for m in loaded] == list(range(1, 31)), "load_messages must return all 30 in order")


# ----- tasks -----


async def check_task_create_and_get(store: SessionStore) -> None:
    s = await store.create()
    task = await store.create_task(
        s.id,
        CreateTaskInput(
            subject="Write tests",
            description="all of them",
            active_form="Writing tests",
            owner="me",
            status="in_progress",
            metadata={"p": 1},
        ),
    )
    _expect(task.id == "1", f"the first task id must be '1', got {task.id!r}")
    expected = ("Write tests", "all of them", "Writing tests", "me", "in_progress", {"p": 1})
    got = (task.subject, task.description, task.active_form, task.owner, task.status, task.metadata)
    _expect(got == expected, f"create_task fields: {got} != {expected}")
    _iso(task.created_at, "task created_at")
    _iso(task.updated_at, "task updated_at")
    fetched = await _get(store, s.id, "1")
    _expect(fetched == task, f"get_task must return what create_task returned: {fetched} != {task}")
    _expect(await store.get_task(s.id, "999") is None, "get_task of a missing id must return None")
    _expect(await store.get_task("no-such-session", "1") is None, "get_task in an unknown session must be None")


async def check_task_ids_are_never_reused(store: SessionStore) -> None:
    s = await store.create()
    ids = [(await _task(store, s.id, f"t{i}")).id for i in range(3)]
    _expect(ids == ["1", "2", "3"], f"task ids must count from '1', got {ids}")
    _expect(await store.delete_task(s.id, "3") is True, "delete_task of an existing task must return True")
    _expect(await store.delete_task(s.id, "3") is False, "delete_task of a missing task must return False")
    await store.update_task(s.id, "2", TaskPatch(status="deleted"))
    nxt = await _task(store, s.id, "t4")
    _expect(nxt.id == "4", f"deleted task ids must not be reused, got {nxt.id!r}")


async def check_list_tasks_in_numeric_order(store: SessionStore) -> None:
    s = await store.create()
    for i in range(12):
        await _task(store, s.id, f"t{i}")
    ids = [t.id for t in await store.list_tasks(s.id)]
    _expect(ids == [str(i) for i in range(1, 13)], f"list_tasks must be in numeric id order, got {ids}")
    _expect(await store.list_tasks("no-such-session") == [], "list_tasks of an unknown session must be []")


async def check_task_scalar_updates(store: SessionStore) -> None:
    s = await store.create()
    task = await _task(store, s.id, "old", active_form="Doing old", metadata={"keep": 1})
    updated = await store.update_task(
        s.id, task.id, TaskPatch(subject="new", status="in_progress", owner="agent-2", description="new desc")
    )
    _expect(updated is not None, "update_task of an existing task must return it")
    assert updated is not None
    got = (updated.subject, updated.status, updated.owner, updated.description, updated.active_form, updated.metadata)
    expected = ("new", "in_progress", "agent-2", "new desc", "Doing old", {"keep": 1})
    _expect(got == expected, f"scalar update: {got} != {expected}")
    _expect(updated.created_at == task.created_at, "update_task must not change created_at")
    _expect(updated.updated_at >= task.updated_at, "update_task must not move updated_at backwards")
    _expect(await _get(store, s.id, task.id) == updated, "the update must be persisted")
    done = await store.update_task(s.id, task.id, TaskPatch(status="completed"))
    _expect(done is not None and done.status == "completed" and done.subject == "new", "partial patch")
    _expect(await store.update_task(s.id, "999", TaskPatch(subject="x")) is None, "update of a missing task is None")


async def check_task_metadata_merge_and_null_delete(store: SessionStore) -> None:
    s = await store.create()
    task = await _task(store, s.id, metadata={"a": 1, "b": 2})
    updated = await store.update_task(s.id, task.id, TaskPatch(metadata={"b": None, "c": 3}))
    assert updated is not None
    _expect(updated.metadata == {"a": 1, "c": 3}, f"metadata must merge and a None value delete: {updated.metadata}")
    _expect((await _get(store, s.id, task.id)).metadata == {"a": 1, "c": 3}, "merged metadata must persist")


async def check_status_deleted_removes_task(store: SessionStore) -> None:
    s = await store.create()
    t1 = await _task(store, s.id, "one")
    t2 = await _task(store, s.id, "two")
    await store.update_task(s.id, t1.id, TaskPatch(add_blocks=[t2.id]))
    result = await store.update_task(s.id, t2.id, TaskPatch(status="deleted", subject="ignored"))
    _expect(result is None, f"status 'deleted' must return None, got {result}")
    _expect(await store.get_task(s.id, t2.id) is None, "status 'deleted' must remove the task")
    _expect((await _get(store, s.id, t1.id)).blocks == [], "deleting a task must remove its edges")


async def check_edges_are_consistent_both_ways(store: SessionStore) -> None:
    s = await store.create()
    for i in range(3):
        await _task(store, s.id, f"t{i}")
    one = await store.update_task(s.id, "1", TaskPatch(add_blocks=["2"]))
    _expect(one is not None and one.blocks == ["2"], f"add_blocks must show in blocks: {one}")
    three = await store.update_task(s.id, "3", TaskPatch(add_blocked_by=["1"]))
    _expect(three is not None and three.blocked_by == ["1"], f"add_blocked_by must show in blocked_by: {three}")
    graph = await _graph(store, s.id)
    expected = {"1": (["2", "3"], []), "2": ([], ["1"]), "3": ([], ["1"])}
    _expect(graph == expected, f"edges must be visible from both ends: {graph} != {expected}")
    again = await store.update_task(s.id, "1", TaskPatch(add_blocks=["2"]))
    _expect(again is not None and again.blocks == ["2", "3"], "adding an existing edge must not duplicate it")


async def check_cycle_raises_and_leaves_state_unchanged(store: SessionStore) -> None:
    s = await store.create()
    for i in range(3):
        await _task(store, s.id, f"t{i}")
    await store.update_task(s.id, "1", TaskPatch(add_blocks=["2"]))
    await store.update_task(s.id, "2", TaskPatch(add_blocks=["3"]))
    before = await store.list_tasks(s.id)
    await _expect_store_error(
        store.update_task(s.id, "3", TaskPatch(add_blocks=["1"], subject="changed", metadata={"x": 1})),
        "closing the cycle 1→2→3→1",
        contains="Dependency cycle detected",
    )
    _expect(await store.list_tasks(s.id) == before, "a rejected cycle must leave every task and edge unchanged")
    await _expect_store_error(
        store.update_task(s.id, "1", TaskPatch(add_blocked_by=["3"])),
        "add_blocked_by closing a cycle",
        contains="Dependency cycle detected",
    )
    await _expect_store_error(
        store.update_task(s.id, "2", TaskPatch(add_blocks=["2"])), "a self edge", contains="Dependency cycle detected"
    )
    _expect(await store.list_tasks(s.id) == before, "rejected cycles must leave the state unchanged")


async def check_missing_edge_target_raises_without_partial_change(store: SessionStore) -> None:
    s = await store.create()
    await _task(store, s.id, "one")
    await _task(store, s.id, "two")
    before = await store.list_tasks(s.id)
    await _expect_store_error(
        store.update_task(s.id, "1", TaskPatch(add_blocks=["2", "999"], subject="changed")), "add_blocks ['999']"
    )
    await _expect_store_error(
        store.update_task(s.id, "1", TaskPatch(add_blocked_by=["999"], remove_blocks=["2"])), "add_blocked_by ['999']"
    )
    _expect(await store.list_tasks(s.id) == before, "a missing edge target must stage no partial change")


async def check_remove_edges(store: SessionStore) -> None:
    s = await store.create()
    for i in range(3):
        await _task(store, s.id, f"t{i}")
    await store.update_task(s.id, "1", TaskPatch(add_blocks=["2", "3"]))
    one = await store.update_task(s.id, "1", TaskPatch(remove_blocks=["2"]))
    _expect(one is not None and one.blocks == ["3"], f"remove_blocks must drop the edge: {one}")
    three = await store.update_task(s.id, "3", TaskPatch(remove_blocked_by=["1"]))
    _expect(three is not None and three.blocked_by == [], f"remove_blocked_by must drop the edge: {three}")
    graph = await _graph(store, s.id)
    _expect(all(b == [] and bb == [] for b, bb in graph.values()), f"no edges should remain: {graph}")
    noop = await store.update_task(s.id, "1", TaskPatch(remove_blocks=["999"]))
    _expect(noop is not None, "removing a non-existent edge is not an error")


async def check_removals_apply_before_additions(store: SessionStore) -> None:
    s = await store.create()
    await _task(store, s.id, "one")
    await _task(store, s.id, "two")
    await store.update_task(s.id, "1", TaskPatch(add_blocks=["2"]))
    flipped = await store.update_task(s.id, "2", TaskPatch(remove_blocked_by=["1"], add_blocks=["1"]))
    _expect(flipped is not None, "reversing an edge in one patch must succeed (removals first)")
    graph = await _graph(store, s.id)
    _expect(graph == {"1": ([], ["2"]), "2": (["1"], [])}, f"the edge must be reversed: {graph}")


async def check_delete_task_removes_its_edges(store: SessionStore) -> None:
    s = await store.create()
    for i in range(3):
        await _task(store, s.id, f"t{i}")
    await store.update_task(s.id, "2", TaskPatch(add_blocked_by=["1"], add_blocks=["3"]))
    _expect(await store.delete_task(s.id, "2") is True, "delete_task must return True")
    graph = await _graph(store, s.id)
    _expect(graph == {"1": ([], []), "3": ([], [])}, f"delete_task must remove every edge touching it: {graph}")
    _expect(await store.delete_task("no-such-session", "1") is False, "delete_task in an unknown session is False")


async def check_concurrent_task_updates_accumulate_edges(store: SessionStore) -> None:
    s = await store.create()
    for i in range(6):
        await _task(store, s.id, f"t{i}")
    await asyncio.gather(*(store.update_task(s.id, "1", TaskPatch(add_blocks=[str(k)])) for k in range(2, 7)))
    one = await _get(store, s.id, "1")
    _expect(one.blocks == ["2", "3", "4", "5", "6"], f"concurrent updates must keep every edge: {one.blocks}")


async def check_concurrent_task_creates_get_unique_ids(store: SessionStore) -> None:
    s = await store.create()
    tasks = await asyncio.gather(*(_task(store, s.id, f"t{i}") for i in range(10)))
    ids = sorted((t.id for t in tasks), key=int)
    _expect(ids == [str(i) for i in range(1, 11)], f"concurrent create_task must give ids 1..10, got {ids}")


CONFORMANCE_CHECKS: list[tuple[str, ConformanceCheck]] = [
    (name.removeprefix("check_"), fn)
    for name, fn in list(globals().items())
    if name.startswith("check_") and inspect.iscoroutinefunction(fn)
]
"""Every contract check as `(name, check)`; call each with a fresh, empty store."""


async def _make(make_store: StoreFactory) -> SessionStore:
    made = make_store()
    if inspect.isawaitable(made):
        return await made
    return made


async def run_session_store_check(name: str, check: ConformanceCheck, make_store: StoreFactory) -> None:
    """Run one check on a fresh store from `make_store`, then close the store.

    Raises `AssertionError` prefixed with the check name on failure (an
    unexpected exception is wrapped the same way).
    """
    store = await _make(make_store)
    try:
        await check(store)
    except AssertionError as exc:
        raise AssertionError(f"SessionStore conformance [{name}]: {exc}") from exc
    except Exception as exc:
        raise AssertionError(f"SessionStore conformance [{name}]: unexpected {exc!r}") from exc
    finally:
        await store.close()


async def run_session_store_conformance(make_store: StoreFactory) -> None:
    """Run every check in `CONFORMANCE_CHECKS`, each on a fresh store from
    `make_store` (sync or async). Stops at the first failure with an
    `AssertionError` naming the check."""
    for name, check in CONFORMANCE_CHECKS:
        await run_session_store_check(name, check, make_store)


__all__ = [
    "CONFORMANCE_CHECKS",
    "ConformanceCheck",
    "StoreFactory",
    "run_session_store_check",
    "run_session_store_conformance",
]
