"""Keeping a database DSN secret: redact its password before it is shown anywhere."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

_URL_PASSWORD = re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]*://[^/:@\s]*:)(?P<pw>[^@\s]*)(?P<tail>@)", re.IGNORECASE)
_KV_PASSWORD = re.compile(r"(?P<head>(?<![?&])\bpassword\s*=\s*)(?P<pw>'(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"(?P<head>[?&]password=)(?P<pw>[^&\s]*)", re.IGNORECASE)

REDACTED = "***"


def redact_dsn(text: str) -> str:
    """`text` with every DSN password (URL userinfo, ``?password=``, ``password=``) replaced by ``***``."""
    text = _URL_PASSWORD.sub(lambda m: f"{m['head']}{REDACTED}{m['tail']}", text)
    text = _QUERY_PASSWORD.sub(lambda m: f"{m['head']}{REDACTED}", text)
    return _KV_PASSWORD.sub(lambda m: f"{m['head']}{REDACTED}", text)


def dsn_password(dsn: str) -> str | None:
    """The password written in `dsn` (URL or key=value form), if any."""
    try:
        parts = urlsplit(dsn)
    except ValueError:
        parts = None
    if parts is not None and parts.scheme and parts.password:
        return unquote(parts.password)
    for pattern in (_QUERY_PASSWORD, _KV_PASSWORD):
        found = pattern.search(dsn)
        if found:
            return unquote(found["pw"].strip("'"))
    return None


def scrub(text: str, dsn: str) -> str:
    """`text` with `dsn`'s password removed wherever it appears (even outside a DSN)."""
    password = dsn_password(dsn)
    out = redact_dsn(text)
    if password:
        out = out.replace(password, REDACTED)
    return out


def is_postgres_dsn(value: str) -> bool:
    """True for ``postgres://`` / ``postgresql://`` URLs."""
    return value.startswith(("postgres://", "postgresql://"))
