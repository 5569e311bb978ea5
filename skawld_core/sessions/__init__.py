"""Session stores: the `SessionStore` contract, SQLite (default) and in-memory.

`SqliteSessionStore` is imported lazily, so `aiosqlite` is only loaded when used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .memory import InMemorySessionStore
from .store import CreateTaskInput, SessionRecord, SessionStore, StoredMessage, Task, TaskPatch, TaskStatus

if TYPE_CHECKING:
    from .sqlite import SqliteSessionStore

__all__ = [
    "CreateTaskInput",
    "InMemorySessionStore",
    "SessionRecord",
    "SessionStore",
    "SqliteSessionStore",
    "StoredMessage",
    "Task",
    "TaskPatch",
    "TaskStatus",
]


def __getattr__(name: str) -> Any:
    if name == "SqliteSessionStore":
        from .sqlite import SqliteSessionStore

        return SqliteSessionStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
