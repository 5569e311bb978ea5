"""Glob patterns (gitignore / ripgrep semantics) compiled to Python regexes.

`*` and `?` never cross `/`; `**` as a whole segment spans directories; `[...]`
classes (`!` or `^` negates) and `{a,b}` alternation are supported; `\\` escapes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property, lru_cache

_META = frozenset("*?[{\\")


def has_magic(segment: str) -> bool:
    """True when a path segment contains glob syntax."""
    return any(c in _META for c in segment)


def _class(glob: str, i: int) -> tuple[str, int]:
    """Translate a `[...]` class starting at `glob[i] == '['`; return (regex, next index)."""
    j = i + 1
    negate = j < len(glob) and glob[j] in "!^"
    if negate:
        j += 1
    start = j
    if j < len(glob) and glob[j] == "]":
        j += 1
    while j < len(glob) and glob[j] != "]":
        j += 1
    if j >= len(glob):
        return re.escape("["), i + 1
    body = glob[start:j].replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[")
    return (f"[^/{body}]" if negate else f"[{body}]"), j + 1


def _split_alternatives(body: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for c in body:
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        depth += c == "{"
        depth -= c == "}"
        cur.append(c)
    parts.append("".join(cur))
    return parts


def _brace_end(glob: str, i: int) -> int:
    depth = 0
    for j in range(i, len(glob)):
        if glob[j] == "{":
            depth += 1
        elif glob[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def translate(glob: str) -> str:
    """The regex body (no anchors) equivalent to `glob`."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*":
            if glob.startswith("**", i):
                j = i + 2
                whole = (i == 0 or glob[i - 1] == "/") and (j == n or glob[j] == "/")
                if whole and j == n:
                    out.append(".*")
                    i = j
                    continue
                if whole:
                    out.append("(?:.*/)?")
                    i = j + 1
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            part, i = _class(glob, i)
            out.append(part)
            continue
        elif c == "{":
            end = _brace_end(glob, i)
            if end < 0:
                out.append(re.escape(c))
            else:
                alts = _split_alternatives(glob[i + 1 : end])
                out.append("(?:" + "|".join(translate(a) for a in alts) + ")")
                i = end + 1
                continue
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@lru_cache(maxsize=512)
def compile_glob(glob: str) -> re.Pattern[str]:
    """A compiled, fully anchored regex for `glob`."""
    return re.compile(rf"(?s:{translate(glob)})\Z")


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
