"""Search filter globs for Glob and Grep: which part of a path a pattern matches.

The glob syntax itself (the `SEARCH` dialect) lives in `skawld_core.globs`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from ..globs import compile_glob, has_magic


@dataclass(frozen=True)
class PathGlob:
    """A search filter glob: without a slash it matches the file name at any depth;
    with one it matches the path relative to the search root."""

    pattern: str
    anchored: bool = False

    @property
    def basename_only(self) -> bool:
        """True when only the file name is matched (no slash, not anchored)."""
        return not self.anchored and "/" not in self.stripped

    @property
    def stripped(self) -> str:
        """The pattern with a leading `**/` (and `/`) removed when that leaves no slash."""
        p = self.pattern.lstrip("/")
        while p.startswith("**/"):
            rest = p[3:]
            if "/" in rest:
                break
            p = rest
        return p

    @property
    def last_segment(self) -> str | None:
        """The file-name constraint (last segment) unless it is `**`."""
        last = self.stripped.rsplit("/", 1)[-1]
        return None if last in ("", "**") else last

    @cached_property
    def matcher(self) -> Callable[[str], bool]:
        """A fast predicate over `/`-separated paths relative to the search root."""
        if self.basename_only:
            by_name = compile_glob(self.stripped).match
            return lambda rel: by_name(rel[rel.rfind("/") + 1 :]) is not None
        by_path = compile_glob(self.pattern.lstrip("/")).match
        return lambda rel: by_path(rel) is not None

    def matches(self, rel: str) -> bool:
        """Match a `/`-separated path relative to the search root."""
        return self.matcher(rel)


def split_static_prefix(pattern: str) -> tuple[str, str]:
    """Split `src/app/**/*.py` into (`src/app`, `**/*.py`); the prefix has no glob syntax."""
    parts = pattern.split("/")
    static: list[str] = []
    while len(parts) > 1 and not has_magic(parts[0]):
        static.append(parts.pop(0))
    prefix = "/".join(static)
    if pattern.startswith("/") and not prefix:
        prefix = "/"
    return prefix, "/".join(parts)
