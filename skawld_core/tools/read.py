"""The Read tool: line-numbered text, images as image blocks, notebooks and PDFs, clear refusals.

Notebooks are rendered by `notebook_render`, PDFs by `pdf_read`; this module
opens the file (checked against the permission decision) and dispatches.
"""

from __future__ import annotations

import asyncio
import base64
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pydantic import ConfigDict, Field

from ..messages import Base64Source, ImageBlock, TextBlock
from ..model_base import SkawldModel
from .base import Tool, ToolContext, ToolResult, error_result
from .line_range import clip_line, decode_line, read_line_range
from .notebook_render import NotebookError, render_notebook
from .path_policy import PathPolicy
from .paths import display_path, is_device_path, resolve_path
from .pdf_read import pdf_result
from .safe_open import OpenRefused, Verify, open_verified
from .text_format import number_line, truncate_text

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
MAX_OUTPUT_CHARS = 400_000
MAX_IMAGE_BYTES = 5 * 1024 * 1024
STREAM_THRESHOLD = 1024 * 1024
SNIFF_BYTES = 8192
IMAGE_TYPES = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
BINARY_EXTENSIONS = frozenset({"exe", "so", "dylib", "o", "a", "zip", "tar", "gz"})
MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024
MAX_PDF_BYTES = 256 * 1024 * 1024


class ReadInput(SkawldModel):
    """Input of the Read tool."""

    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(min_length=1, description="Absolute path, or a path relative to the working directory.")
    offset: int = Field(default=1, ge=1, description="1-based line number to start reading from.")
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, description="Maximum number of lines to read.")
    pages: str | None = Field(
        default=None,
        description='PDF files only: the pages to read, e.g. "3", "1-5" or "1-3,8" (1-based; at most 20 pages).',
    )


@dataclass(frozen=True)
class _Lines:
    lines: list[str]  # already cut to MAX_LINE_CHARS
    total: int
    sniffed_binary: bool = False


class _NotRegular(Exception):
    pass


def _open_checked(path: Path, verify: Verify) -> tuple[BinaryIO, int]:
    """Open once, check the descriptor's real path, and return the file with its size."""
    fd, _ = open_verified(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0), verify)
    fh = os.fdopen(fd, "rb")
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        fh.close()
        raise _NotRegular
    return fh, st.st_size


def _read_lines(path: Path, verify: Verify, offset: int, limit: int) -> _Lines:
    """Read lines `offset..offset+limit-1` and count the total (streaming for big files)."""
    fh, size = _open_checked(path, verify)
    with fh:
        return _read_open_lines(fh, size, offset, limit)


def _open_error(exc: OSError | _NotRegular) -> ToolResult:
    """The error result for a file that could not be stat'ed, opened or read."""
    if isinstance(exc, OpenRefused):
        return error_result(f"{exc}.")
    if isinstance(exc, _NotRegular):
        return error_result("Path is not a regular file.")
    if isinstance(exc, FileNotFoundError):
        return error_result("File not found.")
    if isinstance(exc, PermissionError):
        return error_result("Permission denied.")
    return error_result(f"Cannot read file: {exc.strerror or exc}.")


async def _read_whole(path: Path, ctx: ToolContext) -> bytes | ToolResult:
    """The whole file through the verified open (off the event loop), or the error result."""
    try:
        return await asyncio.to_thread(_read_bytes, path, ctx.verify_open)
    except (OSError, _NotRegular) as exc:
        return _open_error(exc)


def _read_bytes(path: Path, verify: Verify) -> bytes:
    fh, _ = _open_checked(path, verify)
    with fh:
        return fh.read()


def _read_open_lines(fh: BinaryIO, size: int, offset: int, limit: int) -> _Lines:
    if size <= STREAM_THRESHOLD and offset == 1:
        data = fh.read()
        if b"\0" in data[:SNIFF_BYTES]:
            return _Lines([], 0, sniffed_binary=True)
        parts = data.split(b"\n")
        if parts and parts[-1] == b"":
            parts.pop()
        return _Lines([clip_line(decode_line(p), MAX_LINE_CHARS) for p in parts[:limit]], len(parts))
    head = fh.read(SNIFF_BYTES)
    if b"\0" in head:
        return _Lines([], 0, sniffed_binary=True)
    fh.seek(0)
    lines, total = read_line_range(fh, offset, limit, MAX_LINE_CHARS)
    return _Lines(lines, total)


