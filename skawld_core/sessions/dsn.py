"""Keeping a database DSN secret: redact its password before it is shown anywhere."""

from __future__ import annotations

import re
from urllib.parse import unquote

_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+", re.IGNORECASE)
_KV_PASSWORD = re.compile(r"(?P<head>(?<![?&])\bpassword\s*=\s*)(?P<pw>'(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)
_QUERY_PASSWORD = re.compile(r"(?P<head>[?&]password=)(?P<pw>[^&\s]*)", re.IGNORECASE)

REDACTED = "***"


def _url_parts(url: str) -> tuple[str, str, str | None, str] | None:
    """``(scheme://, user, password, rest)`` of a URL with userinfo, parsed the way libpq and
    urllib do: the userinfo ends at the *last* ``@`` (a password may hold ``@``, ``/`` or ``:``)."""
    scheme, sep, after = url.partition("://")
    if not sep or "@" not in after:
        return None
    userinfo, _, rest = after.rpartition("@")
    user, colon, password = userinfo.partition(":")
    return f"{scheme}://", user, password if colon else None, rest


def _redact_url(match: re.Match[str]) -> str:
    parts = _url_parts(match[0])
    if parts is None or parts[2] is None:
        return match[0]
    head, user, _, rest = parts
    return f"{head}{user}:{REDACTED}@{rest}"


def redact_dsn(text: str) -> str:
    """`text` with every DSN password (URL userinfo, ``?password=``, ``password=``) replaced by ``***``."""
    text = _URL.sub(_redact_url, text)
    text = _QUERY_PASSWORD.sub(lambda m: f"{m['head']}{REDACTED}", text)
    return _KV_PASSWORD.sub(lambda m: f"{m['head']}{REDACTED}", text)


def dsn_password(dsn: str) -> str | None:
    """The password written in `dsn` (URL or key=value form), if any."""
    parts = _url_parts(dsn.strip())
    if parts is not None and parts[2]:
        return unquote(parts[2])
    for pattern in (_QUERY_PASSWORD, _KV_PASSWORD):
        found = pattern.search(dsn)
        if found:
            return unquote(found["pw"].strip("'"))
    return None


def _password_pieces(dsn: str) -> list[str]:
    """The password as written and decoded, and the pieces a parser that splits the userinfo
    at another ``@``, ``:`` or ``/`` would quote in an error (``'w%rd'`` of ``p@ss:w%rd``),
    longest first."""
    password = dsn_password(dsn)
    pieces = {password} if password else set()
    parts = _url_parts(dsn.strip())
    if parts is not None and parts[2]:
        raw = parts[2]
        pieces |= {raw, *(p for p in re.split(r"[@:/]", raw) if len(p) >= 2)}
        pieces |= {unquote(p) for p in list(pieces)}
    return sorted(pieces, key=len, reverse=True)


def scrub(text: str, dsn: str) -> str:
    """`text` with `dsn`'s password removed wherever it appears (even outside a DSN), and
    any piece of it a parser may have quoted."""
    out = redact_dsn(text)
    for piece in _password_pieces(dsn):
        out = out.replace(piece, REDACTED)
    return out


def is_postgres_dsn(value: str) -> bool:
    """True for ``postgres://`` / ``postgresql://`` URLs."""
    return value.startswith(("postgres://", "postgresql://"))
