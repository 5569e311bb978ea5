"""Pure task-graph logic shared by every bundled `SessionStore`.

Edges are `(from_id, to_id)` pairs meaning "`from_id` blocks `to_id`". A store
loads the session's edges and task ids, asks `plan_task_update` what to change,
and only then writes, so a rejected patch (missing task, cycle) changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..errors import SessionStoreError
from .store import Task, TaskPatch

Edge = tuple[str, str]

CYCLE_MESSAGE = "Dependency cycle detected"


def task_sort_key(task_id: str) -> tuple[int, str]:
    """Numeric order for task ids ("2" before "10"); non-numeric ids sort last."""
    try:
        return (int(task_id), "")
    except ValueError:
        return (1 << 62, task_id)


def sorted_ids(ids: Iterable[str]) -> list[str]:
    """`ids` in numeric task-id order."""
    return sorted(ids, key=task_sort_key)


def has_cycle(edges: Iterable[Edge]) -> bool:
    """True if the directed graph given by `edges` has a cycle (self-loops count)."""
    graph: dict[str, list[str]] = {}
    for src, dst in edges:
        graph.setdefault(src, []).append(dst)
        graph.setdefault(dst, [])
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(graph, white)
    for root in graph:
        if colour[root] != white:
            continue
        colour[root] = grey
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            node, index = stack[-1]
            children = graph[node]
            if index < len(children):
                stack[-1] = (node, index + 1)
                child = children[index]
                if colour[child] == grey:
                    return True
                if colour[child] == white:
                    colour[child] = grey
                    stack.append((child, 0))
            else:
                colour[node] = black
                stack.pop()
    return False


@dataclass(frozen=True)
class EdgePlan:
    """The edges an update removes and adds (removals are applied first)."""

    remove: frozenset[Edge]
    add: frozenset[Edge]

    @property
    def empty(self) -> bool:
        return not self.remove and not self.add


def plan_edges(task_id: str, patch: TaskPatch, edges: Collection[Edge], task_ids: Collection[str]) -> EdgePlan:
    """Validate the edge part of `patch` against the current graph.

    Raises `SessionStoreError` if an added edge names a task that does not exist
    or if the resulting graph would have a cycle ("Dependency cycle detected").
    Nothing is mutated; the caller applies the returned plan.
    """
    current = set(edges)
    remove = {(task_id, other) for other in patch.remove_blocks}
    remove |= {(other, task_id) for other in patch.remove_blocked_by}
    remove &= current
    add_targets = [*patch.add_blocks, *patch.add_blocked_by]
    missing = [other for other in add_targets if other not in task_ids]
    if missing:
        raise SessionStoreError(f"Task {', '.join(f'#{m}' for m in sorted_ids(set(missing)))} not found")
    add = {(task_id, other) for other in patch.add_blocks}
    add |= {(other, task_id) for other in patch.add_blocked_by}
    after_removal = current - remove
    add -= after_removal
    if add and has_cycle(after_removal | add):
        raise SessionStoreError(CYCLE_MESSAGE)
    return EdgePlan(remove=frozenset(remove), add=frozenset(add))


def links_for(task_id: str, edges: Iterable[Edge]) -> tuple[list[str], list[str]]:
    """`(blocks, blocked_by)` of `task_id`, each in numeric id order."""
    blocks: set[str] = set()
    blocked_by: set[str] = set()
    for src, dst in edges:
        if src == task_id:
            blocks.add(dst)
        if dst == task_id:
            blocked_by.add(src)
    return sorted_ids(blocks), sorted_ids(blocked_by)


def merge_metadata(current: Mapping[str, Any], patch: Mapping[str, Any] | None) -> dict[str, Any]:
    """Shallow-merge `patch` into `current`; a `None` value deletes the key."""
    merged = dict(current)
    if patch:
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
    return merged


@dataclass(frozen=True)
class ScalarChanges:
    """The scalar task fields after applying a patch."""

    subject: str
    description: str
    active_form: str | None
    status: str
    owner: str | None
    metadata: dict[str, Any]


def apply_scalars(current: Task, patch: TaskPatch) -> ScalarChanges:
    """`current`'s scalar fields with `patch` applied (a `None` field means "unchanged").

    `status="deleted"` is handled by the caller before this is reached.
    """
    return ScalarChanges(
        subject=patch.subject if patch.subject is not None else current.subject,
        description=patch.description if patch.description is not None else current.description,
        active_form=patch.active_form if patch.active_form is not None else current.active_form,
        status=patch.status if patch.status is not None else current.status,
        owner=patch.owner if patch.owner is not None else current.owner,
        metadata=merge_metadata(current.metadata, patch.metadata),
    )


def json_copy(value: Mapping[str, Any], what: str) -> dict[str, Any]:
    """A deep, JSON-clean copy of `value`; `SessionStoreError` if it is not JSON."""
    try:
        copied = json.loads(json.dumps(dict(value)))
    except (TypeError, ValueError) as exc:
        raise SessionStoreError(f"{what} must be JSON-serializable: {exc}", cause=exc) from exc
    assert isinstance(copied, dict)
    return copied


class MonotonicClock:
    """ISO-8601 UTC timestamps that strictly increase within one store, so
    `updated_at` ordering is well defined even for writes in the same microsecond."""

    def __init__(self) -> None:
        self._last: datetime | None = None

    def now(self) -> str:
        current = datetime.now(UTC)
        if self._last is not None and current <= self._last:
            current = self._last + timedelta(microseconds=1)
        self._last = current
        return current.isoformat(timespec="microseconds").replace("+00:00", "Z")
