"""Glob patterns compiled to Python regexes: one tokenizer, two named dialects.

Both dialects share the syntax:

- `*` any run of characters except `/`; `?` one character except `/`;
- `**` as a whole path segment: zero or more segments (elsewhere it is `*`);
- `[abc]`, `[a-z]`, `[!abc]` / `[^abc]` classes, which never match `/`;
- `{a,b}` alternatives (nesting, and any syntax inside); an unbalanced `{` is literal;
- `\\x` a literal `x`; dot files are matched like any other name.

They differ only where the tools they imitate differ (`tests/core/test_globs.py`
states each difference as a table):

- `PATH_RULE` (picomatch, for permission path rules such as `Read(src/**)`):
  a trailing `/**` also matches the directory itself, so a rule on `secrets/**`
  covers `secrets`; `{a}` with a single alternative is literal text.
- `SEARCH` (gitignore / ripgrep, for Glob, Grep and ignore files): `a/**` matches
  only what is inside `a`; `{a}` is an alternation of one.

Compiled patterns are anchored with `\\Z` (never `$`, which also matches before a
trailing newline).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["PATH_RULE", "SEARCH", "GlobDialect", "compile_glob", "has_magic", "translate"]

_META = frozenset("*?[{\\")


@dataclass(frozen=True)
class GlobDialect:
    """The two places where glob dialects disagree."""

    name: str
    trailing_globstar_matches_dir: bool
    single_alternative_is_literal: bool


PATH_RULE = GlobDialect("path-rule", trailing_globstar_matches_dir=True, single_alternative_is_literal=True)
SEARCH = GlobDialect("search", trailing_globstar_matches_dir=False, single_alternative_is_literal=False)


def has_magic(segment: str) -> bool:
    """True when a path segment contains glob syntax."""
    return any(c in _META for c in segment)


# Tokens: ("lit", text) | ("star",) | ("qmark",) | ("globstar", followed_by_slash)
#       | ("class", regex) | ("brace", [alternative tokens...], raw_text)
_Token = tuple[object, ...]


def _tokenize(p: str, i: int, *, seg_start: bool, in_brace: bool) -> tuple[list[_Token], int]:
    """Tokens from `p[i:]`; inside braces, stop at an unnested `,` or `}`."""
    tokens: list[_Token] = []
    n = len(p)
    at_start = seg_start
    while i < n:
        c = p[i]
        if in_brace and c in ",}":
            break
        if c == "\\" and i + 1 < n:
            tokens.append(("lit", p[i + 1]))
            i += 2
        elif c == "*":
            j = i
            while j < n and p[j] == "*":
                j += 1
            at_end = j == n or p[j] == "/" or (in_brace and p[j] in ",}")
            if j - i >= 2 and at_start and at_end:
                slash = j < n and p[j] == "/"
                tokens.append(("globstar", slash))
                j += slash
            else:
                tokens.append(("star",))
            i = j
        elif c == "?":
            tokens.append(("qmark",))
            i += 1
        elif c == "[":
            cls, i = _char_class(p, i)
            tokens.append(cls)
        elif c == "{":
            brace, j = _brace(p, i, seg_start=at_start)
            tokens.append(brace if brace is not None else ("lit", "{"))
            i = j
        else:
            tokens.append(("lit", c))
            i += 1
        at_start = tokens[-1] == ("lit", "/") or (tokens[-1][0] == "globstar" and bool(tokens[-1][1]))
    return tokens, i


def _brace(p: str, i: int, *, seg_start: bool) -> tuple[_Token | None, int]:
    """`{a,b,...}` starting at `p[i] == "{"`; None (and i + 1) when unbalanced."""
    alternatives: list[list[_Token]] = []
    j = i + 1
    while True:
        part, j = _tokenize(p, j, seg_start=seg_start, in_brace=True)
        alternatives.append(part)
        if j >= len(p):
            return None, i + 1
        if p[j] == "}":
            break
        j += 1  # the ","
    return ("brace", alternatives, p[i : j + 1]), j + 1


def _char_class(p: str, i: int) -> tuple[_Token, int]:
    """`[...]` starting at `p[i] == "["`; an unterminated `[` is literal."""
    j = i + 1
    negate = j < len(p) and p[j] in "!^"
    j += negate
    start = j
    if j < len(p) and p[j] == "]":
        j += 1
    while j < len(p) and p[j] != "]":
        j += 1
    if j >= len(p):
        return ("lit", "["), i + 1
    body = "".join("\\" + ch if ch in "\\^[]" else ch for ch in p[start:j])
    return ("class", f"[^/{body}]" if negate else f"(?!/)[{body}]"), j + 1


def _render(tokens: list[_Token], dialect: GlobDialect) -> str:
    out: list[str] = []
    for k, token in enumerate(tokens):
        kind = token[0]
        if kind == "lit":
            out.append(re.escape(str(token[1])))
        elif kind == "star":
            out.append("[^/]*")
        elif kind == "qmark":
            out.append("[^/]")
        elif kind == "class":
            out.append(str(token[1]))
        elif kind == "globstar":
            if token[1]:
                out.append("(?:[^/]*/)*")
            elif dialect.trailing_globstar_matches_dir and k > 0 and tokens[k - 1] == ("lit", "/"):
                out[-1] = "(?:/.*)?"
            else:
                out.append(".*")
        else:  # brace
            alternatives = token[1]
            assert isinstance(alternatives, list)
            if len(alternatives) < 2 and dialect.single_alternative_is_literal:
                out.append(re.escape(str(token[2])))
            else:
                out.append("(?:" + "|".join(_render(alt, dialect) for alt in alternatives) + ")")
    return "".join(out)


def translate(pattern: str, dialect: GlobDialect = SEARCH) -> str:
    """The regex source (no anchors) equivalent to `pattern` in `dialect`."""
    tokens, _ = _tokenize(pattern, 0, seg_start=True, in_brace=False)
    return _render(tokens, dialect)


@lru_cache(maxsize=1024)
def compile_glob(pattern: str, dialect: GlobDialect = SEARCH) -> re.Pattern[str]:
    """A compiled regex for `pattern` matching whole `/`-separated paths (cached)."""
    return re.compile(rf"(?s:{translate(pattern, dialect)})\Z")
