"""Files through the editor: when the ACP client advertises ``fs.readTextFile`` /
``fs.writeTextFile``, skawld's Read asks it (``fs/read_text_file``) for text files, and Write and
Edit hand the new text to it (``fs/write_text_file``), so the model sees the editor's unsaved
buffer and the editor's buffer and undo history see every change.

The tools keep the built-in names and inputs, so the scheduler applies every permission and path
rule (deny rules included) before they run, exactly as for the built-in tools. Before a write
leaves skawld, the target's real path (symlinks resolved) passes the same `verify_open` check the
disk tools apply to the file they opened, and the editor is given that real path. Images,
notebooks, PDFs and binary files are still read from disk by the built-in code; NotebookEdit
writes to disk.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from skawld_core.tools.base import ToolContext, ToolResult, error_result
from skawld_core.tools.edit import EditInput, EditOutcome, EditTool, edit_text, match_problem
from skawld_core.tools.paths import display_path, is_device_path, resolve_path
from skawld_core.tools.read import BINARY_EXTENSIONS, IMAGE_TYPES, MAX_LINE_CHARS, MAX_OUTPUT_CHARS, ReadInput, ReadTool
from skawld_core.tools.safe_open import OpenRefused
from skawld_core.tools.text_format import number_line, truncate_text
from skawld_core.tools.write import WriteTool


class _Editor:
    """The client connection and the ACP session id the calls are made for."""

    def __init__(self, conn: Any, session_id: Callable[[], str]) -> None:
        self._conn = conn
        self._session_id = session_id

    async def read(self, path: Path, line: int | None = None, limit: int | None = None) -> str:
        answer = await self._conn.read_text_file(session_id=self._session_id(), path=str(path), line=line, limit=limit)
        return str(answer.content)

    async def write(self, path: Path, content: str, ctx: ToolContext, *, make_parents: bool = False) -> Path:
        """Hand `content` for `path` to the editor once its real path passes `ctx.verify_open`
        (creating the missing parent directories first with `make_parents`, as Write does on disk);
        the real path written. Raises `OpenRefused`, or `OSError` when the editor answers with an error."""
        real = Path(os.path.realpath(path))
        problem = ctx.verify_open(real)
        if problem is not None:
            raise OpenRefused(problem)
        if make_parents:
            await asyncio.to_thread(os.makedirs, real.parent, exist_ok=True)
        try:
            await self._conn.write_text_file(session_id=self._session_id(), path=str(real), content=content)
        except Exception as exc:  # the editor answered with an error
            raise OSError(f"the editor refused the write: {exc}") from None
        return real


class EditorReadTool(ReadTool):
    """Read, served by the editor's ``fs/read_text_file`` for text files."""

    def __init__(self, conn: Any, session_id: Callable[[], str]) -> None:
        self._editor = _Editor(conn, session_id)

    async def execute(self, value: ReadInput, ctx: ToolContext) -> ToolResult:
        path = resolve_path(value.file_path, ctx.cwd)
        ext = path.suffix.lower().lstrip(".")
        if (
            is_device_path(path)
            or value.pages is not None
            or ext in IMAGE_TYPES
            or ext in BINARY_EXTENSIONS
            or ext in ("ipynb", "pdf")
            or Path(path).is_dir()
        ):
            return await super().execute(value, ctx)
        try:
            content = await self._editor.read(path, value.offset, value.limit)
        except Exception as exc:  # the editor answered with an error (no such file, …)
            return error_result(f"The editor could not read {path}: {exc}")
        lines = content.splitlines()
        ctx.file_read_tracker.mark_read(path)
        if not lines:
            return ToolResult(content="<file is empty>", summary=self.summarize(value))
        body = "\n".join(number_line(value.offset + i, line[:MAX_LINE_CHARS]) for i, line in enumerate(lines))
        return ToolResult(content=truncate_text(body, MAX_OUTPUT_CHARS), summary=self.summarize(value))


class EditorWriteTool(WriteTool):
    """Write, handed to the editor's ``fs/write_text_file`` (every check of the built-in Write first)."""

    def __init__(self, conn: Any, session_id: Callable[[], str]) -> None:
        self._editor = _Editor(conn, session_id)

    async def store(self, path: Path, content: str, ctx: ToolContext) -> None:
        await self._editor.write(path, content, ctx, make_parents=True)


class EditorEditTool(EditTool):
    """Edit of the editor's text (its unsaved buffer when it reads for us, else the file), written
    back through ``fs/write_text_file``."""

    def __init__(self, conn: Any, session_id: Callable[[], str], *, reads: bool) -> None:
        self._editor = _Editor(conn, session_id)
        self._reads = reads

    async def _current(self, path: Path) -> str:
        if not self._reads:
            return path.read_bytes().decode("utf-8", errors="surrogateescape")
        try:
            return await self._editor.read(path)
        except Exception as exc:  # the editor answered with an error
            raise OSError(f"the editor could not read it: {exc}") from None

    async def precheck(self, value: EditInput, ctx: ToolContext) -> ToolResult | None:
        path = resolve_path(value.file_path, ctx.cwd)
        refused = self._target_refusal(value, path, display_path(path, ctx.cwd), ctx)
        if refused is not None:
            return refused
        try:
            problem = match_problem(await self._current(path), value)
        except OSError:
            return None  # execute reports it
        return error_result(problem, prefix="") if problem else None

    async def apply(self, path: Path, value: EditInput, ctx: ToolContext) -> EditOutcome:
        real = Path(os.path.realpath(path))
        problem = ctx.verify_open(real)
        if problem is not None:
            raise OpenRefused(problem)
        outcome = edit_text(await self._current(real), value.old_string, value.new_string, value.replace_all)
        if outcome.error:
            return outcome
        try:
            outcome.text.encode("utf-8")
        except UnicodeEncodeError:
            return EditOutcome("Error: new_string is not valid Unicode (lone surrogate).")
        await self._editor.write(real, outcome.text, ctx)
        return outcome
