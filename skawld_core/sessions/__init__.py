"""Session stores: the `SessionStore` contract, SQLite (default), PostgreSQL and in-memory.

`SqliteSessionStore` and `PostgresSessionStore` are imported lazily, so
`aiosqlite` / `asyncpg` are only loaded when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .fork import fork_session
from .listing import SessionLookupError, SessionSummary, list_conversations, newest_conversation, resolve_session_id
from .memory import InMemorySessionStore
from .store import CreateTaskInput, SessionRecord, SessionStore, StoredMessage, Task, TaskPatch, TaskStatus

if TYPE_CHECKING:
    from .postgres import PostgresSessionStore
    from .sqlite import SqliteSessionStore

__all__ = [
    "CreateTaskInput",
    "InMemorySessionStore",
    "PostgresSessionStore",
    "SessionRecord",
    "SessionLookupError",
    "SessionStore",
    "SessionSummary",
    "SqliteSessionStore",
    "StoredMessage",
    "Task",
    "TaskPatch",
    "TaskStatus",
    "fork_session",
    "list_conversations",
    "newest_conversation",
    "resolve_session_id",
]


def __getattr__(name: str) -> Any:
    if name == "SqliteSessionStore":
        from .sqlite import SqliteSessionStore  # lazy: aiosqlite only when the SQLite store is used

        return SqliteSessionStore
    if name == "PostgresSessionStore":
        from .postgres import PostgresSessionStore  # lazy: asyncpg is optional

        return PostgresSessionStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
