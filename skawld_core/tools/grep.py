"""The Grep tool: regex search over files, via ripgrep or a pure-Python fallback."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from pydantic import ConfigDict, Field

from ..model_base import SkawldModel
from .base import Tool, ToolContext, ToolResult, _allow_every_path, _no_objection, error_result
from .file_search import FileQuery, SearchError, filter_readable, printable, real_root
from .file_tracker import canonical_path
from .globmatch import PathGlob
from .grep_search import FileHits, GrepQuery, OutputMode, grep_py, grep_rg, research_verified
from .path_policy import PathPolicy
from .paths import resolve_path
from .ripgrep import RipgrepError, find_rg
from .safe_open import Verify
from .text_format import truncate_text, truncation_marker

DEFAULT_HEAD_LIMIT = 250
MAX_OUTPUT_CHARS = 30_000
MAX_LINE_CHARS = 500


class GrepInput(SkawldModel):
    """Input of the Grep tool (flags use rg's names: `-i`, `-n`, `-A`, `-B`, `-C`)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    pattern: str = Field(min_length=1, description="Regular expression to search for.")
    path: str | None = Field(default=None, description="File or directory to search (default: working directory).")
    glob: str | None = Field(default=None, description='Only files matching this glob, e.g. "*.py" or "src/**/*.ts".')
    type: str | None = Field(default=None, description="Only files of this rg type, e.g. py, ts, js, rust, go, md.")
    output_mode: OutputMode = Field(
        default="files_with_matches",
        description="files_with_matches (paths), content (matching lines) or count (matches per file).",
    )
    ignore_case: bool = Field(default=False, alias="-i", description="Case-insensitive search.")
    line_numbers: bool = Field(default=False, alias="-n", description="Show line numbers (content mode).")
    after: int | None = Field(default=None, ge=0, alias="-A", description="Lines of context after each match.")
    before: int | None = Field(default=None, ge=0, alias="-B", description="Lines of context before each match.")
    context: int | None = Field(default=None, ge=0, alias="-C", description="Lines of context around each match.")
    multiline: bool = Field(default=False, description="Let patterns span lines ('.' matches newlines).")
    head_limit: int = Field(
        default=DEFAULT_HEAD_LIMIT,
        ge=0,
        description=f"Maximum output lines (default {DEFAULT_HEAD_LIMIT}; 0 = no limit).",
    )


def _clip(text: str) -> str:
    if len(text) <= MAX_LINE_CHARS:
        return text
    return text[:MAX_LINE_CHARS] + truncation_marker(len(text) - MAX_LINE_CHARS)


def render(hits: list[FileHits], mode: OutputMode, base: Path, numbers: bool, context: bool) -> Iterator[str]:
    """Output lines in rg's shapes: `path`, `path:count`, `path:N:text` / `path-N-text`,
    with `--` between separate context groups. Paths are absolute. Lazy, so only the
    lines kept by head_limit are ever formatted."""
    first = True
    for fh in hits:
        path = printable(os.path.join(base, fh.rel))
        if mode == "files_with_matches":
            yield path
            continue
        if mode == "count":
            yield f"{path}:{fh.count}"
            continue
        previous = None
        for number, is_match, text in fh.lines:
            if context and not first and (previous is None or number != previous + 1):
                yield "--"
            first = False
            previous = number
            sep = ":" if is_match else "-"
            yield (f"{path}{sep}{number}{sep}" if numbers else f"{path}{sep}") + _clip(text)


def count_lines(hits: list[FileHits], mode: OutputMode, context: bool) -> int:
    """How many lines `render` yields, without formatting them."""
    if mode != "content":
        return len(hits)
    total = groups = 0
    for fh in hits:
        total += len(fh.lines)
        previous = None
        for number, _, _ in fh.lines:
            if previous is None or number != previous + 1:
                groups += 1
            previous = number
    return total + max(groups - 1, 0) if context else total


class GrepTool(Tool[GrepInput]):
    """Search file contents with a regex (ripgrep syntax); .gitignore is respected."""

    name = "Grep"
    description = (
        "Search file contents with a regular expression (ripgrep). output_mode: files_with_matches (default; "
        "file paths), content (matching lines, with -n line numbers and -A/-B/-C context) or count. Filter "
        "files with glob (e.g. '*.py') or type (e.g. 'py'). -i ignores case; multiline lets a pattern span "
        "lines. .gitignore is respected and hidden files are skipped. Paths in the output are absolute. Output "
        f"is capped at head_limit lines (default {DEFAULT_HEAD_LIMIT})."
    )
    scope = "read"
    path_policy = PathPolicy(("path",), "read", default_to_cwd=True)
    parallel_safe = True
    input_model = GrepInput

    def __init__(self, *, use_rg: bool | None = None) -> None:
        """`use_rg=None` uses rg when it is on PATH; False forces the Python fallback."""
        self.use_rg = use_rg

    def summarize(self, value: GrepInput) -> str:
        """`Grep "<pattern>" (<mode>)`, plus `in <path>` when given."""
        where = f" in {value.path}" if value.path else ""
        return f'Grep "{value.pattern}" ({value.output_mode}){where}'

    async def execute(self, value: GrepInput, ctx: ToolContext) -> ToolResult:
        """Search, drop unreadable files, render, apply head_limit and the size cap."""
        root = resolve_path(value.path or ".", ctx.cwd)
        if not root.exists():
            return _error(f"path not found: {root}")
        after = value.after if value.after is not None else (value.context or 0)
        before = value.before if value.before is not None else (value.context or 0)
        is_file = root.is_file()
        verify = _verifier(ctx, is_file)
        query = GrepQuery(
            files=FileQuery(
                root=root.parent if is_file else root,
                glob=PathGlob(value.glob) if value.glob else None,
                file_type=value.type,
            ),
            pattern=value.pattern,
            mode=value.output_mode,
            ignore_case=value.ignore_case,
            multiline=value.multiline,
            before=before,
            after=after,
            target=root if is_file else None,
            verify=verify,
        )
        use_rg = find_rg() is not None if self.use_rg is None else self.use_rg
        try:
            hits = await (grep_rg(query) if use_rg else grep_py(query))
            if use_rg and verify is not None:
                hits = await asyncio.to_thread(research_verified, query, hits)
        except re.error as exc:
            return _error(f"invalid regex: {exc}")
        except (RipgrepError, SearchError, OSError) as exc:
            return _error(str(exc))
        if query.target is not None:
            # An explicit file may itself be a symlink: check its real path.
            hits = hits if ctx.can_read(canonical_path(query.target)) else []
        else:
            readable = set(filter_readable(ctx, real_root(query.base), [h.rel for h in hits]))
            hits = [h for h in hits if h.rel in readable]
        context = bool(before or after) and value.output_mode == "content"
        total = count_lines(hits, value.output_mode, context)
        if not total:
            return ToolResult(content="No matches found.", summary="no matches")
        shown = render(hits, value.output_mode, query.base, value.line_numbers, context)
        if value.head_limit and total > value.head_limit:
            lines = [*islice(shown, value.head_limit), f"… (truncated to {value.head_limit} of {total} lines)"]
        else:
            lines = list(shown)
        text = truncate_text("\n".join(lines), MAX_OUTPUT_CHARS)
        return ToolResult(content=text, summary=f"Grep matched {total} line(s)")


def _verifier(ctx: ToolContext, is_file: bool) -> Verify | None:
    """The check for each file Grep opens: Read rules (`can_read`), and for an explicit
    file also the call's own permission (`verify_open`). None when nothing is restricted."""
    can_read = ctx.can_read
    if can_read is _allow_every_path and (not is_file or ctx.verify_open is _no_objection):
        return None

    def verify(real: Path) -> str | None:
        if is_file:
            problem = ctx.verify_open(real)
            if problem is not None:
                return problem
        return None if can_read(real) else f"{real} may not be read"

    return verify


def _error(message: str) -> ToolResult:
    return error_result(f"Grep error: {message}")
