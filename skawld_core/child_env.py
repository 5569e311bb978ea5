"""The environment every child process skawld starts gets: the parent's, minus secrets.

Bash, shell hooks and MCP stdio servers must not see the provider keys (a
model can print them with `env`, and the output lands in the transcript). A
variable is a secret when its name matches one of `SECRET_PATTERNS`
(case-insensitive); names listed in `passthrough` (exact names or globs) are
kept anyway.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping

__all__ = ["SECRET_PATTERNS", "child_environment", "is_secret_name"]

SECRET_PATTERNS: tuple[str, ...] = ("*_API_KEY", "*_TOKEN", "*SECRET*", "*PASSWORD*")


def is_secret_name(name: str) -> bool:
    """True when `name` looks like a credential variable."""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_PATTERNS)


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
    env = {k: v for k, v in source.items() if not is_secret_name(k) or _passes(k, keep)}
    if extra:
        env.update(extra)
    return env
