"""`@path` completion: find the `@token` at the cursor and list matching paths."""

from __future__ import annotations

import asyncio
import heapq
import os
import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate, islice
from pathlib import Path

from skawld_core.file_index.listed import shared_listing, warm_listing
from skawld_core.file_index.registry import ready_tree
from skawld_core.tools.file_search import list_all_files_rg

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


def project_files(root: Path, *, warm: bool = True) -> list[str]:
    """Every project file relative to `root`, ignore rules applied (the listing
    Glob reads: skawld_core's shared file index, walked once and kept current).
    While the index is not walked yet, `rg --files` lists them (same filters,
    native and parallel) and, with `warm`, the index is walked in the background.
    Blocking: call it from a thread."""
    if ready_tree(root) is None:
        listed = list_all_files_rg(root)
        if listed is not None:
            if warm:
                warm_listing(root)
            return listed
    return list(shared_listing(root).files())


def build_file_index(root: Path) -> FileIndex:
    """The project's `FileIndex`; the file index is walked in the background only
    after it is built (the walk would compete for the GIL). Blocking."""
    index = FileIndex(project_files(root, warm=False))
    if ready_tree(root) is None:
        warm_listing(root)
    return index


async def list_project_files(root: Path) -> list[str]:
    """`project_files` in a thread (every file: none is cut off)."""
    return await asyncio.to_thread(project_files, root)


def fuzzy_score(query: str, path: str) -> float | None:
    """How well `query` matches `path` (higher is better), None when it does not.

    Every query character must appear in order. A match inside the file name
    beats one spread over directories; contiguous runs, matches at word starts
    (after `/`, `_`, `-`, `.`) and short paths score higher.
    """
    if not query:
        return 0.0
    q, p = query.lower(), path.lower()
    name_start = p.rfind("/") + 1
    name = p[name_start:]
    if q in name:
        return 1000.0 - len(p) + (200.0 if name.startswith(q) else 0.0)
    if q in p:
        at = p.find(q)
        return 600.0 - len(p) + (50.0 if at == 0 or p[at - 1] in "/_-." else 0.0)
    score = 300.0 - len(p)
    pos = -1
    for ch in q:
        nxt = p.find(ch, pos + 1)
        if nxt < 0:
            return None
        if nxt == pos + 1:
            score += 8
        elif nxt > 0 and p[nxt - 1] in "/_-.":
            score += 5
        else:
            score -= min(nxt - pos, 10)
        if nxt >= name_start:
            score += 2
        pos = nxt
    return score


# Ranking leaves the UI thread above this many files (a regex scan of the whole
# listing costs ~5 ms per 5,000 paths), and subsequence ranking above the second.
QUICK_LISTING = 5_000
QUICK_SUBSEQUENCE = 2_000


class FileIndex:
    """A project listing ranked by `fuzzy_score`, fast at any size per key press.

    The listing is kept as one lower-cased text, one path per line, shortest
    paths first, and searched with compiled regexes (C speed), so a key press
    costs what the few best matches cost, not what the whole listing costs.
    Within each kind of match (query at the start of the file name, inside the
    name, at a word start of the path, inside the path) scores fall as paths
    grow, so the first `limit` lines of each kind hold the best ones. Subsequence
    matches are scored only when fewer than `limit` paths contain the query, and
    a query that extends the previous one rescores only the previous query's
    subsequence matches. The result is exactly `fuzzy_score`'s order (ties keep
    listing order).
    """

    def __init__(self, files: list[str]) -> None:
        self.files = files
        self._order = sorted(range(len(files)), key=lambda i: len(files[i]))  # stable: ties keep listing order
        self._lines = [files[i].lower() for i in self._order]
        # Every line starts after a newline, so "at a word start" is a character class, not an assertion
        # (a pattern that begins with a literal or a class is scanned for fast; one that begins with `^` is not).
        self._text = "\n" + "\n".join(self._lines) + "\n"
        self._starts = list(accumulate((len(line) + 1 for line in self._lines), initial=1))
        self._subsequence: tuple[str, list[int]] | None = None

    def rank(self, query: str, limit: int = 12) -> list[str]:
        """The `limit` best matches of `query` (ties keep listing order)."""
        ranked = self._rank(query, limit, quick=False)
        assert ranked is not None
        return ranked

    def quick_rank(self, query: str, limit: int = 12) -> list[str] | None:
        """`rank`, or None when it could take more than a few milliseconds (a large
        listing, or subsequence matches to score): rank off the UI thread then."""
        return self._rank(query, limit, quick=True)

    def _rank(self, query: str, limit: int, *, quick: bool) -> list[str] | None:
        if not query:
            return self.files[:limit]
        if quick and len(self.files) > QUICK_LISTING:
            return None
        q = query.lower()
        scored: dict[int, float] = {}  # line -> score
        in_name = self._first_lines(_in_name(q), limit) if "/" not in q else []
        in_name += self._first_lines(_name_start(q), limit) if "/" not in q else []
        for j in in_name:
            scored[j] = _substring_score(q, self._lines[j])
        worst = _worst(scored, limit)
        total = len(scored)
        exhausted = True
        for pattern, kind in ((_word_start(q), "word start"), (re.compile(re.escape(q)), None)):
            found = 0
            for j in self._lines_matching(pattern):
                line = self._lines[j]
                if worst is not None and 650.0 - len(line) < worst:
                    exhausted = False
                    break
                if j in scored or ("/" not in q and line.find(q, line.rfind("/") + 1) >= 0):
                    continue  # a file-name match, scored above
                scored[j] = score = _substring_score(q, line)
                found += kind is None or score == 650.0 - len(line)  # a word-start pattern hit may start later
                if found >= limit:
                    exhausted = False
                    break
            total = len(scored)
            worst = _worst(scored, limit)
        if exhausted and total < limit:
            if quick and len(self.files) > QUICK_SUBSEQUENCE:
                return None
            for j in self._subsequence_lines(q):
                if j not in scored:
                    fuzzy = fuzzy_score(q, self._lines[j])
                    if fuzzy is not None:
                        scored[j] = fuzzy
        order = self._order
        best = heapq.nsmallest(limit, ((-score, order[j]) for j, score in scored.items()))
        return [self.files[i] for _, i in best]

    def _line_of(self, offset: int) -> int:
        return bisect_right(self._starts, offset) - 1

    def _lines_matching(self, pattern: re.Pattern[str]) -> Iterator[int]:
        """Lines with a match, each once, shortest first (a match may begin on the
        character before its line's first: the newline)."""
        last = -1
        for m in pattern.finditer(self._text):
            j = self._line_of(m.start() + 1)
            if j != last:
                last = j
                yield j

    def _first_lines(self, pattern: re.Pattern[str], limit: int) -> list[int]:
        return list(islice(self._lines_matching(pattern), limit))

    def _subsequence_lines(self, q: str) -> list[int]:
        last = self._subsequence
        if last is not None and q.startswith(last[0]):
            search = _subsequence(q).search
            lines = [j for j in last[1] if search(self._lines[j])]
        else:
            lines = list(self._lines_matching(_subsequence(q)))
        self._subsequence = (q, lines)
        return lines


