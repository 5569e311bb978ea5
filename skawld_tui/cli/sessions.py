"""``skawld sessions list|show|delete|export``: inspect the session store.

- ``list [--limit 20] [--offset 0]``: NDJSON ``{id, created_at, updated_at, meta, message_count}``;
- ``show ID``: NDJSON ``{seq, appended_at, message}``, one line per stored message;
- ``delete ID [--yes]``: asks on stderr unless ``--yes``;
- ``export ID --format markdown|json [--output FILE]``: a readable transcript, subagent runs included.

The store is the one the config names (``sessionStore`` / ``SKAWLD_DB_PATH``,
default ``<cwd>/.skawld/sessions.db``), or ``--db PATH``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from .subcommand import new_app, run_on_store

T = TypeVar("T")

app = new_app("Inspect, export and delete stored sessions.")

DbOpt = Annotated[str | None, typer.Option("--db", help="SQLite session database (default: from config).")]
CwdOpt = Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")]


class ExportFormat(StrEnum):
    markdown = "markdown"
    json = "json"


def _fail(message: str, code: int = 1) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    return typer.Exit(code)


def _with_store(db: str | None, cwd: str | None, work: Callable[[Any], Awaitable[T]]) -> T:
    """Open the configured store, run `work(store)`, close it. Config errors exit 3."""
    from skawld_core.errors import ConfigError, SessionStoreError
    from skawld_core.sessions.sqlite import SqliteSessionStore
    from skawld_core.settings import CliOptions, make_store, resolve_settings

    base = Path(cwd).expanduser().resolve() if cwd else Path.cwd()
    path: Path | None = None
    if db is not None:
        path = Path(db).expanduser()
    else:
        try:  # a local file starts nothing, so the project gate does not apply to reading it
            settings = resolve_settings(CliOptions(cwd=str(base), accept_project_config=True))
            if settings.store_kind == "postgres":  # a server is another matter: the gate applies
                settings = resolve_settings(CliOptions(cwd=str(base)))
        except ConfigError as exc:
            raise _fail(str(exc), 3) from None
        if settings.store_kind != "postgres":
            if settings.store_path is None:
                raise _fail("the configured session store is in memory; there is nothing to inspect", 3)
            path = settings.store_path
    if path is not None and not path.exists():
        raise _fail(f"no session database at {path}")

    try:
        return run_on_store(lambda: SqliteSessionStore(path) if path is not None else make_store(settings), work)
    except SessionStoreError as exc:
        from skawld_core.sessions.repair import SessionStoreCorruptError

        raise _fail(f"session store error: {exc}", 3 if isinstance(exc, SessionStoreCorruptError) else 1) from None


def _out(obj: Any) -> None:
    try:
        sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    except BrokenPipeError:
        raise typer.Exit(0) from None


@app.command("list")
def list_cmd(
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many sessions.")] = 20,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Skip this many.")] = 0,
    db: DbOpt = None,
    cwd: CwdOpt = None,
) -> None:
    """List sessions, newest first (NDJSON)."""

    async def work(store: Any) -> list[dict[str, Any]]:
        rows = []
        for rec in await store.list_sessions(limit=limit, offset=offset):
            count = len(await store.load_messages(rec.id))
            rows.append(
                {
                    "id": rec.id,
                    "created_at": rec.created_at,
                    "updated_at": rec.updated_at,
                    "meta": rec.meta,
                    "message_count": count,
                }
            )
        return rows

    for row in _with_store(db, cwd, work):
        _out(row)


@app.command("show")
def show_cmd(
    session_id: Annotated[str, typer.Argument(help="Session id.")], db: DbOpt = None, cwd: CwdOpt = None
) -> None:
    """Print a session's stored messages (NDJSON); its tokens and cost go to stderr."""

    async def work(store: Any) -> tuple[Any, list[Any]] | None:
        record = await store.load(session_id)
        if record is None:
            return None
        return record, list(await store.load_messages(session_id))

    found = _with_store(db, cwd, work)
    if found is None:
        raise _fail(f"no session {session_id!r}")
    record, messages = found
    for m in messages:
        _out(m.model_dump(mode="json", exclude_none=True))
    sys.stderr.write(usage_line(record.meta.get("usage")) + "\n")


def usage_line(usage: object) -> str:
    """``usage: 3 runs, 12.3k input (1.0k cache read, 0 cache write), 450 output tokens, $0.0123``."""
    from ..transcript_model import format_tokens  # lazy: only what this action uses

    if not isinstance(usage, dict):
        return "usage: not recorded for this session"
    cost = float(usage.get("cost_usd", 0.0))
    models = ", ".join(
        f"{name} ${float(m.get('cost_usd', 0.0)):.4f}" for name, m in (usage.get("models") or {}).items()
    )
    return (
        f"usage: {usage.get('runs', 0)} runs, {format_tokens(int(usage.get('input_tokens', 0)))} input "
        f"({format_tokens(int(usage.get('cache_read_tokens', 0)))} cache read, "
        f"{format_tokens(int(usage.get('cache_creation_tokens', 0)))} cache write), "
        f"{format_tokens(int(usage.get('output_tokens', 0)))} output tokens, ${cost:.4f}"
        + (f" ({models})" if models else "")
    )


@app.command("delete")
def delete_cmd(
    session_id: Annotated[str, typer.Argument(help="Session id.")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    db: DbOpt = None,
    cwd: CwdOpt = None,
) -> None:
    """Delete a session and its messages and tasks."""

    async def exists(store: Any) -> bool:
        return await store.load(session_id) is not None

    if not _with_store(db, cwd, exists):
        raise _fail(f"no session {session_id!r}")
    if not yes:
        sys.stderr.write(f"Delete session {session_id}? [y/N] ")
        sys.stderr.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            raise _fail("not deleted")

    async def delete(store: Any) -> None:
        await store.delete(session_id)

    _with_store(db, cwd, delete)
    sys.stderr.write(f"deleted {session_id}\n")


@app.command("export")
def export_cmd(
    session_id: Annotated[str, typer.Argument(help="Session id.")],
    fmt: Annotated[ExportFormat, typer.Option("--format", "-f", help="markdown | json.")] = ExportFormat.markdown,
    output: Annotated[str | None, typer.Option("--output", "-o", help="Write to this file instead of stdout.")] = None,
    db: DbOpt = None,
    cwd: CwdOpt = None,
) -> None:
    """Export a transcript (subagent runs included)."""
    from .transcript_export import load_tree, to_json, to_markdown  # lazy: only what this action uses

    async def work(store: Any) -> Any:
        return await load_tree(store, session_id)

    tree = _with_store(db, cwd, work)
    if tree is None:
        raise _fail(f"no session {session_id!r}")
    text = to_markdown(tree) if fmt is ExportFormat.markdown else to_json(tree)
    if output:
        Path(output).write_text(text, encoding="utf-8")
        sys.stderr.write(f"wrote {output}\n")
    else:
        try:
            sys.stdout.write(text)
        except BrokenPipeError:
            raise typer.Exit(0) from None


from .sessions_repair import repair_cmd  # noqa: E402

app.command("repair")(repair_cmd)
from .sessions_migrate import migrate as _migrate  # noqa: E402

app.command("migrate")(_migrate)
