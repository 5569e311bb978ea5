"""Grep backends: ripgrep and a pure-Python fallback producing the same hits.

Both return `FileHits` per file (path relative to the search base, matching-line
count, and in content mode the numbered match and context lines), sorted by path.
Files containing a NUL byte are binary and skipped (in files_with_matches mode rg
still reports a match found before a NUL that lies past its first 64 KiB buffer;
the fallback imitates that).
"""

from __future__ import annotations

import asyncio
import bisect
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from .file_search import FileQuery, list_files_py, strip_root
from .ripgrep import run_rg
from .safe_open import Verify, open_verified

RG_FIRST_BUFFER = 64 * 1024
OutputMode = Literal["files_with_matches", "content", "count"]


@dataclass
class FileHits:
    """Hits in one file. `lines` holds (line number, is_match, text) in content mode."""

    rel: str
    count: int = 0
    lines: list[tuple[int, bool, str]] = field(default_factory=list)


@dataclass(frozen=True)
class GrepQuery:
    """A search. `target` is a single file to search instead of `files.root`'s tree."""

    files: FileQuery
    pattern: str
    mode: OutputMode = "files_with_matches"
    ignore_case: bool = False
    multiline: bool = False
    before: int = 0
    after: int = 0
    target: Path | None = None
    # Set when reads are restricted: every file is opened once and its real path checked.
    verify: Verify | None = field(default=None, compare=False)

    @property
    def base(self) -> Path:
        """The directory result paths are relative to."""
        return self.target.parent if self.target is not None else self.files.root


# -- ripgrep -----------------------------------------------------------------


def _rg_args(q: GrepQuery) -> list[str]:
    args = ["--null", "--no-heading", "--with-filename", "--color", "never"]
    if q.mode == "files_with_matches":
        args.append("--files-with-matches")
    elif q.mode == "count" and not q.multiline:
        args.append("--count")
    elif q.mode == "count":
        # rg's multiline --count is not a line count (matches sharing lines merge
        # differently); count the matching lines of content output instead.
        args.append("--line-number")
    else:
        args.append("--line-number")
        if q.after:
            args += ["-A", str(q.after)]
        if q.before:
            args += ["-B", str(q.before)]
    if q.ignore_case:
        args.append("--ignore-case")
    if q.multiline:
        args += ["--multiline", "--multiline-dotall"]
    if q.target is None:
        args += q.files.rg_filter_args()
    target = str(q.target if q.target is not None else q.files.root)
    return [*args, "-e", q.pattern, "--", target]


class _Paths:
    """Turns the paths rg prints into paths relative to the search base (memoised)."""

    def __init__(self, q: GrepQuery) -> None:
        self.target = q.target
        self.root = str(q.files.root)
        self.cut = len(self.root.rstrip("/")) + 1
        self.memo: dict[str, str] = {}

    def rel(self, raw: str) -> str:
        found = self.memo.get(raw)
        if found is None:
            if self.target is not None:
                found = self.target.name
            elif raw.startswith(self.root):
                found = raw[self.cut :]
            else:
                found = strip_root(raw, self.root)
            self.memo[raw] = found
        return found


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _clean(text: str) -> str:
    """Line text for display: undecodable bytes become U+FFFD, a trailing CR goes."""
    if text.endswith("\r"):
        text = text[:-1]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
    return text


_WARNING = ": WARNING: stopped searching binary file"


def _parse_content(stdout: bytes, paths: _Paths) -> dict[str, FileHits]:
    hits: dict[str, FileHits] = {}
    binary: set[str] = set()
    current: FileHits | None = None
    current_raw = None
    for line in _decode(stdout).split("\n"):
        raw, nul, rest = line.partition("\0")
        if not nul:
            if _WARNING in line:
                binary.add(paths.rel(line.split(": WARNING: ", 1)[0]))
            continue
        i = 0
        n = len(rest)
        while i < n and rest[i].isdigit():
            i += 1
        if i == 0 or i >= n or rest[i] not in ":-":
            continue
        if raw != current_raw:
            rel = paths.rel(raw)
            current = hits.get(rel)
            if current is None:
                current = hits[rel] = FileHits(rel)
            current_raw = raw
        assert current is not None
        is_match = rest[i] == ":"
        current.lines.append((int(rest[:i]), is_match, _clean(rest[i + 1 :])))
        current.count += is_match
    for rel in binary:
        hits.pop(rel, None)
    return hits


async def grep_rg(q: GrepQuery) -> list[FileHits]:
    """Search with rg; globs that rg cannot express exactly are post-filtered."""
    out = await run_rg(_rg_args(q), q.base)
    paths = _Paths(q)
    hits: dict[str, FileHits]
    if q.mode == "files_with_matches":
        hits = {r: FileHits(r, 1) for r in (paths.rel(p) for p in _decode(out.stdout).split("\0") if p)}
    elif q.mode == "count" and not q.multiline:
        hits = {}
        for entry in _decode(out.stdout).split("\n"):
            raw, sep, num = entry.rpartition("\0")
            if sep and num.isdigit():
                rel = paths.rel(raw)
                hits[rel] = FileHits(rel, int(num))
    else:
        hits = _parse_content(out.stdout, paths)
        if q.mode == "count":
            for fh in hits.values():
                fh.lines = []
    rels = sorted(hits)
    if q.target is None:
        rels = q.files.rg_post_filter(rels)
    return [hits[r] for r in rels]


