"""TaskCreate, TaskList, TaskGet and TaskUpdate over the session store's task graph."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from ..errors import SessionStoreError
from ..model_base import SkawldModel
from ..sessions.store import CreateTaskInput, SessionStore, Task, TaskPatch, TaskPatchStatus
from .base import Tool, ToolContext, ToolResult, error_result

_ID_CONFIG = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


def _norm_id(value: str) -> str:
    value = value.strip()
    return value[1:] if value.startswith("#") else value


def _store(ctx: ToolContext) -> SessionStore | None:
    return ctx.session_store


NO_STORE = "Task tools need a session store; none is configured."


def _ids(ids: list[str]) -> str:
    return ", ".join(f"#{i}" for i in ids) if ids else "(none)"


class TaskCreateInput(SkawldModel):
    """Input of TaskCreate."""

    model_config = _ID_CONFIG

    subject: str = Field(description="A short imperative title, e.g. 'Add retry to the client'.")
    description: str = Field(description="What needs to be done, in enough detail to do it later.")
    active_form: str | None = Field(default=None, description="Present-continuous form shown while in progress.")
    metadata: dict[str, Any] | None = Field(default=None, description="Arbitrary JSON metadata.")

    @field_validator("subject")
    @classmethod
    def _subject(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("subject must not be empty")
        return value


class TaskCreateTool(Tool[TaskCreateInput]):
    """Create a task in this session's task list."""

    name = "TaskCreate"
    description = "Create a task in this session's task list. Returns its id (e.g. #3); new tasks are pending."
    scope = "write"
    parallel_safe = True
    input_model = TaskCreateInput

    def summarize(self, value: TaskCreateInput) -> str:
        """`Create task: <subject>`."""
        return f"Create task: {value.subject}"

    async def execute(self, value: TaskCreateInput, ctx: ToolContext) -> ToolResult:
        """Create the task and report its id."""
        store = _store(ctx)
        if store is None:
            return error_result(NO_STORE)
        data = CreateTaskInput(
            subject=value.subject,
            description=value.description,
            active_form=value.active_form,
            metadata=value.metadata or {},
        )
        try:
            task = await store.create_task(ctx.session_id, data)
        except SessionStoreError as exc:
            return error_result(str(exc))
        return ToolResult(content=f"Task #{task.id} created: {task.subject}", summary=self.summarize(value))


class TaskListInput(SkawldModel):
    """TaskList takes no input."""

    model_config = ConfigDict(extra="forbid")


def list_line(task: Task, status_of: Mapping[str, str]) -> str:
    """`#id [status] subject (owner) [blocked by #a, #b]` (open blockers only)."""
    line = f"#{task.id} [{task.status}] {task.subject}"
    if task.owner:
        line += f" ({task.owner})"
    open_blockers = [b for b in task.blocked_by if status_of.get(b) != "completed"]
    if open_blockers:
        line += f" [blocked by {', '.join(f'#{b}' for b in open_blockers)}]"
    return line


class TaskListTool(Tool[TaskListInput]):
    """List this session's tasks."""

    name = "TaskList"
    description = "List this session's tasks: one line each with id, status, subject, owner and open blockers."
    scope = "read"
    parallel_safe = True
    input_model = TaskListInput

    def summarize(self, value: TaskListInput) -> str:
        """`List tasks`."""
        return "List tasks"

    async def execute(self, value: TaskListInput, ctx: ToolContext) -> ToolResult:
        """One line per task, in numeric id order."""
        store = _store(ctx)
        if store is None:
            return error_result(NO_STORE)
        try:
            tasks = await store.list_tasks(ctx.session_id)
        except SessionStoreError as exc:
            return error_result(str(exc))
        if not tasks:
            return ToolResult(content="No tasks found.", summary="0 tasks")
        status_of = {t.id: t.status for t in tasks}
        body = "\n".join(list_line(t, status_of) for t in tasks)
        return ToolResult(content=body, summary=f"{len(tasks)} task(s)")


class TaskGetInput(SkawldModel):
    """Input of TaskGet."""

    model_config = _ID_CONFIG

    task_id: str = Field(description="The task id, e.g. '3'.")

    @field_validator("task_id")
    @classmethod
    def _norm(cls, value: str) -> str:
        return _norm_id(value)


def render_task(task: Task) -> str:
    """The multi-line view TaskGet returns; optional lines only when set."""
    lines = [
        f"Task #{task.id}",
        f"  subject: {task.subject}",
        f"  status: {task.status}",
        f"  description: {task.description}",
    ]
    if task.active_form:
        lines.append(f"  active_form: {task.active_form}")
    if task.owner:
        lines.append(f"  owner: {task.owner}")
    if task.blocks:
        lines.append(f"  blocks: {_ids(task.blocks)}")
    if task.blocked_by:
        lines.append(f"  blocked_by: {_ids(task.blocked_by)}")
    if task.metadata:
        lines.append(f"  metadata: {json.dumps(task.metadata, ensure_ascii=False, sort_keys=True)}")
    lines += [f"  created_at: {task.created_at}", f"  updated_at: {task.updated_at}"]
    return "\n".join(lines)


