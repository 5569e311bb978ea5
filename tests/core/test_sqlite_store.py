"""SQLite-specific behaviour of `SqliteSessionStore`, on real files."""

from __future__ import annotations

import asyncio
import gc
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from skawld_core.errors import SessionStoreError
from skawld_core.messages import InvokedSkillRecord, Message, TextBlock, ToolUseBlock, user_text
from skawld_core.sessions import CreateTaskInput, InMemorySessionStore, SessionStore, TaskPatch, rows
from skawld_core.sessions.sqlite import SqliteSessionStore

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "nested" / "dir" / "sessions.db"


@pytest.fixture
async def store(db_path: Path) -> AsyncIterator[SqliteSessionStore]:
    s = SqliteSessionStore(db_path)
    yield s
    await s.close()


def _raw(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path)


async def test_default_path_is_under_cwd_and_opened_lazily(tmp_path: Path) -> None:
    s = SqliteSessionStore(cwd=tmp_path)
    assert s.path == tmp_path / ".skawld" / "sessions.db"
    assert not (tmp_path / ".skawld").exists(), "constructing the store must not touch the disk"
    await s.create(id="x")
    await s.close()
    assert (tmp_path / ".skawld" / "sessions.db").is_file()


async def test_relative_path_resolves_against_cwd(tmp_path: Path) -> None:
    s = SqliteSessionStore("sub/my.db", cwd=tmp_path)
    await s.create()
    await s.close()
    assert (tmp_path / "sub" / "my.db").is_file()


async def test_parent_directories_created_and_pragmas(store: SqliteSessionStore, db_path: Path) -> None:
    await store.create(id="s")
    assert db_path.is_file()
    with _raw(db_path) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == 1
        tables = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        indexes = {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"sessions", "messages", "tasks", "task_edges", "task_counters"} <= tables
    assert {"idx_sessions_updated_at", "idx_messages_session_seq", "idx_tasks_session_status"} <= indexes
    assert "idx_task_edges_to" in indexes


async def test_everything_persists_across_store_instances(db_path: Path) -> None:
    first = SqliteSessionStore(db_path)
    s = await first.create(id="resume-me", meta={"title": "t"})
    tool = Message(role="assistant", content=[ToolUseBlock(id="t1", name="Read", input={"path": "x"})])
    await first.append_messages(s.id, [user_text("hi"), tool])
    await first.set_invoked_skills(s.id, [InvokedSkillRecord(name="deploy", args="prod")])
    for subject in ("a", "b", "c"):
        await first.create_task(s.id, CreateTaskInput(subject=subject, description=subject))
    await first.update_task(s.id, "1", TaskPatch(add_blocks=["2"], status="in_progress"))
    await first.delete_task(s.id, "3")
    await first.update_meta(s.id, {"more": True})
    tasks_before = await first.list_tasks(s.id)
    await first.close()

    second = SqliteSessionStore(db_path)
    try:
        record = await second.load(s.id)
        assert record is not None
        assert record.meta == {"title": "t", "more": True}
        assert [k.name for k in record.invoked_skills] == ["deploy"]
        messages = await second.load_messages(s.id)
        assert [m.seq for m in messages] == [1, 2]
        assert messages[1].message == tool
        assert await second.list_tasks(s.id) == tasks_before
        assert (await second.create_task(s.id, CreateTaskInput(subject="d", description="d"))).id == "4"
        assert (await second.append_messages(s.id, [user_text("again")]))[0].seq == 3
    finally:
        await second.close()


async def test_reopen_after_close(store: SqliteSessionStore) -> None:
    s = await store.create()
    await store.close()
    await store.append_messages(s.id, [user_text("after close")])
    assert len(await store.load_messages(s.id)) == 1


async def test_tight_loop_concurrent_appends_are_monotonic_and_gap_free(store: SqliteSessionStore) -> None:
    s = await store.create()
    batches = await asyncio.gather(
        *(store.append_messages(s.id, [user_text(f"m{i}")] * (1 + i % 2)) for i in range(100))
    )
    assert sorted(m.seq for b in batches for m in b) == list(range(1, 151))
    loaded = await store.load_messages(s.id)
    assert [m.seq for m in loaded] == list(range(1, 151))


async def test_two_store_objects_on_one_file_interleave_safely(db_path: Path) -> None:
    a, b = SqliteSessionStore(db_path), SqliteSessionStore(db_path)
    try:
        s = await a.create(id="shared")
        await asyncio.gather(
            *(a.append_messages(s.id, [user_text(f"a{i}")]) for i in range(40)),
            *(b.append_messages(s.id, [user_text(f"b{i}")]) for i in range(40)),
            *(a.update_meta(s.id, {f"a{i}": i}) for i in range(10)),
            *(b.update_meta(s.id, {f"b{i}": i}) for i in range(10)),
        )
        assert [m.seq for m in await a.load_messages(s.id)] == list(range(1, 81))
        record = await b.load(s.id)
        assert record is not None
        assert set(record.meta) == {f"a{i}" for i in range(10)} | {f"b{i}" for i in range(10)}
    finally:
        await a.close()
        await b.close()


