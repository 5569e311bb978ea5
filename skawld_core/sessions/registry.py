"""The session stores a config file can name, by kind: `StoreEntry`, `register_store`, `make_store`.

``sessionStore.kind`` in config picks an entry; the entry's class is imported only
when the store is made, so ``aiosqlite`` / ``asyncpg`` load only for the store in use.
Adding a store is one module (a `SessionStore` that passes
`skawld_core.testing.run_session_store_conformance`) plus one `register_store` call.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .dsn import redact_dsn
from .store import SessionStore

__all__ = ["StoreConfig", "StoreEntry", "make_store", "register_store", "store_entry", "store_label"]


@dataclass(frozen=True)
class StoreConfig:
    """Where a store keeps its sessions, resolved from ``sessionStore`` in config."""

    kind: str = "sqlite"
    path: Path | None = None
    """The SQLite file (kind ``sqlite``), already resolved against `cwd`."""
    dsn: str | None = field(default=None, repr=False)  # a secret: never logged
    """The PostgreSQL connection string (kind ``postgres``)."""
    cwd: Path | None = None


@dataclass(frozen=True)
class StoreEntry:
    """One store a config file can name as ``sessionStore.kind``."""

    kind: str
    target: str
    """``"package.module:ClassName"``, imported when the store is made."""
    build: Callable[[Any, StoreConfig], SessionStore]
    """Makes the store from its class and the config."""
    label: Callable[[StoreConfig], str]
    """Where the sessions are, safe to print (no secret)."""

    def load(self) -> Any:
        """The store class (imports its module, and only that one)."""
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(module), name)


_STORES: dict[str, StoreEntry] = {}


def register_store(entry: StoreEntry) -> None:
    """Make `entry` available as ``sessionStore.kind`` (an entry of the same kind is replaced)."""
    _STORES[entry.kind] = entry


def store_entry(kind: str) -> StoreEntry:
    """The entry registered as `kind`; `ConfigError` naming the known kinds if none is."""
    entry = _STORES.get(kind)
    if entry is None:
        raise ConfigError(f"Unknown session store kind {kind!r} (expected one of: {', '.join(_STORES)})")
    return entry


def make_store(config: StoreConfig) -> SessionStore:
    """The session store `config` names (raises `ConfigError` for a store it cannot make)."""
    entry = store_entry(config.kind)
    return entry.build(entry.load(), config)


def store_label(config: StoreConfig) -> str:
    """Where sessions are stored, safe to print (a DSN's password is redacted)."""
    return store_entry(config.kind).label(config)


def _postgres(cls: Any, config: StoreConfig) -> SessionStore:
    if not config.dsn:
        raise ConfigError(
            "Invalid config (/sessionStore/dsn): required for a PostgreSQL store "
            "(postgresql://user@host/db); set sessionStore.dsn or SKAWLD_DATABASE_URL"
        )
    store: SessionStore = cls(config.dsn)
    return store


def _file_label(config: StoreConfig) -> str:
    return str(config.path) if config.path else "(memory)"


register_store(
    StoreEntry(
        "sqlite", "skawld_core.sessions.sqlite:SqliteSessionStore", lambda cls, c: cls(c.path, cwd=c.cwd), _file_label
    )
)
register_store(
    StoreEntry(
        "postgres",
        "skawld_core.sessions.postgres:PostgresSessionStore",
        _postgres,
        lambda c: f"PostgreSQL {redact_dsn(c.dsn or '')}",
    )
)
register_store(
    StoreEntry("memory", "skawld_core.sessions.memory:InMemorySessionStore", lambda cls, c: cls(), lambda c: "(memory)")
)
