"""``skawld sessions migrate [--to TARGET] [--from SOURCE]``: copy sessions between stores.

TARGET and SOURCE are a ``postgres://`` / ``postgresql://`` DSN, ``env:NAME`` (the
DSN in environment variable NAME, so its password stays out of ``ps``) or a
SQLite file path. TARGET defaults to ``$SKAWLD_DATABASE_URL``; SOURCE defaults to
the configured store (when the target is ``$SKAWLD_DATABASE_URL``, the store
configured without it: the project's SQLite file). Sessions, messages (with their
``seq``), invoked skills and task graphs are copied with their ids and
timestamps; what the target already has is left alone, so running it again
copies nothing (see `skawld_core.sessions.transfer`). Progress goes to stderr,
a JSON summary to stdout. DSN passwords are never printed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer


def _fail(message: str, code: int = 1) -> typer.Exit:
    sys.stderr.write(f"skawld: {message}\n")
    return typer.Exit(code)


_ENV_VAR = "SKAWLD_DATABASE_URL"


def _from_env(spec: str) -> str:
    """`spec`, or the value of the variable it names as ``env:NAME``."""
    if not spec.startswith("env:"):
        return spec
    name = spec[4:]
    value = os.environ.get(name, "")
    if not value.strip():
        raise _fail(f"{spec}: the environment variable {name} is not set", 2)
    return value


def _open(spec: str, base: Path) -> tuple[Any, str]:
    """A store for a DSN or SQLite path, and a label safe to print."""
    from skawld_core.sessions.dsn import is_postgres_dsn, redact_dsn

    spec = _from_env(spec)

    if is_postgres_dsn(spec):
        from skawld_core.sessions.postgres import PostgresSessionStore

        return PostgresSessionStore(spec), redact_dsn(spec)
    from skawld_core.sessions.sqlite import SqliteSessionStore

    path = (base / Path(spec).expanduser()).resolve()
    if path.is_dir():
        raise _fail(f"{path} is a directory; give the SQLite file path (e.g. {path / 'sessions.db'})", 2)
    return SqliteSessionStore(path), str(path)


def _configured(base: Path, accept_project_config: bool, *, without_env: bool) -> tuple[Any, str]:
    from skawld_core.config import UntrustedProjectConfigError
    from skawld_core.errors import ConfigError
    from skawld_core.settings import CliOptions, make_store, resolve_settings, store_label

    saved = os.environ.pop(_ENV_VAR, None) if without_env else None
    try:
        settings = resolve_settings(CliOptions(cwd=str(base), accept_project_config=accept_project_config))
    except (UntrustedProjectConfigError, ConfigError) as exc:
        raise _fail(str(exc), 3) from None
    finally:
        if saved is not None:
            os.environ[_ENV_VAR] = saved
    if settings.store_kind == "memory":
        raise _fail("the configured session store is in memory; give --from", 3)
    if settings.store_kind == "sqlite" and settings.store_path is not None and not settings.store_path.exists():
        raise _fail(f"no session database at {settings.store_path}")
    return make_store(settings), store_label(settings)


def migrate(
    to: Annotated[
        str | None,
        typer.Option(
            "--to", help="Target: env:NAME, a postgres://... DSN or a SQLite path (default: $SKAWLD_DATABASE_URL)."
        ),
    ] = None,
    source: Annotated[
        str | None,
        typer.Option("--from", help="Source: env:NAME, a DSN or a SQLite path (default: the configured store)."),
    ] = None,
    cwd: Annotated[str | None, typer.Option("--cwd", help="Project directory (default: current).")] = None,
    accept_project_config: Annotated[
        bool, typer.Option("--accept-project-config", help="Trust this project's config file.")
    ] = False,
) -> None:
    """Copy sessions, messages and task lists to another store (idempotent)."""
    from skawld_core.errors import SessionStoreError, SkawldError
    from skawld_core.sessions.transfer import ImportCounts, copy_sessions

    base = Path(cwd).expanduser().resolve() if cwd else Path.cwd()
    if to is None:
        if not os.environ.get(_ENV_VAR, "").strip():
            raise _fail(f"no target: give --to (env:NAME, a DSN or a SQLite path) or set {_ENV_VAR}", 2)
        to = f"env:{_ENV_VAR}"
    if source is not None:
        src, src_label = _open(source, base)
        if not _from_env(source).startswith(("postgres://", "postgresql://")) and not Path(src_label).exists():
            raise _fail(f"no session database at {src_label}")
    else:
        src, src_label = _configured(base, accept_project_config, without_env=to == f"env:{_ENV_VAR}")
    dst, dst_label = _open(to, base)
    if src_label == dst_label:
        raise _fail("the source and the target are the same store", 2)

    def progress(session_id: str, counts: ImportCounts) -> None:
        if counts.sessions or counts.messages or counts.tasks or counts.edges:
            sys.stderr.write(
                f"skawld: copied {session_id}: {counts.messages} messages, {counts.tasks} tasks"
                f"{' (new session)' if counts.sessions else ''}\n"
            )

    async def go() -> dict[str, Any]:
        try:
            report = await copy_sessions(src, dst, on_session=progress)
        finally:
            await src.close()
            await dst.close()
        c = report.counts
        return {
            "from": src_label,
            "to": dst_label,
            "sessions_seen": report.seen,
            "sessions_created": c.sessions,
            "sessions_changed": len(report.changed),
            "messages": c.messages,
            "tasks": c.tasks,
            "edges": c.edges,
        }

    try:
        summary = asyncio.run(go())
    except SessionStoreError as exc:
        raise _fail(f"session store error: {exc}") from None
    except SkawldError as exc:
        raise _fail(str(exc), 3) from None
    sys.stdout.write(json.dumps(summary) + "\n")
