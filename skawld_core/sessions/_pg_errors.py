"""asyncpg's errors as `SessionStoreError`s: every one is caught (including
`InternalClientError`), its text scrubbed of the DSN's password, and marked
`retryable` when it is a fault that passes (a lost connection, a restarting or
read-only server, a statement timeout, a full disk), so callers such as
``skawld work`` can retry instead of failing."""

from __future__ import annotations

from typing import Any

from ..errors import SessionStoreError
from .dsn import redact_dsn, scrub

# SQLSTATE classes / codes of faults that pass: connection exceptions, operator
# intervention (admin/crash shutdown, cannot connect now), insufficient resources
# (disk full, out of memory, too many connections), system errors (I/O), statement
# timeout / cancel, read-only transaction, serialization failure and deadlock.
_TRANSIENT_CLASSES = ("08", "53", "57P", "58")
_TRANSIENT_CODES = frozenset({"57014", "25006", "40001", "40P01", "55P03"})


def caught(asyncpg: Any, *extra: type[BaseException]) -> tuple[type[BaseException], ...]:
    """Every exception type a call through asyncpg can raise for a database fault (and `extra`)."""
    return (
        *extra,
        OSError,
        TimeoutError,
        asyncpg.PostgresError,
        asyncpg.InterfaceError,
        asyncpg.exceptions._base.InternalClientError,
    )


def is_transient(exc: BaseException) -> bool:
    """True for a fault worth retrying (see the module doc)."""
    code = getattr(exc, "sqlstate", None)
    if isinstance(code, str) and code:
        return code in _TRANSIENT_CODES or code.startswith(_TRANSIENT_CLASSES)
    if isinstance(exc, OSError | TimeoutError | ConnectionError):
        return True
    name = type(exc).__name__
    if name == "InternalClientError":
        return True  # a protocol state broken by a lost connection; a new connection clears it
    # the connection was closed, or the pool took back a connection it saw die
    return name == "InterfaceError" and ("closed" in str(exc) or "released back to the pool" in str(exc))


def store_error(op: str, exc: BaseException, dsn: str) -> SessionStoreError:
    """`exc` as a `SessionStoreError` naming `op` and the redacted DSN (retryable when transient)."""
    detail = scrub(f"{type(exc).__name__}: {exc}", dsn)
    error = SessionStoreError(f"Session store {op} failed ({redact_dsn(dsn)}): {detail}")
    error.retryable = is_transient(exc)
    return error


def is_closed(conn: Any) -> bool:
    """True when `conn` is closed, or was taken back by the pool after it died."""
    try:
        return bool(conn.is_closed())
    except Exception:
        return True
