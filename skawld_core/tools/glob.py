"""The Glob tool: files matching a glob, newest first."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from operator import itemgetter
from pathlib import Path

from pydantic import ConfigDict, Field

from ..file_index.listed import warm_listing
from ..file_index.registry import ready_tree
from ..model_base import SkawldModel
from .base import Tool, ToolContext, ToolResult, error_result
from .file_search import (
    FileQuery,
    SearchError,
    list_files_with_mtime,
    list_indexed_with_mtime,
    newest_files_rg,
    printable,
    readable_checker,
    real_root,
)
from .globmatch import PathGlob, split_static_prefix
from .path_policy import PathPolicy
from .paths import resolve_path
from .ripgrep import RipgrepError, find_rg

MAX_RESULTS = 1000


class GlobInput(SkawldModel):
    """Input of the Glob tool."""

    model_config = ConfigDict(extra="forbid")

    pattern: str = Field(min_length=1, description='Glob pattern, e.g. "**/*.py" or "src/**/*.ts".')
    path: str | None = Field(default=None, description="Directory to search in (default: the working directory).")


def plan(pattern: str, path: str | None, cwd: Path) -> tuple[Path, Path, PathGlob, str]:
    """(display root, search root, glob relative to the search root, prefix of results).

    An absolute pattern is split into its static base directory and the rest (its
    results are then absolute); a relative pattern's static leading directories
    narrow the search root too (its results stay relative to the root).
    """
    root = resolve_path(path or ".", cwd)
    if pattern.startswith("/"):
        base, rest = split_static_prefix(pattern)
        return Path(base), Path(base), PathGlob(rest or "**", anchored=True), base.rstrip("/") + "/"
    base, rest = split_static_prefix(pattern)
    if not base:
        return root, root, PathGlob(pattern), ""
    return root, root / base, PathGlob(rest or "**", anchored=True), base + "/"


class GlobTool(Tool[GlobInput]):
    """Find files by glob pattern; results are sorted by modification time, newest first."""

    name = "Glob"
    description = (
        "Find files by glob pattern (e.g. '**/*.py', 'src/**/*.ts'); a pattern without '/' matches file names "
        "at any depth. .gitignore is respected and hidden files are skipped. Returns paths relative to the "
        f"search directory, newest first, at most {MAX_RESULTS}."
    )
    scope = "read"
    path_policy = PathPolicy(("path",), "read", default_to_cwd=True)
    parallel_safe = True
    input_model = GlobInput

    def __init__(self, *, use_rg: bool | None = None, use_index: bool = True) -> None:
        """Searches under the working directory read the shared file index
        (`skawld_core.file_index`) unless `use_index` is False; other searches use
        rg (`use_rg=None`: when it is on PATH) or the Python fallback (`use_rg=False`)."""
        self.use_rg = use_rg
        self.use_index = use_index

    def summarize(self, value: GlobInput) -> str:
        """`Glob <pattern>` (and `in <path>`)."""
        return f"Glob {value.pattern}" + (f" in {value.path}" if value.path else "")

    async def execute(self, value: GlobInput, ctx: ToolContext) -> ToolResult:
        """List, filter by `can_read`, sort by mtime and cap."""
        display_root, search_root, glob, prefix = plan(value.pattern, value.path, ctx.cwd)
        if not display_root.is_dir():
            return _error(f"path is not a directory: {display_root}")
        if not search_root.is_dir():
            return ToolResult(content="No matches found.", summary="no matches")
        query = FileQuery(root=search_root, glob=glob)
        use_rg = find_rg() is not None if self.use_rg is None else self.use_rg
        # A process's first Glob does not wait for the index's walk: rg answers it, and
        # the index is walked in the background for the calls after it.
        cold = self.use_index and use_rg and ready_tree(ctx.cwd) is None
        readable = readable_checker(ctx, real_root(search_root))
        try:
            found, total = await _matches(query, ctx.cwd, use_rg, readable, index=self.use_index and not cold)
        except (RipgrepError, SearchError, OSError) as exc:
            return _error(str(exc))
        if cold and ctx.cwd.is_dir():  # once this call is done: the walk would compete with it for the GIL
            asyncio.get_running_loop().call_soon(warm_listing, ctx.cwd)
        if not found:
            return ToolResult(content="No matches found.", summary="no matches")
        ordered = [rel for rel, _ in _newest(found, MAX_RESULTS)]
        lines = [printable(prefix + r) for r in ordered]
        if total > MAX_RESULTS:
            lines.append(f"… (truncated to {MAX_RESULTS} of {total} results)")
        return ToolResult(content="\n".join(lines), summary=f"{total} file(s) matched")


async def _matches(
    query: FileQuery, cwd: Path, use_rg: bool, readable: Callable[[str], bool] | None, *, index: bool
) -> tuple[list[tuple[str, int]], int]:
    """(path, mtime) of the readable matches, or of a part of them holding the
    newest `MAX_RESULTS` (rg's listing, with no deny rule to check on each path),
    and how many matches there are."""
    found = await asyncio.to_thread(list_indexed_with_mtime, query, cwd) if index else None
    if found is None and use_rg and readable is None:
        newest = await newest_files_rg(query, MAX_RESULTS)
        if newest is not None:
            return newest
    if found is None:
        found = await list_files_with_mtime(query, use_rg)
    if readable is not None:
        found = [item for item in found if readable(item[0])]
    return found, len(found)


def _newest(found: list[tuple[str, int]], limit: int) -> list[tuple[str, int]]:
    """The first `limit` of `found` newest first, then by path. Sorted by mtime
    alone first (ints, in C), so only the head and its ties are sorted by path."""
    found.sort(key=itemgetter(1), reverse=True)
    end = limit
    if len(found) > limit:
        edge = found[limit - 1][1]
        while end < len(found) and found[end][1] == edge:
            end += 1
    head = found[:end]
    head.sort(key=itemgetter(0))  # two C-level stable sorts: newest first, then by path
    head.sort(key=itemgetter(1), reverse=True)
    return head[:limit]


def _error(message: str) -> ToolResult:
    return error_result(f"Glob error: {message}", prefix="")
