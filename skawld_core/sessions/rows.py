"""Row conversions shared by the SQL stores (SQLite and PostgreSQL): JSON columns,
and session/task rows to `SessionRecord` / `Task`.

The stores keep timestamps as ISO-8601 UTC text; SQLite stores that text as is,
PostgreSQL hands back `datetime`s, so the row readers take a `stamp` that turns a
column value into that text.
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..errors import SessionStoreError
from ..gc_pause import gc_paused
from ..messages import InvokedSkillRecord
from ..model_base import DEFERRED
from .store import HistoryTail, SessionRecord, StoredMessage, Task
from .task_graph import Edge, links_for

SKILLS = TypeAdapter(list[InvokedSkillRecord], config=DEFERRED)
_STORED = TypeAdapter(list[StoredMessage], config=DEFERRED)
INLINE_ROWS = 500  # fewer rows validate faster than a hop to a worker thread
VALIDATE_CHUNK = 1000  # rows per pydantic-core call: bounds the transient JSON text
_freeze_loaded = False  # see freeze_loaded_history
Stamp = Callable[[Any], str]


def dumps(value: Any) -> str:
    """Compact JSON text for a JSON column (UTF-8 kept, no spaces)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def loads_dict(raw: str, what: str) -> dict[str, Any]:
    """A JSON object column; anything else is a corrupt database, named by `what`."""
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise SessionStoreError(f"Corrupt {what} in session database: {exc}") from exc
    if not isinstance(value, dict):
        raise SessionStoreError(f"Corrupt {what} in session database: expected an object")
    return value


def record_of(row: Any, stamp: Stamp = str) -> SessionRecord:
    """A `(id, created_at, updated_at, meta_json, skills_json)` row."""
    id_, created_at, updated_at, meta_json, skills_json = row
    try:
        skills = SKILLS.validate_json(skills_json)
    except ValidationError as exc:
        raise SessionStoreError(f"Corrupt invoked skills of session {id_!r}: {exc}") from exc
    return SessionRecord(
        id=id_,
        created_at=stamp(created_at),
        updated_at=stamp(updated_at),
        meta=loads_dict(meta_json, "session meta"),
        invoked_skills=skills,
    )


def task_of(row: Any, edges: Sequence[Edge] | set[Edge], stamp: Stamp = str) -> Task:
    """A task row (the stores' nine task columns) with `blocks` / `blocked_by` from `edges`."""
    task_id, subject, description, active_form, status, owner, metadata_json, created_at, updated_at = row
    blocks, blocked_by = links_for(str(task_id), edges)
    return Task(
        id=str(task_id),
        subject=subject,
        description=description,
        active_form=active_form,
        status=status,
        owner=owner,
        metadata=loads_dict(metadata_json, "task metadata"),
        blocks=blocks,
        blocked_by=blocked_by,
        created_at=stamp(created_at),
        updated_at=stamp(updated_at),
    )


def stored_messages_of(rows: Sequence[Sequence[Any]], where: str) -> list[StoredMessage]:
    """Message rows `(seq, appended_at, message_json)` (ISO text stamps) validated once, by pydantic-core.

    The stores call it through `load_stored_messages`, so a long history is not validated
    on the event loop. Rows go to pydantic-core `VALIDATE_CHUNK` at a time, so the JSON text
    and the parser's working copy stay small beside the messages they become. The cyclic GC
    is paused meanwhile: building ~10^5 acyclic objects would otherwise trigger many
    collections that find nothing (see `freeze_loaded_history` for the pass after). A row
    that does not validate raises `SessionStoreError` naming `where` (the session and its store).
    """
    try:
        with gc_paused():
            out: list[StoredMessage] = []
            for at in range(0, len(rows), VALIDATE_CHUNK):
                chunk = rows[at : at + VALIDATE_CHUNK]
                raw = ",".join(
                    f'{{"seq":{seq},"appended_at":"{stamp}","message":{message}}}' for seq, stamp, message in chunk
                )
                out += _STORED.validate_json(f"[{raw}]")
            if _freeze_loaded and len(out) > INLINE_ROWS:
                gc.freeze()
            return out
    except ValidationError as exc:
        raise SessionStoreError(f"Corrupt message in {where}: {exc}") from exc


def freeze_loaded_history(on: bool = True) -> None:
    """Process policy: move a long loaded history (and whatever else the collector tracks
    then) into the permanent generation (`gc.freeze`) once it is built.

    Off by default: freezing is process-wide, and an SDK user's process decides its own
    collector policy. skawld's own processes turn it on (they freeze what start-up and each
    run leave alive anyway, see `skawld_tui.startup_gc`): the messages are acyclic and freed
    by reference counting whatever their generation, and the first collection after a load
    would otherwise walk every one of them (~50-90 ms per 20,000 messages) for nothing.
    """
    global _freeze_loaded
    _freeze_loaded = on


async def load_stored_messages(rows: Iterable[Sequence[Any]], where: str) -> list[StoredMessage]:
    """`stored_messages_of`, in a worker thread for a long history (the event loop keeps
    running), inline for a short one."""
    rows = rows if isinstance(rows, list) else list(rows)
    if len(rows) <= INLINE_ROWS:
        return stored_messages_of(rows, where)
    return await asyncio.to_thread(stored_messages_of, rows, where)


async def tail_of(total: int, newest_first: Sequence[Sequence[Any]], where: str) -> HistoryTail:
    """`load_tail`'s answer from the message count and the tail's rows, newest first (as
    `ORDER BY seq DESC LIMIT n` returns them)."""
    return HistoryTail(total, await load_stored_messages(list(reversed(newest_first)), where))