class TaskGetTool(Tool[TaskGetInput]):
    """Show one task in full."""

    name = "TaskGet"
    description = "Show one task in full: subject, status, description, owner, dependencies and metadata."
    scope = "read"
    parallel_safe = True
    input_model = TaskGetInput

    def summarize(self, value: TaskGetInput) -> str:
        """`Get task #<id>`."""
        return f"Get task #{value.task_id}"

    async def execute(self, value: TaskGetInput, ctx: ToolContext) -> ToolResult:
        """Render the task, or report that it does not exist."""
        store = _store(ctx)
        if store is None:
            return error_result(NO_STORE)
        try:
            task = await store.get_task(ctx.session_id, value.task_id)
        except SessionStoreError as exc:
            return error_result(str(exc))
        if task is None:
            return error_result("Task not found.")
        return ToolResult(content=render_task(task), summary=self.summarize(value))


class TaskUpdateInput(SkawldModel):
    """Input of TaskUpdate. Unset fields are left unchanged."""

    model_config = _ID_CONFIG

    task_id: str = Field(description="The task to update.")
    subject: str | None = None
    description: str | None = None
    active_form: str | None = None
    status: TaskPatchStatus | None = Field(default=None, description="'deleted' removes the task.")
    owner: str | None = None
    add_blocks: list[str] = Field(default_factory=list, description="Ids of tasks this task blocks.")
    add_blocked_by: list[str] = Field(default_factory=list, description="Ids of tasks that block this task.")
    remove_blocks: list[str] = Field(default_factory=list)
    remove_blocked_by: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] | None = Field(default=None, description="Merged shallowly; a null value deletes a key.")

    @field_validator("task_id")
    @classmethod
    def _norm(cls, value: str) -> str:
        return _norm_id(value)

    @field_validator("add_blocks", "add_blocked_by", "remove_blocks", "remove_blocked_by")
    @classmethod
    def _norm_list(cls, value: list[str]) -> list[str]:
        return [_norm_id(v) for v in value]

    @field_validator("subject")
    @classmethod
    def _subject(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        if not value:
            raise ValueError("subject must not be empty")
        return value


_DIFF_FIELDS = ("subject", "status", "owner", "active_form", "description", "blocks", "blocked_by")


def _show(value: Any) -> str:
    if isinstance(value, list):
        return _ids(value)
    return "(none)" if value is None or value == "" else str(value)


def diff_tasks(before: Task, after: Task) -> list[str]:
    """`field old → new` for each changed field (and `metadata updated`)."""
    changes = []
    for name in _DIFF_FIELDS:
        old, new = getattr(before, name), getattr(after, name)
        if old != new:
            changes.append(f"{name} {_show(old)} → {_show(new)}")
    if before.metadata != after.metadata:
        changes.append("metadata updated")
    return changes


class TaskUpdateTool(Tool[TaskUpdateInput]):
    """Update, link or delete a task."""

    name = "TaskUpdate"
    description = (
        "Update a task: subject, description, active_form, status (pending, in_progress, completed, or deleted to "
        "remove it), owner, dependencies (add_blocks / add_blocked_by / remove_blocks / remove_blocked_by) and "
        "metadata. Dependency cycles are rejected."
    )
    scope = "write"
    parallel_safe = True
    input_model = TaskUpdateInput

    def summarize(self, value: TaskUpdateInput) -> str:
        """`Update task #<id>` (or `Delete task #<id>`)."""
        verb = "Delete" if value.status == "deleted" else "Update"
        return f"{verb} task #{value.task_id}"

    async def execute(self, value: TaskUpdateInput, ctx: ToolContext) -> ToolResult:
        """Apply the patch and describe what changed."""
        store = _store(ctx)
        if store is None:
            return error_result(NO_STORE)
        summary = self.summarize(value)
        try:
            before = await store.get_task(ctx.session_id, value.task_id)
            if before is None:
                return error_result("Task not found.")
            if value.status == "deleted":
                if not await store.delete_task(ctx.session_id, value.task_id):
                    return error_result("Task not found.")
                return ToolResult(content=f"Task #{value.task_id} deleted.", summary=summary)
            patch = TaskPatch.model_validate(value.model_dump(exclude={"task_id"}))
            after = await store.update_task(ctx.session_id, value.task_id, patch)
        except SessionStoreError as exc:
            return error_result(str(exc))
        if after is None:
            return error_result("Task not found.")
        changes = diff_tasks(before, after)
        text = "; ".join(changes) if changes else "no changes"
        return ToolResult(content=f"Task #{value.task_id} updated: {text}", summary=summary)
