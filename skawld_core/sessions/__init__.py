"""Session stores: the `SessionStore` contract, SQLite (default), PostgreSQL and in-memory.

`SqliteSessionStore` and `PostgresSessionStore` are imported lazily, so
`aiosqlite` / `asyncpg` are only loaded when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports
from .fork import fork_session
from .listing import SessionLookupError, SessionSummary, list_conversations, newest_conversation, resolve_session_id
from .memory import InMemorySessionStore
from .store import CreateTaskInput, HistoryTail, SessionRecord, SessionStore, StoredMessage, Task, TaskPatch, TaskStatus

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
    "HistoryTail",
    "Task",
    "TaskPatch",
    "TaskStatus",
    "fork_session",
    "list_conversations",
    "newest_conversation",
    "resolve_session_id",
]


# aiosqlite loads only when the SQLite store is used; asyncpg is optional
__getattr__ = lazy_exports(__name__, {"SqliteSessionStore": ".sqlite", "PostgresSessionStore": ".postgres"})
