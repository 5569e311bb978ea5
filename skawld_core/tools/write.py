"""The Write tool: create or overwrite a file atomically."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

from pydantic import ConfigDict, Field

from ..model_base import SkawldModel
from .atomic_write import atomic_write_bytes
from .base import Tool, ToolContext, ToolResult, error_result
from .file_guard import stale_or_unwritable
from .path_policy import PathPolicy
from .paths import display_path, is_device_path, resolve_path
from .safe_open import OpenRefused, Verify


class WriteInput(SkawldModel):
    """Input of the Write tool."""

    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(min_length=1, description="Absolute path, or a path relative to the working directory.")
    content: str = Field(description="The full new content of the file.")


class WriteTool(Tool[WriteInput]):
    """Write a whole file; an existing file must have been Read in this session."""

    name = "Write"
    description = (
        "Write a file to the local filesystem, replacing it if it exists. Parent directories are created. "
        "An existing file must be Read in this session first. Prefer Edit for changes to existing files."
    )
    scope = "write"
    path_policy = PathPolicy(("file_path",), "edit")
    parallel_safe = False
    input_model = WriteInput

    def summarize(self, value: WriteInput) -> str:
        """`Write <bytes>B to <path>`."""
        return f"Write {len(value.content.encode('utf-8', errors='surrogatepass'))}B to {value.file_path}"

    async def store(self, path: Path, content: str, ctx: ToolContext) -> None:
        """Write `content` to disk (an editor-backed Write overrides this); raises `OpenRefused` or `OSError`."""
        await asyncio.to_thread(_write, path, content.encode("utf-8"), ctx.verify_open)

    async def precheck(self, value: WriteInput, ctx: ToolContext) -> ToolResult | None:
        """The checks `execute` starts with (an existing file not Read, a device path...), before asking."""
        path = resolve_path(value.file_path, ctx.cwd)
        return _target_refusal(value, path, display_path(path, ctx.cwd), ctx)

    async def execute(self, value: WriteInput, ctx: ToolContext) -> ToolResult:
        """Refuse unread or stale existing files; otherwise mkdir -p and write atomically."""
        path = resolve_path(value.file_path, ctx.cwd)
        rel = display_path(path, ctx.cwd)
        refused = _target_refusal(value, path, rel, ctx)
        if refused is not None:
            return refused
        data = value.content.encode("utf-8")
        try:
            await self.store(path, value.content, ctx)
        except OpenRefused as exc:
            return error_result(f"{exc}.")
        except OSError as exc:
            return error_result(f"could not write {rel}: {exc.strerror or exc}.")
        ctx.file_read_tracker.mark_read(path)
        return ToolResult(content=f"wrote {len(data)} bytes to {rel}", summary=self.summarize(value))


def _target_refusal(value: WriteInput, path: Path, rel: str, ctx: ToolContext) -> ToolResult | None:
    """Why the write cannot happen before anything is written, or None."""
    if is_device_path(path):
        return error_result(f"{path} is a device path and cannot be written.")
    try:
        value.content.encode("utf-8")
    except UnicodeEncodeError:
        return error_result("content is not valid Unicode (lone surrogate).")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return error_result(f"cannot access {rel}: {exc.strerror or exc}.")
    if not stat.S_ISREG(st.st_mode):
        return error_result(f"{rel} exists and is not a regular file.")
    if not ctx.file_read_tracker.has_read(path):
        return error_result(
            f"{rel} already exists and has not been Read in this session. Read the file first, then write it."
        )
    problem = stale_or_unwritable(path, rel, ctx.file_read_tracker)
    return error_result(problem, prefix="") if problem else None


def _write(path: os.PathLike[str], data: bytes, verify: Verify) -> None:
    os.makedirs(os.path.dirname(os.path.realpath(path)), exist_ok=True)
    atomic_write_bytes(path, data, verify)
