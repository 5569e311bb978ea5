"""The `SessionStore` contract and its record types.

Every method is async. Implementations assign monotonic `seq` values (from 1,
per session) to messages, bump `updated_at` on every write, and apply every
multi-statement write atomically. Errors are `SessionStoreError`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

from pydantic import ConfigDict, Field

from ..messages import InvokedSkillRecord, Message
from ..model_base import SkawldModel

TaskStatus = Literal["pending", "in_progress", "completed"]
TaskPatchStatus = Literal["pending", "in_progress", "completed", "deleted"]


class SessionRecord(SkawldModel):
    """A stored session. `load` returns an isolated copy."""

    id: str
    created_at: str
    updated_at: str
    meta: dict[str, Any] = Field(default_factory=dict)
    invoked_skills: list[InvokedSkillRecord] = Field(default_factory=list)


class StoredMessage(SkawldModel):
    model_config = ConfigDict(frozen=True)

    seq: int
    appended_at: str
    message: Message


class HistoryTail(NamedTuple):
    """The last messages of a session (`load_tail`) and how many it holds in all."""

    total: int
    messages: list[StoredMessage]


class Task(SkawldModel):
    """A persistent task. `blocks` / `blocked_by` are derived from the edges."""

    id: str
    subject: str
    description: str
    active_form: str | None = None
    status: TaskStatus = "pending"
    owner: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    blocks: list[str] = Field(default_factory=list)
    blocked_by: list[str] = Field(default_factory=list)
    created_at: str = ""
    updated_at: str = ""


class CreateTaskInput(SkawldModel):
    subject: str
    description: str
    active_form: str | None = None
    owner: str | None = None
    status: TaskStatus = "pending"
    metadata: dict[str, Any] = Field(default_factory=dict)


class TaskPatch(SkawldModel):
    """A partial update. Removals are applied before additions; `status="deleted"`
    deletes the task."""

    subject: str | None = None
    description: str | None = None
    active_form: str | None = None
    status: TaskPatchStatus | None = None
    owner: str | None = None
    metadata: dict[str, Any] | None = None
    add_blocks: list[str] = Field(default_factory=list)
    add_blocked_by: list[str] = Field(default_factory=list)
    remove_blocks: list[str] = Field(default_factory=list)
    remove_blocked_by: list[str] = Field(default_factory=list)


@runtime_checkable
class SessionStore(Protocol):
    """Persistence for sessions, messages, invoked skills and tasks."""

    async def create(self, *, id: str | None = None, meta: Mapping[str, Any] | None = None) -> SessionRecord: ...

    async def load(self, id: str) -> SessionRecord | None: ...

    async def list_sessions(self, *, limit: int | None = None, offset: int = 0) -> list[SessionRecord]: ...

    async def update_meta(self, id: str, meta: Mapping[str, Any]) -> SessionRecord: ...

    async def delete(self, id: str) -> None: ...

    async def load_messages(self, id: str) -> list[StoredMessage]: ...

    async def load_tail(self, id: str, limit: int) -> HistoryTail:
        """The session's last `limit` messages in `seq` order, and its message count (one
        snapshot): what a resumed session shows first, without loading its whole history."""
        ...

    async def append_messages(self, id: str, messages: Sequence[Message]) -> list[StoredMessage]: ...

    async def set_invoked_skills(self, id: str, skills: Sequence[InvokedSkillRecord]) -> None: ...

    async def create_task(self, session_id: str, input: CreateTaskInput) -> Task: ...

    async def get_task(self, session_id: str, task_id: str) -> Task | None: ...

    async def list_tasks(self, session_id: str) -> list[Task]: ...

    async def update_task(self, session_id: str, task_id: str, patch: TaskPatch) -> Task | None: ...

    async def delete_task(self, session_id: str, task_id: str) -> bool: ...

    async def close(self) -> None: ...
