"""Checks run after every fault case: a stored history is valid, and waiting helpers
that await a condition (a marker file, a row) instead of sleeping."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


def assert_valid_history(messages: list[dict[str, Any]]) -> None:
    """Every tool_use is answered exactly once, in the very next message, and no result is unasked."""
    answered: set[str] = set()
    for index, message in enumerate(messages):
        blocks = message.get("content") or []
        results = [b["tool_use_id"] for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        if results:
            previous = messages[index - 1] if index else {}
            asked = [
                b["id"] for b in previous.get("content") or [] if isinstance(b, dict) and b.get("type") == "tool_use"
            ]
            assert sorted(results) == sorted(asked), f"message {index}: results {results} answer {asked}"
            assert not answered & set(results), f"message {index}: a tool_use answered twice"
            answered |= set(results)
        uses = [b["id"] for b in blocks if isinstance(b, dict) and b.get("type") == "tool_use"]
        if uses and message.get("role") == "assistant":
            following = messages[index + 1] if index + 1 < len(messages) else None
            assert following is not None, f"message {index}: tool_use {uses} has no answer"
            got = [b.get("tool_use_id") for b in following.get("content") or [] if b.get("type") == "tool_result"]
            assert sorted(got) == sorted(uses), f"message {index + 1} does not answer {uses}"


def sqlite_history(db: Path, session_id: str) -> list[dict[str, Any]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT message_json FROM messages WHERE session_id = ? ORDER BY seq", (session_id,)
        ).fetchall()
    return [json.loads(r[0]) for r in rows]


def pg_history(dsn: str, session_id: str) -> list[dict[str, Any]]:
    rows = pg_fetch(dsn, "SELECT message_json FROM messages WHERE session_id = $1 ORDER BY seq", session_id)
    return [json.loads(r[0]) for r in rows]


def pg_fetch(dsn: str, sql: str, *args: Any) -> list[Any]:
    """Rows of one query on a fresh connection."""
    import asyncpg

    async def go() -> list[Any]:
        conn = await asyncpg.connect(dsn)
        try:
            return list(await conn.fetch(sql, *args))
        finally:
            await conn.close()

    return asyncio.run(go())


def wait_for(condition: Callable[[], T], what: str, timeout: float = 60.0) -> T:
    """Poll `condition` until it returns something truthy (a marker file, a row), or fail naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)
