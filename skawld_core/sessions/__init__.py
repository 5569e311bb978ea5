"""Session stores: the `SessionStore` contract, SQLite (default) and in-memory."""

from __future__ import annotations

from .memory import InMemorySessionStore
from .store import CreateTaskInput, SessionRecord, SessionStore, StoredMessage, Task, TaskPatch, TaskStatus

__all__ = [
    "CreateTaskInput",
    "InMemorySessionStore",
    "SessionRecord",
    "SessionStore",
    "StoredMessage",
    "Task",
    "TaskPatch",
    "TaskStatus",
]
