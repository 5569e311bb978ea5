"""``skawld sessions repair``: recover from a damaged session database.

Moves the broken file aside (kept as ``sessions.db.corrupt-<timestamp>``), creates a
new store in its place and copies in what SQLite can still read, then says how
many sessions and messages were recovered. A healthy database is left alone
(``--force`` rebuilds it anyway).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer


def _fail(message: str, code: int) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    return typer.Exit(code)


def _store_path(db: str | None, cwd: str | None) -> Path:
    if db is not None:
        return Path(db).expanduser().resolve()
    from skawld_core.errors import ConfigError
    from skawld_core.settings import CliOptions, resolve_settings

    base = Path(cwd).expanduser().resolve() if cwd else Path.cwd()
    try:  # repair starts nothing, so the project gate does not apply
        settings = resolve_settings(CliOptions(cwd=str(base), accept_project_config=True))
    except ConfigError as exc:
        raise _fail(str(exc), 3) from None
    if settings.store_path is None:
        raise _fail("the configured session store is not a SQLite file; there is nothing to repair", 3)
    return settings.store_path


def repair_cmd(
    db: Annotated[str | None, typer.Option("--db", help="SQLite session database (default: from config).")] = None,
    cwd: Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Rebuild even a database that looks healthy.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as one JSON object.")] = False,
) -> None:
    """Move a damaged session database aside and recover what can still be read."""
    from skawld_core.errors import SessionStoreError
    from skawld_core.sessions.repair import repair_database

    path = _store_path(db, cwd)
    try:
        report = repair_database(path, force=force)
    except SessionStoreError as exc:
        raise _fail(str(exc), 1) from None
    if as_json:
        doc = {
            "path": str(report.path),
            "backup": str(report.backup) if report.backup else None,
            "healthy": report.healthy,
            "sessions": report.sessions,
            "messages": report.messages,
            "rows": report.rows,
            "skipped": report.skipped,
            "notes": report.notes,
        }
        sys.stdout.write(json.dumps(doc) + "\n")
    else:
        sys.stdout.write(report.summary() + "\n")
        for note in report.notes:
            sys.stderr.write(f"skawld: {note}\n")