def _in_name(q: str) -> re.Pattern[str]:
    return re.compile(re.escape(q) + r"[^/\n]*$", re.M)


def _name_start(q: str) -> re.Pattern[str]:
    return re.compile(r"[/\n]" + re.escape(q) + r"[^/\n]*$", re.M)


def _word_start(q: str) -> re.Pattern[str]:
    return re.compile(r"[/_.\-\n]" + re.escape(q))


def _subsequence(q: str) -> re.Pattern[str]:
    return re.compile("[^\n]*?".join(re.escape(ch) for ch in q))


def _substring_score(q: str, p: str) -> float:
    """`fuzzy_score` of a path (lower case) that contains `q`, in closed form."""
    cut = p.rfind("/") + 1
    at = p.find(q, cut)
    if at >= 0:
        return 1000.0 - len(p) + (200.0 if at == cut else 0.0)
    at = p.find(q)
    return 600.0 - len(p) + (50.0 if at == 0 or p[at - 1] in "/_-." else 0.0)


def _worst(scored: dict[int, float], limit: int) -> float | None:
    """The `limit`-th best score so far, None while there are fewer."""
    if len(scored) < limit:
        return None
    return heapq.nlargest(limit, scored.values())[-1]


def fuzzy_files(files: list[str], query: str, limit: int = 12) -> list[str]:
    """The `limit` best fuzzy matches of `query` in `files` (ties keep list order)."""
    return FileIndex(files).rank(query, limit)


def at_options(cwd: Path, token: str, files: FileIndex | None, limit: int = 12) -> list[str]:
    """What the `@` dropdown lists for `token`: directories completing it by
    prefix (to walk the tree), then files ranked by fuzzy match."""
    options = _at_options(cwd, token, files, limit, quick=False)
    assert options is not None
    return options


def quick_at_options(cwd: Path, token: str, files: FileIndex | None, limit: int = 12) -> list[str] | None:
    """`at_options`, or None when ranking would take long: call `at_options`
    in a thread then, and show `complete_path`'s answer meanwhile."""
    return _at_options(cwd, token, files, limit, quick=True)


def _at_options(cwd: Path, token: str, files: FileIndex | None, limit: int, *, quick: bool) -> list[str] | None:
    if files is None:  # still listing: the prefix completion answers meanwhile
        return complete_path(cwd, token, limit=limit)
    ranked = files._rank(token, limit, quick=quick)
    if ranked is None:
        return None
    dirs = [p for p in complete_path(cwd, token, limit=limit) if p.endswith("/")][:4]
    return (dirs + [p for p in ranked if p not in dirs])[:limit]


async def load_file_index(root: Path) -> FileIndex:
    """The project's `FileIndex`, listed and prepared in a thread."""
    return await asyncio.to_thread(build_file_index, root)
