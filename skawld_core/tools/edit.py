"""The Edit tool: exact string replacement with a unique-match rule."""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from pydantic import ConfigDict, Field, field_validator

from ..model_base import SkawldModel
from .atomic_write import atomic_write_bytes
from .base import Tool, ToolContext, ToolResult, error_result
from .file_guard import edit_target_problem
from .path_policy import PathPolicy
from .paths import display_path, resolve_path
from .safe_open import OpenRefused, Verify, open_verified

MAX_EDIT_BYTES = 100 * 1024 * 1024
EOL_SNIFF_BYTES = 16 * 1024


class EditInput(SkawldModel):
    """Input of the Edit tool."""

    model_config = ConfigDict(extra="forbid")

    file_path: str = Field(min_length=1, description="Absolute path, or a path relative to the working directory.")
    old_string: str = Field(description="The exact text to replace (must be unique unless replace_all).")
    new_string: str = Field(description="The replacement text.")
    replace_all: bool = Field(default=False, description="Replace every occurrence of old_string.")

    @field_validator("old_string")
    @classmethod
    def _not_empty(cls, value: str) -> str:
        if value == "":
            raise ValueError("old_string must not be empty; use Write to create a file")
        return value


@dataclass(frozen=True)
class EditOutcome:
    """An edit's result: the error text, or the new text and the change in line count."""

    error: str | None = None
    delta: int = 0
    text: str = ""


def _to_crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _prefers_crlf(text: str) -> bool:
    head = text[:EOL_SNIFF_BYTES]
    crlf = head.count("\r\n")
    return crlf > head.count("\n") - crlf


def _locate(text: str, old: str, new: str, replace_all: bool) -> tuple[str, str] | str:
    """The text to replace in `text` and its replacement (line endings matched), or the error."""
    if _prefers_crlf(text):
        new = _to_crlf(new)
    needle = old
    count = text.count(needle)
    if count == 0 and "\n" in old:
        needle = _to_crlf(old)
        count = text.count(needle)
        if count:
            new = _to_crlf(new)  # the matched region uses CRLF, so the replacement does too
    if count == 0:
        return "Error: old_string not found in file."
    if count > 1 and not replace_all:
        return (
            f"Error: old_string matches {count} occurrences; provide more surrounding context "
            "for a unique match, or pass replace_all: true."
        )
    return needle, new


def match_problem(text: str, value: EditInput) -> str | None:
    """Why `old_string` does not match in `text` as the edit needs, or None."""
    match = _locate(text, value.old_string, value.new_string, value.replace_all)
    return match if isinstance(match, str) else None


def _match_problem(path: Path, value: EditInput) -> str | None:
    """Whether `old_string` matches as the edit needs (runs in a worker thread)."""
    try:
        text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    except OSError:
        return None  # execute reports it with the verified open
    return match_problem(text, value)


def edit_text(text: str, old: str, new: str, replace_all: bool) -> EditOutcome:
    """`text` with `old` replaced literally (line endings matched), or the error."""
    match = _locate(text, old, new, replace_all)
    if isinstance(match, str):
        return EditOutcome(match)
    needle, new = match
    # str.replace is literal: `$&`, `$$` and backslashes are never expanded.
    updated = text.replace(needle, new) if replace_all else text.replace(needle, new, 1)
    return EditOutcome(delta=updated.count("\n") - text.count("\n"), text=updated)


def _apply(path: Path, old: str, new: str, replace_all: bool, verify: Verify) -> EditOutcome:
    """Read, replace literally and write back atomically (runs in a worker thread)."""
    fd, _ = open_verified(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0), verify)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return EditOutcome("Error: the file is not a regular file.")
        text = fh.read().decode("utf-8", errors="surrogateescape")
    outcome = edit_text(text, old, new, replace_all)
    if outcome.error:
        return outcome
    try:
        data = outcome.text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError:
        return EditOutcome("Error: new_string is not valid Unicode (lone surrogate).")
    atomic_write_bytes(path, data, verify)
    return outcome


class EditTool(Tool[EditInput]):
    """Replace an exact string in a file that was Read in this session."""

    name = "Edit"
    description = (
        "Replace exact text in a file. The file must be Read in this session first. old_string must match "
        "exactly once (include surrounding context to make it unique), or pass replace_all to replace every "
        "occurrence. Replacement is literal; line endings of CRLF files are kept."
    )
    scope = "write"
    path_policy = PathPolicy(("file_path",), "edit")
    parallel_safe = False
    input_model = EditInput

    def summarize(self, value: EditInput) -> str:
        """`Edit <path> (replace one|replace all)`."""
        return f"Edit {value.file_path} ({'replace all' if value.replace_all else 'replace one'})"

    @staticmethod
    def _target_refusal(value: EditInput, path: Path, rel: str, ctx: ToolContext) -> ToolResult | None:
        """The reference's checks before the file is opened, in order."""
        if not ctx.file_read_tracker.has_read(path):
            return error_result("You must Read this file before editing it.")
        if value.old_string == value.new_string:
            return error_result("No changes to make: old_string and new_string are exactly the same.")
        problem = edit_target_problem(
            path,
            rel,
            ctx.file_read_tracker,
            max_bytes=MAX_EDIT_BYTES,
            too_large=lambda _size: "Error: File too large to edit; use Read + Write.",
        )
        return error_result(problem, prefix="") if problem else None

    async def apply(self, path: Path, value: EditInput, ctx: ToolContext) -> EditOutcome:
        """Make the edit on disk (an editor-backed Edit overrides this); raises `OpenRefused` or `OSError`."""
        return await asyncio.to_thread(
            _apply, path, value.old_string, value.new_string, value.replace_all, ctx.verify_open
        )

    async def precheck(self, value: EditInput, ctx: ToolContext) -> ToolResult | None:
        """Read-before-edit, the file's state, and `old_string` matching, before asking.

        The match is only looked for in a file this session has Read (so nothing
        about an unread file reaches the model)."""
        path = resolve_path(value.file_path, ctx.cwd)
        refused = self._target_refusal(value, path, display_path(path, ctx.cwd), ctx)
        if refused is not None:
            return refused
        problem = await asyncio.to_thread(_match_problem, path, value)
        return error_result(problem, prefix="") if problem else None

    async def execute(self, value: EditInput, ctx: ToolContext) -> ToolResult:
        """Run the reference's checks in order, then edit atomically and mark the file read."""
        path = resolve_path(value.file_path, ctx.cwd)
        rel = display_path(path, ctx.cwd)
        refused = self._target_refusal(value, path, rel, ctx)
        if refused is not None:
            return refused
        try:
            outcome = await self.apply(path, value, ctx)
        except OpenRefused as exc:
            return error_result(f"{exc}.")
        except OSError as exc:
            return error_result(f"could not edit {rel}: {exc.strerror or exc}.")
        if outcome.error:
            return error_result(outcome.error, prefix="")
        ctx.file_read_tracker.mark_read(path)
        delta = f"{outcome.delta:+d}"
        return ToolResult(content=f"Edited {rel}: {delta} lines in {rel}", summary=self.summarize(value))
