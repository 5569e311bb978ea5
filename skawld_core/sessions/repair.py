"""A damaged ``sessions.db``: how it is reported, and `repair_database` to recover from it.

`SessionStoreCorruptError` is what `SqliteSessionStore` raises when SQLite says
the file is not a database or its image is malformed; the message says what to
do. `repair_database(path)` moves the broken file aside (kept as
``<name>.corrupt-<timestamp>``, with its ``-wal``/``-shm`` companions), creates a
fresh store in its place and copies into it every row SQLite can still read,
table by table and, past a damaged page, row by row.
"""

from __future__ import annotations

import datetime as _dt
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SessionStoreError
from ._schema import SCHEMA_SQL

__all__ = ["RepairReport", "SessionStoreCorruptError", "corrupt_message", "is_corruption", "repair_database"]

_CORRUPT_WORDS = ("malformed", "not a database", "file is encrypted", "corrupt")

# table -> columns copied (in dependency order: parents first)
_TABLES: dict[str, tuple[str, ...]] = {
    "sessions": ("id", "created_at", "updated_at", "meta_json", "invoked_skills_json"),
    "messages": ("session_id", "seq", "appended_at", "message_json"),
    "tasks": (
        "session_id",
        "id",
        "subject",
        "description",
        "active_form",
        "status",
        "owner",
        "metadata_json",
        "created_at",
        "updated_at",
    ),
    "task_counters": ("session_id", "next_id"),
    "task_edges": ("session_id", "from_task_id", "to_task_id", "kind"),
}
_JSON_COLUMNS = {"meta_json", "invoked_skills_json", "message_json", "metadata_json"}
_MAX_MISSES = 2000  # row-by-row reading of a damaged table stops after this many rowids in a row find nothing


class SessionStoreCorruptError(SessionStoreError):
    """The session database file is damaged; `path` is the file."""

    def __init__(self, path: Path, detail: str) -> None:
        self.path = path
        super().__init__(corrupt_message(path, detail))


def corrupt_message(path: Path, detail: str) -> str:
    """What happened and what to do."""
    return (
        f"The session database {path} is damaged ({detail}), so skawld cannot read or save sessions there. "
        f"Run `skawld sessions repair --db {path}` to move it aside (it is kept) and recover what can still "
        "be read into a new database, or move the file away yourself to start with an empty one."
    )


def is_corruption(exc: BaseException) -> bool:
    """True for SQLite errors that mean a damaged file (not a lock, a full disk or a permission)."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    text = str(exc).lower()
    return any(word in text for word in _CORRUPT_WORDS)


@dataclass
class RepairReport:
    """What `repair_database` did."""

    path: Path
    backup: Path | None = None
    healthy: bool = False
    sessions: int = 0
    messages: int = 0
    rows: dict[str, int] = field(default_factory=dict)
    skipped: int = 0
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One paragraph for the user."""
        if self.healthy:
            return f"{self.path} is not damaged; nothing was changed."
        text = (
            f"Moved the damaged database to {self.backup} and recovered {self.sessions} session(s) and "
            f"{self.messages} message(s) into a new {self.path}"
        )
        if self.skipped:
            text += f"; {self.skipped} damaged row(s) could not be read"
        return text + "."


