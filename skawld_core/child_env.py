"""The environment every child process skawld starts gets: the parent's, minus secrets.

Bash, shell hooks and MCP stdio servers must not see the provider keys (a
model can print them with `env`, and the output lands in the transcript). A
variable is a secret by its name (`is_secret_name`: ends in `_KEY`, `_PAT`,
`_AUTH`, `_CREDENTIALS`, `_DSN`, `_PWD`, starts with `AUTH_`, or contains
`TOKEN`, `SECRET`, `PASSWORD`, `PASSWD`, `WEBHOOK`, `APIKEY`, `ACCESS_KEY`,
`PRIVATE_KEY`; case-insensitive) or by its value (`has_url_password`: a URL
that carries a password, like `postgres://user:pw@host/db`, anywhere in the
value, or one too malformed to tell; `Bearer …`/`Basic …` credentials). Names
listed in `passthrough` (exact names or globs) are kept anyway. A list of
names is never complete: the sandbox, not this scrub, is what protects.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

__all__ = ["SECRET_PATTERNS", "child_environment", "has_url_password", "is_secret", "is_secret_name"]

SECRET_PATTERNS: tuple[str, ...] = (
    "*_KEY",
    "*_PAT",
    "*_AUTH",
    "*_CREDENTIALS",
    "*_DSN",
    "*TOKEN*",
    "*SECRET*",
    "*PASSWORD*",
    "*PASSWD*",
    "*WEBHOOK*",
    "*_PWD",
    "AUTH_*",
    "*APIKEY*",
    "*ACCESS_KEY*",
    "*PRIVATE_KEY*",
)
# Names a pattern matches that hold no secret (Hugging Face's tokenizers switch).
_NOT_SECRET = ("*TOKENIZER*",)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s,;]+")
_AUTH_SCHEMES = ("bearer ", "basic ", "token ")


def is_secret_name(name: str) -> bool:
    """True when `name` looks like a credential variable."""
    upper = name.upper()
    if any(fnmatch.fnmatchcase(upper, pattern) for pattern in _NOT_SECRET):
        return False
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_PATTERNS)


def has_url_password(value: str) -> bool:
    """True when `value` holds a URL with a password in it (`scheme://user:password@host`),
    anywhere in it (``db=postgres://u:pw@h``, a list of URLs); a URL with an ``@`` that
    cannot be parsed counts too (fail closed)."""
    if "://" not in value or "@" not in value:
        return False
    for match in _URL.finditer(value):
        part = match.group(0)
        try:
            if urlsplit(part).password:
                return True
        except ValueError:
            if "@" in part:
                return True
    return False


def is_secret(name: str, value: str) -> bool:
    """True when the variable is a secret by its name or by its value."""
    return is_secret_name(name) or has_url_password(value) or value.lstrip().lower().startswith(_AUTH_SCHEMES)


def _passes(name: str, passthrough: Iterable[str]) -> bool:
    return any(name == p or fnmatch.fnmatchcase(name, p) for p in passthrough)


def child_environment(
    passthrough: Iterable[str] = (),
    *,
    base: Mapping[str, str] | None = None,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """`base` (default `os.environ`) without secret-looking variables, except the
    `passthrough` names, then `extra` on top (explicit values are kept as given)."""
    keep = tuple(passthrough)
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if not is_secret(k, v) or _passes(k, keep)}
    if extra:
        env.update(extra)
    return env