async def test_another_process_appending_at_the_same_time(db_path: Path) -> None:
    store = SqliteSessionStore(db_path)
    s = await store.create(id="shared")
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from skawld_core.messages import user_text
        from skawld_core.sessions.sqlite import SqliteSessionStore
        async def main():
            s = SqliteSessionStore({str(db_path)!r})
            print("ready", flush=True)
            sys.stdin.readline()
            for i in range(100):
                await s.append_messages("shared", [user_text(f"child {{i}}")])
            await s.close()
        asyncio.run(main())
        """
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "ready"
        child.stdin.write("go\n")
        child.stdin.flush()
        for i in range(100):
            await store.append_messages(s.id, [user_text(f"parent {i}")])
        assert await asyncio.to_thread(child.wait, 60) == 0
        loaded = await store.load_messages(s.id)
        assert [m.seq for m in loaded] == list(range(1, 201))
        texts = [m.message.text() for m in loaded]
        assert sum(t.startswith("child") for t in texts) == 100
        assert [t for t in texts if t.startswith("parent")] == [f"parent {i}" for i in range(100)]
    finally:
        if child.poll() is None:
            child.kill()
        await store.close()


async def test_concurrent_update_meta_keeps_every_key(store: SqliteSessionStore) -> None:
    s = await store.create(meta={"base": 0})
    await asyncio.gather(*(store.update_meta(s.id, {f"k{i}": i}) for i in range(50)))
    record = await store.load(s.id)
    assert record is not None
    assert record.meta == {"base": 0, **{f"k{i}": i for i in range(50)}}


async def test_corrupt_file_raises_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    path.write_bytes(b"this is definitely not a database\n" * 200)
    store = SqliteSessionStore(path)
    for _ in range(2):  # stays an error, never hangs or half-opens
        with pytest.raises(SessionStoreError) as info:
            await store.create()
        assert str(path) in str(info.value)
        assert "not a database" in str(info.value)
    await store.close()
    assert path.read_bytes().startswith(b"this is definitely not a database")


async def test_newer_schema_version_is_refused(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    with _raw(db_path) as raw:
        raw.execute("PRAGMA user_version = 7")
    store = SqliteSessionStore(db_path)
    with pytest.raises(SessionStoreError, match="schema version 7"):
        await store.load("x")
    await store.close()


async def test_store_failure_mid_append_leaves_no_partial_append(store: SqliteSessionStore, db_path: Path) -> None:
    s = await store.create(id="s")
    await store.append_messages(s.id, [user_text("kept")])
    before = await store.load(s.id)
    with _raw(db_path) as raw:
        raw.execute(
            "CREATE TRIGGER fail_third BEFORE INSERT ON messages WHEN NEW.seq = 3"
            " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
        )
    with pytest.raises(SessionStoreError, match="disk on fire") as info:
        await store.append_messages(s.id, [user_text("two"), user_text("three"), user_text("four")])
    assert str(db_path) in str(info.value)
    assert [m.message.text() for m in await store.load_messages(s.id)] == ["kept"]
    assert await store.load(s.id) == before, "updated_at must not move for a failed append"
    with _raw(db_path) as raw:
        raw.execute("DROP TRIGGER fail_third")
    stored = await store.append_messages(s.id, [user_text("two")])
    assert [m.seq for m in stored] == [2], "the store must stay usable after a failed transaction"


async def test_failed_task_update_rolls_back_everything(store: SqliteSessionStore, db_path: Path) -> None:
    s = await store.create(id="s")
    for name in ("a", "b", "c"):
        await store.create_task(s.id, CreateTaskInput(subject=name, description=name))
    before = await store.list_tasks(s.id)
    with _raw(db_path) as raw:
        raw.execute(
            "CREATE TRIGGER fail_edge BEFORE INSERT ON task_edges WHEN NEW.to_task_id = '3'"
            " BEGIN SELECT RAISE(ABORT, 'edge write failed'); END"
        )
    with pytest.raises(SessionStoreError, match="edge write failed"):
        await store.update_task(s.id, "1", TaskPatch(subject="changed", add_blocks=["2", "3"]))
    assert await store.list_tasks(s.id) == before


async def test_unknown_session_writes_raise(store: SqliteSessionStore) -> None:
    with pytest.raises(SessionStoreError, match="not found"):
        await store.append_messages("ghost", [user_text("x")])
    with pytest.raises(SessionStoreError, match="not found"):
        await store.set_invoked_skills("ghost", [])
    with pytest.raises(SessionStoreError, match="not found"):
        await store.create_task("ghost", CreateTaskInput(subject="s", description="d"))
    assert await store.load("ghost") is None


async def test_non_json_meta_is_rejected_before_writing(store: SqliteSessionStore) -> None:
    with pytest.raises(SessionStoreError, match="JSON"):
        await store.create(id="bad", meta={"obj": object()})
    assert await store.load("bad") is None


async def test_returned_and_input_messages_are_isolated(store: SqliteSessionStore) -> None:
    s = await store.create()
    message = Message(role="user", content=[TextBlock(text="original")])
    [stored] = await store.append_messages(s.id, [message])
    message.content.append(TextBlock(text="mutated input"))
    stored.message.content.append(TextBlock(text="mutated output"))
    [loaded] = await store.load_messages(s.id)
    assert loaded.message.content == [TextBlock(text="original")]


async def test_cancelled_append_is_all_or_nothing(store: SqliteSessionStore) -> None:
    s = await store.create()
    pending = asyncio.ensure_future(store.append_messages(s.id, [user_text("one"), user_text("two")]))
    await asyncio.sleep(0)  # let it start its transaction, then cancel the caller
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pending
    stored = await store.append_messages(s.id, [user_text("next")])
    seqs = [m.seq for m in await store.load_messages(s.id)]
    assert seqs in ([1], [1, 2, 3]), seqs
    assert stored[-1].seq == seqs[-1]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_both_stores_reject_unknown_session_append(kind: str, tmp_path: Path) -> None:
    s: SessionStore = InMemorySessionStore() if kind == "memory" else SqliteSessionStore(tmp_path / "x.db")
    try:
        with pytest.raises(SessionStoreError):
            await s.append_messages("ghost", [user_text("x")])
    finally:
        await s.close()


def test_importing_sessions_does_not_import_aiosqlite() -> None:
    code = (
        "import sys, skawld_core.sessions as s; assert 'aiosqlite' not in sys.modules, 'eager';"
        "s.SqliteSessionStore; assert 'aiosqlite' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)


def test_store_can_be_used_from_successive_event_loops(db_path: Path) -> None:
    store = SqliteSessionStore(db_path)

    async def append(text: str) -> list[int]:
        stored = await asyncio.gather(*(store.append_messages("s", [user_text(text)]) for _ in range(3)))
        return [m.seq for batch in stored for m in batch]

    async def first() -> list[int]:
        await store.create(id="s")
        return await append("first loop")

    async def second() -> list[int]:
        try:
            return await append("second loop")
        finally:
            await store.close()

    assert sorted(asyncio.run(first())) == [1, 2, 3]
    assert sorted(asyncio.run(second())) == [4, 5, 6]


async def test_resume_validates_every_message_and_names_a_corrupt_one(store: SqliteSessionStore, db_path: Path) -> None:
    s = await store.create()
    await store.append_messages(s.id, [user_text(f"m{i}") for i in range(300)])
    loaded = await store.load_messages(s.id)
    assert [m.seq for m in loaded] == list(range(1, 301))
    assert loaded[42].message == user_text("m42") and loaded[42].appended_at
    with _raw(db_path) as raw:
        raw.execute("UPDATE messages SET message_json = ? WHERE seq = 7", ('{"role": "robot", "content": []}',))
    with pytest.raises(SessionStoreError, match=f"Corrupt message in session '{s.id}' in "):
        await store.load_messages(s.id)


async def test_a_history_longer_than_a_validation_chunk_loads_whole_and_in_order(
    store: SqliteSessionStore, db_path: Path
) -> None:
    count = 2 * rows.VALIDATE_CHUNK + 123  # three chunks, the last one partial
    s = await store.create()
    await store.append_messages(s.id, [user_text(f"m{i}") for i in range(count)])
    loaded = await store.load_messages(s.id)
    assert [m.seq for m in loaded] == list(range(1, count + 1))
    assert [m.message for m in loaded[rows.VALIDATE_CHUNK - 1 : rows.VALIDATE_CHUNK + 1]] == [
        user_text(f"m{rows.VALIDATE_CHUNK - 1}"),
        user_text(f"m{rows.VALIDATE_CHUNK}"),
    ]
    with _raw(db_path) as raw:  # a bad row in the last chunk is still found and named
        raw.execute("UPDATE messages SET message_json = ? WHERE seq = ?", ('{"role": "robot"}', count - 1))
    with pytest.raises(SessionStoreError, match=f"Corrupt message in session '{s.id}' in "):
        await store.load_messages(s.id)


async def test_freezing_a_loaded_history_is_a_process_policy_off_by_default(store: SqliteSessionStore) -> None:
    fresh = subprocess.run(  # in a fresh process: an in-process app test may have turned it on
        [sys.executable, "-c", "from skawld_core.sessions import rows; print(rows._freeze_loaded)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert fresh.stdout.strip() == "False"  # the SDK leaves the caller's collector alone
    s = await store.create()
    await store.append_messages(s.id, [user_text(f"m{i}") for i in range(rows.INLINE_ROWS + 100)])
    rows.freeze_loaded_history(False)
    gc.unfreeze()
    await store.load_messages(s.id)
    assert gc.get_freeze_count() == 0
    rows.freeze_loaded_history(True)
    try:
        loaded = await store.load_messages(s.id)
        assert gc.get_freeze_count() >= len(loaded)  # the built messages joined the frozen heap
        assert gc.isenabled()
    finally:
        rows.freeze_loaded_history(False)
        gc.unfreeze()