# -- pure Python -----------------------------------------------------------------


_POSIX_CLASSES = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": "\\x00-\\x7F",
    "blank": "\\t ",
    "cntrl": "\\x00-\\x1F\\x7F",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_POSIX_RE = re.compile(r"\[:(" + "|".join(_POSIX_CLASSES) + r"):\]")
_END_RE = re.compile(r"(?<!\\)((?:\\\\)*)\\z")


def to_python_regex(pattern: str) -> str:
    """Translate the bits of rg (Rust) regex syntax Python spells differently:
    POSIX classes such as `[[:alpha:]]` and the `\\z` end anchor."""
    pattern = _POSIX_RE.sub(lambda m: _POSIX_CLASSES[m.group(1)], pattern)
    return _END_RE.sub(lambda m: m.group(1) + "\\Z", pattern)


def compile_pattern(q: GrepQuery) -> re.Pattern[str]:
    """The Python regex for the query; raises `re.error` for an invalid pattern."""
    flags = re.MULTILINE
    if q.ignore_case:
        flags |= re.IGNORECASE
    if q.multiline:
        flags |= re.DOTALL
    return re.compile(to_python_regex(q.pattern), flags)


def _matched_lines(regex: re.Pattern[str], text: str, lines: list[str], multiline: bool) -> list[int]:
    if not multiline:
        return [i for i, line in enumerate(lines) if regex.search(line)]
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    found: set[int] = set()
    for m in regex.finditer(text):
        first = bisect.bisect_right(starts, m.start()) - 1
        last = bisect.bisect_right(starts, max(m.start(), m.end() - 1)) - 1
        found.update(i for i in range(first, last + 1) if i < len(lines))
    return sorted(found)


def _with_context(matched: list[int], lines: list[str], before: int, after: int) -> list[tuple[int, bool, str]]:
    hit = set(matched)
    shown: set[int] = set()
    for i in matched:
        shown.update(range(max(0, i - before), min(len(lines), i + after + 1)))
    return [(i + 1, i in hit, _chomp(lines[i])) for i in sorted(shown)]


def _chomp(line: str) -> str:
    return line[:-1] if line.endswith("\r") else line


def _read(path: Path, verify: Verify | None) -> bytes:
    if verify is None:
        return path.read_bytes()
    fd, _ = open_verified(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0), verify)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file")
        return fh.read()


def search_file(path: Path, rel: str, regex: re.Pattern[str], q: GrepQuery) -> FileHits | None:
    """Search one file; `None` when it has no match, is binary, unreadable or refused by `q.verify`."""
    try:
        data = _read(path, q.verify)
    except OSError:  # OpenRefused included: a refused file is left out like an unreadable one
        return None
    nul = data.find(b"\0")
    if nul >= 0:
        # rg skips a file whose first buffer holds a NUL; past that, -l can still
        # report a match found before the NUL, while content and count modes drop it.
        if q.mode != "files_with_matches" or nul < RG_FIRST_BUFFER:
            return None
        data = data[:nul]
    text = data.decode("utf-8", errors="replace")
    if regex.search(text) is None:
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    matched = _matched_lines(regex, text, lines, q.multiline)
    if not matched:
        return None
    if q.mode != "content":
        return FileHits(rel, len(matched))
    return FileHits(rel, len(matched), _with_context(matched, lines, q.before, q.after))


def grep_py_sync(q: GrepQuery) -> list[FileHits]:
    """The fallback: walk like rg, then search each file with Python's `re`."""
    regex = compile_pattern(q)
    if q.target is not None:
        one = search_file(q.target, q.target.name, regex, q)
        return [one] if one else []
    results = []
    for rel in list_files_py(q.files):
        found = search_file(q.files.root / rel, rel, regex, q)
        if found:
            results.append(found)
    return results


async def grep_py(q: GrepQuery) -> list[FileHits]:
    """Run the fallback in a worker thread."""
    return await asyncio.to_thread(grep_py_sync, q)


def research_verified(q: GrepQuery, hits: list[FileHits]) -> list[FileHits]:
    """Search again, through checked descriptors, the files another backend reported.

    rg opens files itself, so what it read cannot be tied to a checked path;
    when reads are restricted its hits are recomputed from files opened once
    and verified (only files that matched are re-read).
    """
    regex = compile_pattern(q)
    out: list[FileHits] = []
    for hit in hits:
        path = q.target if q.target is not None else q.files.root / hit.rel
        found = search_file(path, hit.rel, regex, q)
        if found is not None:
            out.append(found)
    return out