class ReadTool(Tool[ReadInput]):
    """Read a file with line numbers (cat -n style); images come back as image blocks."""

    name = "Read"
    description = (
        "Read a file from the local filesystem. Returns lines numbered cat -n style (number, TAB, text), "
        f"starting at `offset` (1-based) for at most `limit` lines (default {DEFAULT_LIMIT}). Lines longer than "
        f"{MAX_LINE_CHARS} characters are cut. PNG, JPEG, GIF and WebP images are returned as images. "
        "Jupyter notebooks (.ipynb) are returned as their cells with outputs (cell ids for NotebookEdit). "
        'PDFs are returned page by page; `pages` (e.g. "1-5") picks pages, and is required for PDFs of more '
        "than 10 pages (at most 20 pages per call). "
        "Binary files and directories cannot be read. Read a file before editing or overwriting it."
    )
    scope = "read"
    path_policy = PathPolicy(("file_path",), "read")
    parallel_safe = True
    input_model = ReadInput

    def summarize(self, value: ReadInput) -> str:
        """`Read <path>`, with `(lines a-b)` when offset or limit is not the default, `(pages …)` for pages."""
        if value.pages is not None:
            return f"Read {value.file_path} (pages {value.pages})"
        if value.offset == 1 and value.limit == DEFAULT_LIMIT:
            return f"Read {value.file_path}"
        return f"Read {value.file_path} (lines {value.offset}-{value.offset + value.limit - 1})"

    async def execute(self, value: ReadInput, ctx: ToolContext) -> ToolResult:
        """Run the checks of the reference in order, then read in a worker thread."""
        path = resolve_path(value.file_path, ctx.cwd)
        if is_device_path(path):
            return error_result(f"{path} is a device path and cannot be read.")
        try:
            st = os.stat(path)
        except OSError as exc:
            return _open_error(exc)
        if stat.S_ISDIR(st.st_mode):
            return error_result("Path is a directory.")
        if not stat.S_ISREG(st.st_mode):
            return error_result("Path is not a regular file.")
        if not os.access(path, os.R_OK):
            return error_result("Permission denied.")
        rel = display_path(path, ctx.cwd)
        ext = path.suffix.lower().lstrip(".")
        if ext in IMAGE_TYPES:
            return await self._read_image(path, rel, ext, st.st_size, ctx)
        if ext == "ipynb":
            return await self._read_notebook(path, rel, st.st_size, ctx)
        if ext == "pdf":
            return await self._read_pdf(path, rel, value.pages, st.st_size, ctx)
        if value.pages is not None:
            return error_result("pages applies to PDF files only; use offset and limit for text files.")
        if ext in BINARY_EXTENSIONS:
            return error_result(f"{rel} is a binary file (.{ext}) and cannot be read.")
        summary = self.summarize(value)
        if st.st_size == 0:
            ctx.file_read_tracker.mark_read(path)
            return ToolResult(content="<file is empty>", summary=summary)
        try:
            got = await asyncio.to_thread(_read_lines, path, ctx.verify_open, value.offset, value.limit)
        except (OSError, _NotRegular) as exc:
            return _open_error(exc)
        if got.sniffed_binary:
            return error_result(f"{rel} appears to be a binary file and cannot be read.")
        if value.offset > got.total:
            return error_result(f"offset {value.offset} is beyond end of file ({got.total} lines total).")
        body = "\n".join(number_line(value.offset + i, line) for i, line in enumerate(got.lines))
        ctx.file_read_tracker.mark_read(path)
        return ToolResult(content=truncate_text(body, MAX_OUTPUT_CHARS), summary=summary)

    async def _read_image(self, path: Path, rel: str, ext: str, size: int, ctx: ToolContext) -> ToolResult:
        if size > MAX_IMAGE_BYTES:
            return error_result(f"Image {rel} is too large ({size} bytes; the limit is {MAX_IMAGE_BYTES} bytes).")
        data = await _read_whole(path, ctx)
        if isinstance(data, ToolResult):
            return data
        block = ImageBlock(source=Base64Source(media_type=IMAGE_TYPES[ext], data=base64.b64encode(data).decode()))
        ctx.file_read_tracker.mark_read(path)
        content: list[TextBlock | ImageBlock] = [block]
        return ToolResult(content=content, summary=f"Read image {rel} ({len(data)}B)")

    async def _read_notebook(self, path: Path, rel: str, size: int, ctx: ToolContext) -> ToolResult:
        if size > MAX_NOTEBOOK_BYTES:
            return error_result(f"Notebook {rel} is too large ({size} bytes; the limit is {MAX_NOTEBOOK_BYTES} bytes).")
        data = await _read_whole(path, ctx)
        if isinstance(data, ToolResult):
            return data
        try:
            blocks = render_notebook(data)
        except NotebookError as exc:
            return error_result(f"{rel} is {exc}.")
        content: list[TextBlock | ImageBlock] = [
            TextBlock(text=truncate_text(b.text, MAX_OUTPUT_CHARS)) if isinstance(b, TextBlock) else b for b in blocks
        ]
        ctx.file_read_tracker.mark_read(path)
        cells = sum(b.text.count("\n</cell>") for b in blocks if isinstance(b, TextBlock))
        return ToolResult(content=content, summary=f"Read notebook {rel} ({cells} cells)")

    async def _read_pdf(self, path: Path, rel: str, pages: str | None, size: int, ctx: ToolContext) -> ToolResult:
        if size > MAX_PDF_BYTES:
            return error_result(f"PDF {rel} is too large ({size} bytes; the limit is {MAX_PDF_BYTES} bytes).")
        data = await _read_whole(path, ctx)
        if isinstance(data, ToolResult):
            return data
        result = await asyncio.to_thread(pdf_result, data, rel, pages)
        if not result.is_error:
            ctx.file_read_tracker.mark_read(path)
        return result
