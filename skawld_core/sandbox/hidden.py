"""Which files and folders the sandbox hides: those a Read deny rule covers.

The deny patterns are expanded against the file system at launch: each
pattern's literal prefix is walked (bounded by `WALK_LIMIT` entries in all) and
every entry the rules deny is hidden. A folder that is denied is hidden whole
and not walked further. Files created after the launch are not hidden.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["WALK_LIMIT", "HiddenPaths", "hidden_paths", "static_base"]

WALK_LIMIT = 20_000
_GLOB_CHARS = frozenset("*?[{\\")
# Never walked: they hold no secrets of the project and can be huge.
_SKIP_DIRS = frozenset({"node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


@dataclass
class HiddenPaths:
    """Files to cover with an empty file, folders to cover with an empty tmpfs."""

    files: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    truncated: bool = False


def static_base(pattern: str, root: Path) -> Path | None:
    """The literal leading directory of a glob pattern, absolute; None for a negation."""
    if pattern.startswith("!"):
        return None
    if pattern.startswith("~"):
        pattern = os.path.expanduser(pattern)
    parts = pattern.split("/")
    literal: list[str] = []
    for part in parts:
        if any(c in _GLOB_CHARS for c in part):
            break
        literal.append(part)
    prefix = "/".join(literal) if literal else ""
    if pattern.startswith("/"):
        return Path(prefix or "/")
    return root / prefix if prefix else root


def hidden_paths(
    patterns: Iterable[str], root: Path, denied: Callable[[Path], bool], limit: int = WALK_LIMIT
) -> HiddenPaths:
    """Walk each pattern's literal base and collect what `denied` says to hide."""
    out = HiddenPaths()
    seen: set[str] = set()
    budget = [limit]

    def visit(path: Path) -> None:
        key = str(path)
        if key in seen or budget[0] <= 0:
            out.truncated = out.truncated or budget[0] <= 0
            return
        seen.add(key)
        budget[0] -= 1
        try:
            is_dir = path.is_dir() and not path.is_symlink()
            exists = path.exists() or path.is_symlink()
        except OSError:
            return
        if not exists:
            return
        if denied(path):
            (out.dirs if is_dir else out.files).append(key)
            return
        if not is_dir or path.name in _SKIP_DIRS:
            return
        try:
            children = sorted(os.scandir(path), key=lambda e: e.name)
        except OSError:
            return
        for entry in children:
            visit(Path(entry.path))

    bases = {b for p in patterns if (b := static_base(p, root)) is not None}
    # Walk shallow bases first so a base inside another is not walked twice.
    for base in sorted(bases, key=lambda b: len(b.parts)):
        visit(base)
    return out
