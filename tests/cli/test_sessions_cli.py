"""The CLI's session choices against the installed `skawld`: id prefixes,
ambiguous prefixes, --continue skipping an empty session, --fork-session,
`skawld checkpoints list|restore`, and the exit hint of the line mode."""

from __future__ import annotations

import asyncio
import json

import pytest

from skawld_core.events import SystemEvent
from skawld_core.sessions import SqliteSessionStore
from tests.cli.harness import CliEnv, parse_events
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(120)


def headless(cli: CliEnv, prompt: str, *extra: str) -> str:
    out = cli.run(*cli.args("-p", prompt, "--json", *extra))
    assert out.returncode == 0, out.stderr
    first = parse_events(out.stdout)[0]
    assert isinstance(first, SystemEvent)
    return first.session_id


def store_call(cli: CliEnv, work: object) -> object:
    async def go() -> object:
        store = SqliteSessionStore(cli.db)
        try:
            return await work(store)  # type: ignore[operator]
        finally:
            await store.close()

    return asyncio.run(go())


def test_resume_accepts_the_status_line_prefix(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("first")), turn(text("second")))
    session_id = headless(cli, "hello")
    resumed = headless(cli, "again", "--resume", session_id[:8])
    assert resumed == session_id
    sent = cli.srv.anthropic.requests[-1].body["messages"]
    assert len(sent) == 3  # hello, first, again


def test_an_ambiguous_or_unknown_prefix_is_a_usage_error(cli: CliEnv) -> None:
    async def seed(store: SqliteSessionStore) -> None:
        await store.create(id="abcd0001-aaaa", meta={"title": "one"})
        await store.create(id="abcd0002-bbbb", meta={"title": "two"})

    store_call(cli, seed)
    out = cli.run(*cli.args("-p", "x", "--resume", "abcd"))
    assert out.returncode == 2
    assert "ambiguous" in out.stderr and "abcd0001-aaaa  one" in out.stderr and "abcd0002-bbbb  two" in out.stderr
    assert "Traceback" not in out.stderr
    out = cli.run(*cli.args("-p", "x", "--resume", "zzzz"))
    assert out.returncode == 2 and "no session matches 'zzzz'" in out.stderr
    assert cli.srv.anthropic.requests == []


def test_continue_skips_the_empty_session_clear_left(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("first")), turn(text("second")))
    session_id = headless(cli, "hello")

    async def clear(store: SqliteSessionStore) -> None:
        await store.create(id="empty-after-clear", meta={"cwd": str(cli.repo)})

    store_call(cli, clear)
    assert headless(cli, "again", "--continue") == session_id


def test_fork_session_leaves_the_original(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("first")), turn(text("forked answer")))
    session_id = headless(cli, "hello")
    forked = headless(cli, "in the fork", "--resume", session_id[:8], "--fork-session")
    assert forked != session_id

    async def look(store: SqliteSessionStore) -> tuple[int, int, dict[str, object]]:
        record = await store.load(forked)
        assert record is not None
        return len(await store.load_messages(session_id)), len(await store.load_messages(forked)), record.meta

    original_count, fork_count, meta = store_call(cli, look)  # type: ignore[misc]
    assert original_count == 2 and fork_count == 4
    assert meta["forked_from"] == session_id and meta["forked_at"] == 2
    out = cli.run("--fork-session", "-p", "x")
    assert out.returncode == 2 and "--fork-session needs --resume or --continue" in out.stderr


def test_checkpoints_list_and_restore_headless(cli: CliEnv) -> None:
    (cli.repo / "notes.txt").write_text("v1\n")
    cli.srv.anthropic.enqueue(
        turn(tool_call("Write", {"file_path": "made.txt", "content": "new\n"}, id="w1")),
        turn(text("made it")),
        turn(tool_call("Bash", {"command": "echo v2 > notes.txt"}, id="b1")),
        turn(text("changed it")),
    )
    session_id = headless(cli, "make a file", "--permission-mode", "yolo")
    assert headless(cli, "change notes", "--continue", "--permission-mode", "yolo") == session_id
    assert (cli.repo / "notes.txt").read_text() == "v2\n" and (cli.repo / "made.txt").exists()
    listed = cli.run("checkpoints", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [(r["number"], r["prompt"]) for r in rows] == [(1, "make a file"), (2, "change notes")]
    assert all(len(r["commit"]) == 40 for r in rows)
    assert (cli.home / ".skawld" / "checkpoints").is_dir()
    out = cli.run("checkpoints", "restore", "1", "--yes")
    assert out.returncode == 0, out.stderr
    assert (cli.repo / "notes.txt").read_text() == "v1\n" and not (cli.repo / "made.txt").exists()
    assert "conversation forked before prompt 1: skawld --resume " in out.stdout
    out = cli.run("checkpoints", "restore", "9", "--yes")
    assert out.returncode == 2 and "there is no prompt 9" in out.stderr
    out = cli.run("checkpoints", "list", "--session", "nope")
    assert out.returncode == 2 and "no session matches" in out.stderr


def test_quitting_prints_the_resume_hint(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("hello back")))
    screen = cli.plain_session_on_a_terminal("hi")
    assert "Resume this session with: skawld --resume " in screen


def test_resume_without_an_id_picks_in_the_line_mode(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("about retries")), turn(text("about docs")))
    first = headless(cli, "make the client retry")
    headless(cli, "update the docs")

    async def add_child(store: SqliteSessionStore) -> None:
        await store.create(id="child-of-first", meta={"parent_session_id": first, "title": "retry helper"})

    store_call(cli, add_child)
    out = cli.run(*cli.args("--resume"), input="retry\n1\n/exit\n")
    assert out.returncode == 0, out.stderr
    assert " 1. update the docs  · " in out.stdout and " 2. make the client retry  · " in out.stdout
    assert "retry helper" not in out.stdout  # a subagent's child session is not a conversation
    assert "restored 2 messages, last activity just now" in out.stdout
    assert f"Resume this session with: skawld --resume {first}" in out.stdout
