"""Read through the editor: when the ACP client advertises ``fs.readTextFile``, skawld's Read asks
it (``fs/read_text_file``) for text files, so the model sees the editor's unsaved buffer.

`EditorReadTool` keeps Read's name and input, so the scheduler applies every permission and path
rule (and the Read deny rules) before it runs, exactly as for the built-in tool; images, notebooks,
PDFs and binary files are still read from disk by the built-in code.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from skawld_core.tools.base import ToolContext, ToolResult, error_result
from skawld_core.tools.paths import is_device_path, resolve_path
from skawld_core.tools.read import BINARY_EXTENSIONS, IMAGE_TYPES, MAX_LINE_CHARS, MAX_OUTPUT_CHARS, ReadInput, ReadTool
from skawld_core.tools.text_format import number_line, truncate_text


class EditorReadTool(ReadTool):
    """Read, served by the editor's ``fs/read_text_file`` for text files."""

    def __init__(self, conn: Any, session_id: Callable[[], str]) -> None:
        self._conn = conn
        self._session_id = session_id

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
            answer = await self._conn.read_text_file(
                session_id=self._session_id(), path=str(path), line=value.offset, limit=value.limit
            )
        except Exception as exc:  # the editor answered with an error (no such file, …)
            return error_result(f"The editor could not read {path}: {exc}")
        lines = answer.content.splitlines()
        ctx.file_read_tracker.mark_read(path)
        if not lines:
            return ToolResult(content="<file is empty>", summary=self.summarize(value))
        body = "\n".join(number_line(value.offset + i, line[:MAX_LINE_CHARS]) for i, line in enumerate(lines))
        return ToolResult(content=truncate_text(body, MAX_OUTPUT_CHARS), summary=self.summarize(value))
