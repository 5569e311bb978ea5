"""The NotebookEdit tool: replace, insert or delete one cell of a Jupyter notebook.

The notebook goes through `nbformat` (imported when the tool runs): the edit
is applied to the parsed notebook, the result is validated against the
notebook schema, and only a valid notebook is written, atomically. The same
rules as Edit apply: the notebook must have been Read in this session and not
changed since; it is write scope, so acceptEdits approves it inside the
project only, and `Edit(...)` path rules cover it (its target is
`notebook_path`).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, model_validator

from ..model_base import SkawldModel
from .atomic_write import atomic_write_bytes
from .base import Tool, ToolContext, ToolResult, error_result
from .file_guard import edit_target_problem
from .notebook_render import cell_label
from .path_policy import PathPolicy
from .paths import display_path, resolve_path
from .safe_open import OpenRefused, Verify, open_verified

__all__ = ["NotebookEditInput", "NotebookEditTool"]

MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024
CellType = Literal["code", "markdown", "raw"]
EditMode = Literal["replace", "insert", "delete"]


class NotebookEditInput(SkawldModel):
    """Input of the NotebookEdit tool."""

    model_config = ConfigDict(extra="forbid")

    notebook_path: str = Field(min_length=1, description="The .ipynb file (absolute, or relative to the working dir).")
    cell_id: str | None = Field(
        default=None,
        description="The id of the cell to edit (as Read shows it; `cell-N` for notebooks without ids). "
        "With insert, the new cell goes after this one.",
    )
    cell_number: int | None = Field(
        default=None, ge=0, description="The 0-based index of the cell, instead of cell_id. With insert: the new index."
    )
    new_source: str = Field(default="", description="The new source of the cell (not used by delete).")
    cell_type: CellType | None = Field(
        default=None, description="code, markdown or raw. Required for insert; with replace it changes the type."
    )
    edit_mode: EditMode = Field(default="replace", description="replace (default), insert or delete.")

    @model_validator(mode="after")
    def _one_target(self) -> NotebookEditInput:
        if self.cell_id is not None and self.cell_number is not None:
            raise ValueError("give cell_id or cell_number, not both")
        if self.edit_mode == "insert" and self.cell_type is None:
            raise ValueError("cell_type is required when edit_mode is insert")
        return self


@dataclass(frozen=True)
class _Outcome:
    error: str | None = None
    message: str = ""


class _Refused(Exception):
    pass


def _target(cells: list[Any], value: NotebookEditInput) -> int:
    """The index the edit applies to (for insert: where the new cell goes); raises `_Refused`."""
    count = len(cells)
    if value.cell_id is not None:
        for i, cell in enumerate(cells):
            if cell_label(cell, i) == value.cell_id:
                return i + 1 if value.edit_mode == "insert" else i
        raise _Refused(f'no cell has the id "{value.cell_id}" (the notebook has {count} cells; Read shows their ids)')
    if value.cell_number is not None:
        last = count if value.edit_mode == "insert" else count - 1
        if value.cell_number > last:
            raise _Refused(f"cell_number {value.cell_number} is out of range (the notebook has {count} cells)")
        return value.cell_number
    if value.edit_mode == "insert":
        return 0
    raise _Refused(f"cell_id or cell_number is required to {value.edit_mode} a cell")


def _new_cell(nbformat: Any, kind: CellType, source: str, like: Any | None = None) -> Any:
    makers = {"code": nbformat.v4.new_code_cell, "markdown": nbformat.v4.new_markdown_cell}
    cell = makers.get(kind, nbformat.v4.new_raw_cell)(source=source)
    if like is not None:
        cell.metadata = like.get("metadata", {})
        if "id" in like:
            cell.id = like["id"]
        else:
            cell.pop("id", None)
    return cell


def _apply(path: Path, value: NotebookEditInput, verify: Verify) -> _Outcome:
    """Parse, edit, validate and write back atomically (runs in a worker thread)."""
    import nbformat

    fd, _ = open_verified(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0), verify)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return _Outcome("Error: the notebook is not a regular file.")
        raw = fh.read()
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return _Outcome(f"Error: the notebook is not valid JSON ({exc}); it was not changed.")
    if not isinstance(doc, dict) or doc.get("nbformat") != 4 or not isinstance(doc.get("cells"), list):
        return _Outcome("Error: NotebookEdit edits nbformat 4 notebooks only; this file is not one.")
    nb = nbformat.from_dict(doc)  # type: ignore[no-untyped-call]
    try:
        index = _target(nb.cells, value)
    except _Refused as exc:
        return _Outcome(f"Error: {exc}.")
    if value.edit_mode == "delete":
        gone = nb.cells.pop(index)
        message = f"Deleted cell {cell_label(gone, index)} (number {index})"
    elif value.edit_mode == "insert":
        assert value.cell_type is not None  # the input model requires it
        cell = _new_cell(nbformat, value.cell_type, value.new_source)
        if nb.get("nbformat_minor", 0) < 5:
            cell.pop("id", None)  # cell ids arrived with nbformat 4.5
        nb.cells.insert(index, cell)
        message = f"Inserted a {value.cell_type} cell {cell_label(cell, index)} at number {index}"
    else:
        cell = nb.cells[index]
        kind = value.cell_type or cell.get("cell_type", "code")
        if kind != cell.get("cell_type"):
            cell = _new_cell(nbformat, kind, value.new_source, like=cell)
            nb.cells[index] = cell
        else:
            cell.source = value.new_source
            if kind == "code":  # the old outputs belong to the old source
                cell.outputs = []
                cell.execution_count = None
        message = f"Replaced the source of {kind} cell {cell_label(cell, index)} (number {index})"
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        first = str(exc).strip().split("\n", 1)[0]
        return _Outcome(f"Error: the edited notebook would not be valid ({first}); it was not changed.")
    data = (nbformat.writes(nb) + "\n").encode("utf-8")  # type: ignore[no-untyped-call]
    atomic_write_bytes(path, data, verify)
    return _Outcome(message=message)


class NotebookEditTool(Tool[NotebookEditInput]):
    """Edit one cell of a Jupyter notebook that was Read in this session."""

    name = "NotebookEdit"
    description = (
        "Edit a Jupyter notebook (.ipynb) cell: replace its source (edit_mode replace, the default; cell_type "
        "changes its type), insert a new cell (edit_mode insert, with cell_type; after cell_id, at cell_number, "
        "or first), or delete it (edit_mode delete). Name the cell by cell_id as Read shows it, or by its 0-based "
        "cell_number. Replacing a code cell clears its outputs. Read the notebook first. The notebook stays valid: "
        "an edit that would break it is refused."
    )
    scope = "write"
    path_policy = PathPolicy(("notebook_path",), "edit")
    parallel_safe = False
    input_model = NotebookEditInput

    def summarize(self, value: NotebookEditInput) -> str:
        """`NotebookEdit <path> (<mode> <cell>)`."""
        which = value.cell_id if value.cell_id is not None else value.cell_number
        cell = f" cell {which}" if which is not None else ""
        return f"NotebookEdit {value.notebook_path} ({value.edit_mode}{cell})"

    async def execute(self, value: NotebookEditInput, ctx: ToolContext) -> ToolResult:
        """The Edit tool's checks in order, then the nbformat edit in a worker thread."""
        path = resolve_path(value.notebook_path, ctx.cwd)
        rel = display_path(path, ctx.cwd)

        if path.suffix.lower() != ".ipynb":
            return error_result(f"{rel} is not a .ipynb notebook; use Edit for other files.")
        if not ctx.file_read_tracker.has_read(path):
            return error_result("You must Read this notebook before editing it.")
        problem = edit_target_problem(
            path,
            rel,
            ctx.file_read_tracker,
            max_bytes=MAX_NOTEBOOK_BYTES,
            too_large=lambda size: f"Error: {rel} is too large to edit ({size} bytes).",
        )
        if problem:
            return error_result(problem, prefix="")
        try:
            outcome = await asyncio.to_thread(_apply, path, value, ctx.verify_open)
        except OpenRefused as exc:
            return error_result(f"{exc}.")
        except OSError as exc:
            return error_result(f"could not edit {rel}: {exc.strerror or exc}.")
        if outcome.error:
            return error_result(outcome.error, prefix="")
        ctx.file_read_tracker.mark_read(path)
        return ToolResult(content=f"{outcome.message} in {rel}.", summary=self.summarize(value))
