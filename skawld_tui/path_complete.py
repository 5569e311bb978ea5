"""`@path` completion: find the `@token` at the cursor and list matching paths."""

from __future__ import annotations

import os
import re
from pathlib import Path

_AT = re.compile(r"(?:^|(?<=\s))@([^\s@]*)$")
SKIP = frozenset({".git", "__pycache__", "node_modules", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


def at_token(text_before_cursor: str) -> str | None:
    """The partial path after an `@` that ends at the cursor, else None."""
    m = _AT.search(text_before_cursor)
    return m.group(1) if m else None


def complete_path(cwd: Path, partial: str, limit: int = 12) -> list[str]:
    """Paths under `cwd` completing `partial` (directories end in `/`), sorted."""
    head, _, stem = partial.rpartition("/")
    base = (cwd / head) if head else cwd
    try:
        base = base.resolve()
        if not base.is_dir():
            return []
        entries = list(os.scandir(base))
    except OSError:
        return []
    out: list[str] = []
    for entry in sorted(entries, key=lambda e: e.name):
        name = entry.name
        if name in SKIP or (name.startswith(".") and not stem.startswith(".")):
            continue
        if not name.lower().startswith(stem.lower()):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        out.append(f"{head + '/' if head else ''}{name}{'/' if is_dir else ''}")
        if len(out) >= limit:
            break
    return out
