"""`@path` completion: find the `@token` at the cursor and list matching paths."""

from __future__ import annotations

import asyncio
import heapq
import os
import re
from pathlib import Path

from skawld_core.file_index.listed import shared_listing

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


def project_files(root: Path) -> list[str]:
    """Every project file relative to `root`, ignore rules applied (the listing
    Glob reads: skawld_core's shared file index, walked once and kept current).
    Blocking: call it from a thread."""
    return list(shared_listing(root).files())


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


class FileIndex:
    """A project listing ranked by `fuzzy_score`, fast enough per key press.

    Matches are found in tiers (the query inside a file name, inside the path,
    then as a subsequence) and only the tiers needed to fill `limit` are scored;
    the subsequence search is one compiled regex per query, and a query that
    extends the previous one searches only the previous query's matches.
    """

    def __init__(self, files: list[str]) -> None:
        self.files = files
        self.lowered = [f.lower() for f in files]
        self._last: tuple[str, list[int]] | None = None

    def rank(self, query: str, limit: int = 12) -> list[str]:
        """The `limit` best matches of `query` (ties keep listing order: newest first)."""
        if not query:
            return self.files[:limit]
        q = query.lower()
        pool = self._pool(q)
        files, lowered = self.files, self.lowered
        best: list[tuple[float, int]] = []
        rest: list[int] = []
        for i in pool:  # the substring tiers score in closed form (as `fuzzy_score` does)
            p = lowered[i]
            cut = p.rfind("/") + 1
            at = p.find(q, cut)
            if at >= 0:
                best.append((-(1000.0 - len(p) + (200.0 if at == cut else 0.0)), i))
            elif (at := p.find(q)) >= 0:
                best.append((-(600.0 - len(p) + (50.0 if at == 0 or p[at - 1] in "/_-." else 0.0)), i))
            else:
                rest.append(i)
        if len(best) < limit:
            for i in rest:
                score = fuzzy_score(q, files[i])
                if score is not None:
                    best.append((-score, i))
        return [files[i] for _, i in heapq.nsmallest(limit, best)]

    def _pool(self, q: str) -> list[int]:
        last = self._last
        base = last[1] if last is not None and q.startswith(last[0]) else range(len(self.lowered))
        lowered = self.lowered
        if len(q) == 1:
            pool = [i for i in base if q in lowered[i]]
        else:
            search = re.compile(".*?".join(re.escape(ch) for ch in q)).search
            pool = [i for i in base if search(lowered[i])]
        self._last = (q, pool)
        return pool


def fuzzy_files(files: list[str], query: str, limit: int = 12) -> list[str]:
    """The `limit` best fuzzy matches of `query` in `files` (ties keep list order)."""
    return FileIndex(files).rank(query, limit)


def at_options(cwd: Path, token: str, files: FileIndex | None, limit: int = 12) -> list[str]:
    """What the `@` dropdown lists for `token`: directories completing it by
    prefix (to walk the tree), then files ranked by fuzzy match."""
    if files is None:  # still listing: the prefix completion answers meanwhile
        return complete_path(cwd, token, limit=limit)
    dirs = [p for p in complete_path(cwd, token, limit=limit) if p.endswith("/")][:4]
    ranked = files.rank(token, limit=limit)
    return (dirs + [p for p in ranked if p not in dirs])[:limit]
