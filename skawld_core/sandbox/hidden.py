"""Which files and folders the sandbox hides: those a Read deny rule covers.

The deny patterns are expanded against the file system at launch: each
pattern's literal prefix is walked (at most `WALK_LIMIT` entries in all), an
entry that matches a pattern is confirmed with the permission engine's own
answer (so rule order and allow rules count), and what is denied is hidden. A
denied folder is hidden whole and not walked further. Negated patterns
(`!src/**`) are not expanded, and files created after the launch are not
hidden.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..globs import PATH_RULE, compile_glob

__all__ = ["WALK_LIMIT", "HiddenPaths", "hidden_paths", "static_base"]

WALK_LIMIT = 20_000
_GLOB_CHARS = frozenset("*?[{\\")
# Never walked: they hold no secrets of the project and can be huge.
_SKIP_DIRS = frozenset({"node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


@dataclass
class HiddenPaths:
    """Files to cover with an empty file, folders to cover with an empty tmpfs.
    `truncated` is set when the walk stopped at its limit."""

    files: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    truncated: bool = False


def _anchored(pattern: str, root: Path) -> str:
    if pattern.startswith("~"):
        pattern = os.path.expanduser(pattern)
    if pattern.startswith("/"):
        return pattern
    rel = pattern[2:] if pattern.startswith("./") else pattern
    return str(root).rstrip("/") + "/" + rel


def static_base(pattern: str, root: Path) -> Path | None:
    """The literal leading directory of a glob pattern, absolute; None for a negation."""
    if pattern.startswith("!"):
        return None
    literal: list[str] = []
    for part in _anchored(pattern, root).split("/"):
        if any(c in _GLOB_CHARS for c in part):
            break
        literal.append(part)
    return Path("/".join(literal) or "/")


def hidden_paths(
    patterns: Iterable[str], root: Path, denied: Callable[[Path], bool], limit: int = WALK_LIMIT
) -> HiddenPaths:
    """Walk each pattern's literal base and collect what `denied` confirms."""
    wanted = [p for p in patterns if not p.startswith("!")]
    # (a cheap test on the entry's name, the full pattern); `**` at the end can match any name.
    tests: list[tuple[re.Pattern[str] | None, re.Pattern[str]]] = []
    for p in wanted:
        full = _anchored(p, root)
        last = full.rsplit("/", 1)[-1]
        quick = None if "**" in last else compile_glob(last, PATH_RULE)
        tests.append((quick, compile_glob(full, PATH_RULE)))
    out = HiddenPaths()
    seen: set[str] = set()
    budget = limit

    def matches(path: str, name: str | None = None) -> bool:
        name = name if name is not None else path.rsplit("/", 1)[-1]
        return any((quick is None or quick.match(name)) and full.match(path) for quick, full in tests)

    def walk(directory: str) -> None:
        nonlocal budget
        try:
            entries = list(os.scandir(directory))
        except OSError:
            return
        for entry in entries:
            if budget <= 0:
                out.truncated = True
                return
            budget -= 1
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if matches(entry.path, entry.name) and denied(Path(entry.path)):
                (out.dirs if is_dir else out.files).append(entry.path)
            elif is_dir and entry.name not in _SKIP_DIRS:
                walk(entry.path)

    bases = sorted({b for p in wanted if (b := static_base(p, root)) is not None}, key=lambda b: len(b.parts))
    for base in bases:
        key = str(base)
        if any(key == s or key.startswith(s.rstrip("/") + "/") for s in seen):
            continue  # inside a base already walked
        seen.add(key)
        if not (base.exists() or base.is_symlink()):
            continue
        if matches(key) and denied(base):
            (out.dirs if base.is_dir() and not base.is_symlink() else out.files).append(key)
        elif base.is_dir():
            walk(key)
    return out