def _check(path: Path) -> str | None:
    """None when the database passes `quick_check` and its tables read; else the problem."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return str(exc)
    try:
        rows = conn.execute("PRAGMA quick_check").fetchall()
        if rows != [("ok",)]:
            return "; ".join(str(r[0]) for r in rows[:3])
        for table in _TABLES:
            conn.execute(f"SELECT count(*) FROM {table}").fetchone()
        return None
    except sqlite3.Error as exc:
        return str(exc)
    finally:
        conn.close()


def _move_aside(path: Path) -> Path:
    stamp = _dt.datetime.now(_dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    backup = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    path.rename(backup)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            companion.rename(backup.with_name(backup.name + suffix))
    return backup


def _rows(conn: sqlite3.Connection, table: str, columns: tuple[str, ...], report: RepairReport) -> Iterator[tuple]:  # type: ignore[type-arg]
    """Every readable row in rowid order: a scan while the b-tree reads, then (past a
    damaged page) one lookup per rowid until `_MAX_MISSES` in a row find nothing."""
    cols = ", ".join(columns)
    last = 0
    try:
        for row in conn.execute(f"SELECT rowid, {cols} FROM {table} ORDER BY rowid"):
            last = int(row[0])
            yield tuple(row[1:])
        return
    except sqlite3.Error as exc:
        report.notes.append(f"{table}: {exc}; reading row by row")
    misses, errors, rowid = 0, 0, last
    while misses < _MAX_MISSES:
        rowid += 1
        try:
            found = conn.execute(f"SELECT {cols} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.Error:
            errors += 1
            found = None
        if found is None:
            misses += 1
            continue
        report.skipped += errors  # unreadable rows between two readable ones (rows lost at the end are not known)
        misses, errors = 0, 0
        yield tuple(found)


def _valid_json(row: tuple, columns: tuple[str, ...]) -> bool:  # type: ignore[type-arg]
    for name, value in zip(columns, row, strict=True):
        if name in _JSON_COLUMNS:
            try:
                json.loads(value)
            except (TypeError, ValueError):
                return False
    return True


def _salvage(source: Path, target: sqlite3.Connection, report: RepairReport) -> None:
    try:
        src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        report.notes.append(str(exc))
        return
    try:
        src.execute("PRAGMA query_only = ON")
        # past the end of a truncated file: read the pages that remain instead of refusing the file
        src.execute("PRAGMA writable_schema = ON")
        sessions: set[str] = set()
        for table, columns in _TABLES.items():
            copied = 0
            placeholders = ", ".join("?" for _ in columns)
            insert = f"INSERT OR IGNORE INTO {table} ({', '.join(columns)}) VALUES ({placeholders})"
            try:
                rows = list(_rows(src, table, columns, report))
            except sqlite3.Error as exc:
                report.notes.append(f"{table}: {exc}")
                continue
            for row in rows:
                if not _valid_json(row, columns):
                    report.skipped += 1
                    continue
                if table == "sessions":
                    sessions.add(str(row[0]))
                elif str(row[0]) not in sessions:
                    # a message whose session row was lost: keep it under a recovered session
                    now = _dt.datetime.now(_dt.UTC).isoformat()
                    target.execute(
                        "INSERT OR IGNORE INTO sessions (id, created_at, updated_at, meta_json) VALUES (?, ?, ?, ?)",
                        (row[0], now, now, json.dumps({"title": "(recovered)", "recovered": True})),
                    )
                    sessions.add(str(row[0]))
                try:
                    cursor = target.execute(insert, row)
                except sqlite3.Error:
                    report.skipped += 1
                    continue
                copied += cursor.rowcount
            report.rows[table] = copied
    finally:
        src.close()
    report.sessions = len(sessions)
    report.messages = report.rows.get("messages", 0)


def repair_database(path: str | Path, *, force: bool = False) -> RepairReport:
    """Move a damaged session database aside and salvage what SQLite can read into a new one.

    A database that passes SQLite's `quick_check` is left alone unless `force`.
    Raises `SessionStoreError` when the file is missing or cannot be moved.
    """
    p = Path(path).expanduser()
    report = RepairReport(path=p)
    if not p.is_file():
        raise SessionStoreError(f"No session database at {p}")
    problem = _check(p)
    if problem is None and not force:
        report.healthy = True
        return report
    try:
        report.backup = _move_aside(p)
    except OSError as exc:
        raise SessionStoreError(f"Cannot move {p} aside: {exc.strerror or exc}") from exc
    if problem:
        report.notes.append(problem)
    tmp = p.with_name(f".{p.name}.repair")
    tmp.unlink(missing_ok=True)
    target = sqlite3.connect(tmp, isolation_level=None)
    try:
        target.executescript(SCHEMA_SQL)
        target.execute("BEGIN IMMEDIATE")
        _salvage(report.backup, target, report)
        target.execute("COMMIT")
    finally:
        target.close()
    tmp.replace(p)
    # sessions count: those in the new store (placeholders for orphaned messages included)
    check = sqlite3.connect(p)
    try:
        report.sessions = int(check.execute("SELECT count(*) FROM sessions").fetchone()[0])
        report.messages = int(check.execute("SELECT count(*) FROM messages").fetchone()[0])
    finally:
        check.close()
    return report
