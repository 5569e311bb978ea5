"""A small picomatch-like glob → regex translator for path rules.

Supported syntax (dot files are always matched, as picomatch's `dot: true`):

- `*` any run of characters except `/`;
- `**` as a whole path segment: zero or more segments (`a/**` also matches `a`);
- `?` one character except `/`;
- `{a,b}` alternatives (may nest and contain other syntax);
- `[abc]`, `[a-z]`, `[!abc]` / `[^abc]` character classes (never match `/`);
- `\\x` a literal `x`.

A leading `!` (negation) is handled by the caller (`PathPattern`), not here.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["compile_glob", "glob_to_regex"]


def glob_to_regex(pattern: str) -> str:
    """Translate `pattern` into an anchored regular expression source."""
    out, _ = _translate(pattern, 0, in_brace=False)
    return "^" + out + "$"


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """Compile (and cache) the regex for a glob pattern."""
    return re.compile(glob_to_regex(pattern), re.DOTALL)


def _translate(p: str, i: int, *, in_brace: bool) -> tuple[str, int]:
    """Translate from index `i`; inside braces, stop at an unnested `,` or `}`."""
    out: list[str] = []
    n = len(p)
    while i < n:
        c = p[i]
        if in_brace and c in ",}":
            return "".join(out), i
        if c == "\\" and i + 1 < n:
            out.append(re.escape(p[i + 1]))
            i += 2
        elif c == "*":
            j = i
            while j < n and p[j] == "*":
                j += 1
            stars = j - i
            at_seg_start = i == 0 or p[i - 1] == "/"
            at_seg_end = j == n or p[j] == "/" or (in_brace and p[j] in ",}")
            if stars >= 2 and at_seg_start and at_seg_end:
                if j < n and p[j] == "/":
                    # `**/` : zero or more whole segments.
                    out.append("(?:[^/]*/)*")
                    j += 1
                elif out and out[-1].endswith("/"):
                    # trailing `/**`: the directory itself or anything below it.
                    out[-1] = out[-1][:-1]
                    out.append("(?:/.*)?")
                else:
                    out.append(".*")
            else:
                out.append("[^/]*")
            i = j
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            cls, j = _char_class(p, i)
            out.append(cls)
            i = j
        elif c == "{":
            alts, j = _brace(p, i)
            if alts is None:
                out.append(re.escape(c))
                i += 1
            else:
                out.append(alts)
                i = j
        else:
            out.append(re.escape(c) if c != "/" else "/")
            i += 1
    return "".join(out), i


def _brace(p: str, i: int) -> tuple[str | None, int]:
    """Parse `{a,b,...}` starting at `p[i] == "{"`; None when unbalanced or single."""
    alts: list[str] = []
    j = i + 1
    while True:
        part, j = _translate(p, j, in_brace=True)
        alts.append(part)
        if j >= len(p):
            return None, i
        if p[j] == "}":
            break
        j += 1  # skip ","
    if len(alts) < 2:
        return None, i
    return "(?:" + "|".join(alts) + ")", j + 1


def _char_class(p: str, i: int) -> tuple[str, int]:
    """Parse `[...]` starting at `p[i] == "["`; an unterminated `[` is literal."""
    j = i + 1
    negate = False
    if j < len(p) and p[j] in "!^":
        negate = True
        j += 1
    start = j
    if j < len(p) and p[j] == "]":
        j += 1
    while j < len(p) and p[j] != "]":
        j += 1
    if j >= len(p):
        return re.escape("["), i + 1
    body = p[start:j]
    parts: list[str] = []
    for ch in body:
        parts.append("\\" + ch if ch in "\\^[]" else ch)
    inner = "".join(parts)
    cls = f"[^/{inner}]" if negate else f"(?!/)[{inner}]"
    return cls, j + 1
