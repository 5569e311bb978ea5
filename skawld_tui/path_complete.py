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


FILE_CAP = 20_000  # files listed per prompt; a huge tree is cut, not walked to the end


async def list_project_files(root: Path, cap: int = FILE_CAP) -> list[str]:
    """Project files relative to `root`, ignore rules applied (like the Glob tool:
    `rg --files` when ripgrep is there, else skawld's own walker), newest first."""
    import asyncio
    from itertools import islice

    from skawld_core.tools.file_search import FileQuery, list_files_with_mtime_rg
    from skawld_core.tools.ignore import walk_files
    from skawld_core.tools.ripgrep import find_rg

    if find_rg() is not None:
        try:
            items = await list_files_with_mtime_rg(FileQuery(root=root))
        except Exception:  # rg failed: the walker still answers
            pass
        else:
            items.sort(key=lambda item: -item[1])
            return [rel for rel, _ in items[:cap]]
    return await asyncio.to_thread(lambda: list(islice(walk_files(str(root)), cap)))


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


def fuzzy_files(files: list[str], query: str, limit: int = 12) -> list[str]:
    """The `limit` best fuzzy matches of `query` in `files` (ties keep list order)."""
    scored: list[tuple[float, int, str]] = []
    for i, path in enumerate(files):
        score = fuzzy_score(query, path)
        if score is not None:
            scored.append((-score, i, path))
    scored.sort()
    return [path for _, _, path in scored[:limit]]


def at_options(cwd: Path, token: str, files: list[str] | None, limit: int = 12) -> list[str]:
    """What the `@` dropdown lists for `token`: directories completing it by
    prefix (to walk the tree), then files ranked by fuzzy match."""
    dirs = [p for p in complete_path(cwd, token, limit=limit) if p.endswith("/")][:4]
    if files is None:  # still listing: the prefix completion answers meanwhile
        return complete_path(cwd, token, limit=limit)
    ranked = fuzzy_files(files, token, limit=limit)
    return (dirs + [p for p in ranked if p not in dirs])[:limit]
