"""`InMemorySessionStore`: pure in-process state, for tests and ephemeral agents."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import SessionStoreError
from ..messages import InvokedSkillRecord, Message
from .store import CreateTaskInput, HistoryTail, SessionRecord, StoredMessage, Task, TaskPatch
from .task_graph import MonotonicClock, apply_scalars, json_copy, links_for, plan_edges, sorted_ids


@dataclass
class _SessionState:
    record: SessionRecord
    messages: list[StoredMessage] = field(default_factory=list)
    tasks: dict[str, Task] = field(default_factory=dict)
    edges: set[tuple[str, str]] = field(default_factory=set)
    next_task_id: int = 1


class InMemorySessionStore:
    """A `SessionStore` kept in memory. Every method returns isolated copies;
    the task graph uses the same validation as `SqliteSessionStore`.

    No method awaits in the middle of a write, so each call is atomic with
    respect to other coroutines on the same event loop.
    """

    def __init__(self) -> None:
        self._sessions: dict[str, _SessionState] = {}
        self._clock = MonotonicClock()

    # ----- sessions -----

    async def create(self, *, id: str | None = None, meta: Mapping[str, Any] | None = None) -> SessionRecord:
        """Create a session, or return the existing one (its meta unchanged)."""
        if id is not None and id in self._sessions:
            return self._sessions[id].record.model_copy(deep=True)
        session_id = id if id is not None else str(uuid.uuid4())
        clean_meta = json_copy(meta or {}, "Session meta")
        now = self._clock.now()
        record = SessionRecord(id=session_id, created_at=now, updated_at=now, meta=clean_meta)
        self._sessions[session_id] = _SessionState(record=record)
        return record.model_copy(deep=True)

    async def load(self, id: str) -> SessionRecord | None:
        """An isolated copy of the session record, or `None`."""
        state = self._sessions.get(id)
        return state.record.model_copy(deep=True) if state else None

    async def list_sessions(self, *, limit: int | None = None, offset: int = 0) -> list[SessionRecord]:
        """Sessions by `updated_at` descending, paged by `limit` / `offset`."""
        records = sorted((s.record for s in self._sessions.values()), key=lambda r: r.updated_at, reverse=True)
        start = max(offset, 0)
        end = None if limit is None else start + max(limit, 0)
        return [r.model_copy(deep=True) for r in records[start:end]]

    async def update_meta(self, id: str, meta: Mapping[str, Any]) -> SessionRecord:
        """Shallow-merge `meta` into the session's meta; unknown id raises."""
        state = self._require(id)
        patch = json_copy(meta, "Session meta")
        state.record = state.record.model_copy(
            update={"meta": {**state.record.meta, **patch}, "updated_at": self._clock.now()}
        )
        return state.record.model_copy(deep=True)

    async def delete(self, id: str) -> None:
        """Delete the session with its messages, tasks, edges and counter."""
        self._sessions.pop(id, None)

    # ----- messages -----

    async def load_messages(self, id: str) -> list[StoredMessage]:
        """The session's messages in `seq` order (empty for an unknown id)."""
        state = self._sessions.get(id)
        return [m.model_copy(deep=True) for m in state.messages] if state else []

    async def load_tail(self, id: str, limit: int) -> HistoryTail:
        """The last `limit` messages in `seq` order and the message count."""
        state = self._sessions.get(id)
        if state is None:
            return HistoryTail(0, [])
        tail = state.messages[max(0, len(state.messages) - limit) :] if limit > 0 else []
        return HistoryTail(len(state.messages), [m.model_copy(deep=True) for m in tail])

    async def append_messages(self, id: str, messages: Sequence[Message]) -> list[StoredMessage]:
        """Append `messages` with the next `seq` values; unknown id raises."""
        state = self._require(id)
        if not messages:
            return []
        now = self._clock.now()
        start = len(state.messages) + 1
        try:
            stored = [
                StoredMessage(seq=start + i, appended_at=now, message=Message.model_validate_json(m.model_dump_json()))
                for i, m in enumerate(messages)
            ]
        except Exception as exc:
            raise SessionStoreError(f"Cannot store messages: {exc}", cause=exc) from exc
        state.messages.extend(stored)
        state.record = state.record.model_copy(update={"updated_at": now})
        return [m.model_copy(deep=True) for m in stored]

    # ----- invoked skills -----

    async def set_invoked_skills(self, id: str, skills: Sequence[InvokedSkillRecord]) -> None:
        """Replace the session's invoked-skill list."""
        state = self._require(id)
        state.record = state.record.model_copy(
            update={"invoked_skills": [s.model_copy(deep=True) for s in skills], "updated_at": self._clock.now()}
        )

    # ----- tasks -----

    async def create_task(self, session_id: str, input: CreateTaskInput) -> Task:
        """Create a task with the session's next numeric id (never reused)."""
        state = self._require(session_id)
        metadata = json_copy(input.metadata, "Task metadata")
        now = self._clock.now()
        task_id = str(state.next_task_id)
        task = Task(
            id=task_id,
            subject=input.subject,
            description=input.description,
            active_form=input.active_form,
            status=input.status,
            owner=input.owner,
            metadata=metadata,
            created_at=now,
            updated_at=now,
        )
        state.next_task_id += 1
        state.tasks[task_id] = task
        state.record = state.record.model_copy(update={"updated_at": now})
        return self._view(state, task)

    async def get_task(self, session_id: str, task_id: str) -> Task | None:
        """The task with derived `blocks` / `blocked_by`, or `None`."""
        state = self._sessions.get(session_id)
        task = state.tasks.get(task_id) if state else None
        return self._view(state, task) if state and task else None

    async def list_tasks(self, session_id: str) -> list[Task]:
        """All tasks of the session in numeric id order."""
        state = self._sessions.get(session_id)
        if state is None:
            return []
        return [self._view(state, state.tasks[tid]) for tid in sorted_ids(state.tasks)]

    async def update_task(self, session_id: str, task_id: str, patch: TaskPatch) -> Task | None:
        """Apply `patch` atomically; `None` if the task is missing or was deleted."""
        state = self._sessions.get(session_id)
        task = state.tasks.get(task_id) if state else None
        if state is None or task is None:
            return None
        if patch.status == "deleted":
            self._delete_task(state, task_id)
            return None
        plan = plan_edges(task_id, patch, state.edges, state.tasks.keys())
        metadata = json_copy(patch.metadata, "Task metadata") if patch.metadata is not None else None
        scalars = apply_scalars(task, patch.model_copy(update={"metadata": metadata}))
        now = self._clock.now()
        state.edges = (state.edges - plan.remove) | plan.add
        state.tasks[task_id] = task.model_copy(
            update={
                "subject": scalars.subject,
                "description": scalars.description,
                "active_form": scalars.active_form,
                "status": scalars.status,
                "owner": scalars.owner,
                "metadata": scalars.metadata,
                "updated_at": now,
            }
        )
        state.record = state.record.model_copy(update={"updated_at": now})
        return self._view(state, state.tasks[task_id])

    async def delete_task(self, session_id: str, task_id: str) -> bool:
        """Delete the task and every edge touching it; `False` if it was missing."""
        state = self._sessions.get(session_id)
        if state is None or task_id not in state.tasks:
            return False
        self._delete_task(state, task_id)
        return True

    # ----- lifecycle -----

    async def close(self) -> None:
        """No-op: there is nothing to release."""

    # ----- helpers -----

    def _require(self, id: str) -> _SessionState:
        state = self._sessions.get(id)
        if state is None:
            raise SessionStoreError(f"Session {id!r} not found")
        return state

    def _delete_task(self, state: _SessionState, task_id: str) -> None:
        del state.tasks[task_id]
        state.edges = {e for e in state.edges if task_id not in e}
        state.record = state.record.model_copy(update={"updated_at": self._clock.now()})

    @staticmethod
    def _view(state: _SessionState, task: Task) -> Task:
        blocks, blocked_by = links_for(task.id, state.edges)
        return task.model_copy(deep=True, update={"blocks": blocks, "blocked_by": blocked_by})
