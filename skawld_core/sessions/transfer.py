"""Copying sessions between stores (``skawld sessions migrate``).

`copy_sessions(source, target)` reads every session of `source` through the
`SessionStore` protocol and hands each to `target.import_session`
(`SessionImporter`), which writes what the target does not have yet, keeping
ids, `seq` numbers, timestamps and task ids:

- a session missing from the target is created with its meta and skills;
- messages with a `seq` above the target's last one are appended;
- tasks whose id the target lacks are inserted, and missing edges added.

Nothing already in the target is overwritten, so a second run copies nothing
and a run after more work in the source copies only the new part.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from .store import SessionRecord, SessionStore, StoredMessage, Task


@dataclass(frozen=True)
class SessionDump:
    """One session with everything that belongs to it."""

    record: SessionRecord
    messages: list[StoredMessage]
    tasks: list[Task]

    @property
    def edges(self) -> list[tuple[str, str]]:
        """``(from, to)`` pairs: `from` blocks `to`."""
        return sorted({(t.id, other) for t in self.tasks for other in t.blocks})


@dataclass
class ImportCounts:
    """What one import wrote."""

    sessions: int = 0
    messages: int = 0
    tasks: int = 0
    edges: int = 0

    def add(self, other: ImportCounts) -> None:
        self.sessions += other.sessions
        self.messages += other.messages
        self.tasks += other.tasks
        self.edges += other.edges


@dataclass
class CopyReport:
    """The totals of `copy_sessions` and the ids of sessions that gained anything."""

    counts: ImportCounts = field(default_factory=ImportCounts)
    seen: int = 0
    changed: list[str] = field(default_factory=list)


@runtime_checkable
class SessionImporter(Protocol):
    """A store that can take a `SessionDump` verbatim (ids, seqs, timestamps)."""

    async def import_session(self, dump: SessionDump) -> ImportCounts:
        """Write the parts of `dump` this store does not have yet."""
        ...


async def dump_session(store: SessionStore, session_id: str) -> SessionDump | None:
    """Everything about one session, or `None` if it does not exist."""
    record = await store.load(session_id)
    if record is None:
        return None
    return SessionDump(
        record=record, messages=await store.load_messages(session_id), tasks=await store.list_tasks(session_id)
    )


async def copy_sessions(
    source: SessionStore,
    target: SessionImporter,
    *,
    on_session: Callable[[str, ImportCounts], None] | None = None,
    page: int = 200,
) -> CopyReport:
    """Copy every session of `source` into `target` (idempotent; see the module doc)."""
    report = CopyReport()
    ids: list[str] = []
    offset = 0
    while True:
        batch = await source.list_sessions(limit=page, offset=offset)
        ids.extend(r.id for r in batch)
        if len(batch) < page:
            break
        offset += page
    for session_id in reversed(ids):  # oldest first
        dump = await dump_session(source, session_id)
        if dump is None:
            continue  # deleted meanwhile
        report.seen += 1
        counts = await target.import_session(dump)
        report.counts.add(counts)
        if counts.sessions or counts.messages or counts.tasks or counts.edges:
            report.changed.append(session_id)
        if on_session is not None:
            on_session(session_id, counts)
    return report
