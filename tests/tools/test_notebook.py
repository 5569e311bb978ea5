"""Notebooks: Read renders cells with outputs (images as image blocks); NotebookEdit edits through
nbformat and keeps the file valid. The notebooks are real ones written with nbformat."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat import v4

from skawld_core.messages import ImageBlock, TextBlock
from skawld_core.permissions import PendingToolCall, PermissionEngine
from skawld_core.permissions.claude_rules import parse_claude_rule
from skawld_core.tools import NotebookEditTool, ReadTool, ToolContext, ToolResult, default_tools

from .conftest import call, text_of

# A real 1x1 PNG.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def make_notebook(path: Path, *, minor: int = 5) -> Any:
    nb = v4.new_notebook()
    nb.nbformat_minor = minor
    nb.metadata["language_info"] = {"name": "python"}
    md = v4.new_markdown_cell("# Analysis\nSome *notes*.")
    code = v4.new_code_cell("print('hello')\n1 + 1", execution_count=1)
    code.outputs = [
        v4.new_output("stream", name="stdout", text="hello\n"),
        v4.new_output("execute_result", data={"text/plain": "2"}, execution_count=1),
    ]
    plot = v4.new_code_cell("plot()", execution_count=2)
    plot.outputs = [
        v4.new_output("display_data", data={"image/png": base64.b64encode(PNG).decode(), "text/plain": "<Figure 1x1>"})
    ]
    boom = v4.new_code_cell("1/0", execution_count=3)
    boom.outputs = [
        v4.new_output(
            "error",
            ename="ZeroDivisionError",
            evalue="division by zero",
            traceback=["\x1b[0;31mZeroDivisionError\x1b[0m Traceback", "----> 1 1/0"],
        )
    ]
    nb.cells = [md, code, plot, boom]
    if minor < 5:
        for cell in nb.cells:
            cell.pop("id", None)
    nbformat.validate(nb)
    path.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    return nb


def load(path: Path) -> Any:
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    return nb


def texts(result: ToolResult) -> str:
    assert isinstance(result.content, list), result.content
    return "\n".join(b.text for b in result.content if isinstance(b, TextBlock))


@pytest.fixture
def nb_path(tmp_path: Path) -> Path:
    path = tmp_path / "analysis.ipynb"
    make_notebook(path)
    return path


async def test_read_renders_cells_outputs_and_images(nb_path: Path, ctx: ToolContext) -> None:
    nb = load(nb_path)
    result = await call(ReadTool(), ctx, file_path="analysis.ipynb")
    assert not result.is_error
    out = texts(result)
    md, code, plot, boom = (c.id for c in nb.cells)
    assert f'<cell id="{md}" number="0" type="markdown">\n# Analysis\nSome *notes*.\n</cell>' in out
    assert f'<cell id="{code}" number="1" type="code" language="python" execution_count="1">' in out
    assert f'<output cell="{code}" type="stream" name="stdout">\nhello\n</output>' in out
    assert f'<output cell="{code}" type="execute_result">\n2\n</output>' in out
    assert f'<output cell="{plot}" type="display_data">\n[1 image(s) follow]' in out
    assert f'<output cell="{boom}" type="error">\nZeroDivisionError: division by zero' in out
    assert "\x1b[" not in out and "----> 1 1/0" in out
    assert isinstance(result.content, list)
    images = [b for b in result.content if isinstance(b, ImageBlock)]
    assert len(images) == 1
    assert base64.b64decode(images[0].source.data) == PNG  # type: ignore[union-attr]
    assert images[0].source.media_type == "image/png"  # type: ignore[union-attr]
    # The image comes right after its cell, before the next cell.
    kinds = [type(b).__name__ for b in result.content]
    assert kinds == ["TextBlock", "ImageBlock", "TextBlock"]
    assert result.summary == "Read notebook analysis.ipynb (4 cells)"


async def test_read_of_old_notebook_names_cells_by_number(tmp_path: Path, ctx: ToolContext) -> None:
    make_notebook(tmp_path / "old.ipynb", minor=4)
    out = texts(await call(ReadTool(), ctx, file_path="old.ipynb"))
    assert '<cell id="cell-0" number="0" type="markdown">' in out and '<cell id="cell-3" number="3"' in out


async def test_read_of_broken_notebook_is_a_clear_error(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "bad.ipynb").write_text('{"cells": [')
    result = await call(ReadTool(), ctx, file_path="bad.ipynb")
    assert result.is_error and "bad.ipynb is not valid notebook JSON" in text_of(result)
    (tmp_path / "odd.ipynb").write_text('{"hello": 1}')
    result = await call(ReadTool(), ctx, file_path="odd.ipynb")
    assert result.is_error and "not a Jupyter notebook" in text_of(result)


async def _read(ctx: ToolContext, path: Path) -> None:
    assert not (await call(ReadTool(), ctx, file_path=str(path))).is_error


async def test_replace_clears_outputs_and_keeps_the_notebook_valid(nb_path: Path, ctx: ToolContext) -> None:
    await _read(ctx, nb_path)
    code_id = load(nb_path).cells[1].id
    result = await call(NotebookEditTool(), ctx, notebook_path="analysis.ipynb", cell_id=code_id, new_source="x = 2")
    assert text_of(result) == f"Replaced the source of code cell {code_id} (number 1) in analysis.ipynb."
    nb = load(nb_path)
    assert nb.cells[1].source == "x = 2" and nb.cells[1].outputs == [] and nb.cells[1].execution_count is None
    assert nb.cells[1].id == code_id and len(nb.cells) == 4
    assert nb.cells[2].outputs  # other cells untouched


async def test_replace_can_change_the_cell_type(nb_path: Path, ctx: ToolContext) -> None:
    await _read(ctx, nb_path)
    before = load(nb_path).cells[3]
    await call(
        NotebookEditTool(), ctx, notebook_path=str(nb_path), cell_number=3, new_source="done", cell_type="markdown"
    )
    cell = load(nb_path).cells[3]
    assert cell.cell_type == "markdown" and cell.source == "done" and cell.id == before.id
    assert "outputs" not in cell


async def test_insert_after_a_cell_at_a_number_and_first(nb_path: Path, ctx: ToolContext) -> None:
    await _read(ctx, nb_path)
    tool = NotebookEditTool()
    first_id = load(nb_path).cells[0].id
    r = await call(
        tool,
        ctx,
        notebook_path="analysis.ipynb",
        cell_id=first_id,
        edit_mode="insert",
        cell_type="code",
        new_source="import os",
    )
    assert not r.is_error and "at number 1" in text_of(r)
    await call(
        tool, ctx, notebook_path="analysis.ipynb", cell_number=5, edit_mode="insert", cell_type="raw", new_source="END"
    )
    await call(tool, ctx, notebook_path="analysis.ipynb", edit_mode="insert", cell_type="markdown", new_source="Top")
    nb = load(nb_path)
    assert [c.source for c in nb.cells][:3] == ["Top", "# Analysis\nSome *notes*.", "import os"]
    assert nb.cells[-1].cell_type == "raw" and nb.cells[-1].source == "END"
    assert len({c.id for c in nb.cells}) == 7  # every new cell got its own id


async def test_delete(nb_path: Path, ctx: ToolContext) -> None:
    await _read(ctx, nb_path)
    ids = [c.id for c in load(nb_path).cells]
    r = await call(NotebookEditTool(), ctx, notebook_path="analysis.ipynb", cell_id=ids[2], edit_mode="delete")
    assert text_of(r) == f"Deleted cell {ids[2]} (number 2) in analysis.ipynb."
    assert [c.id for c in load(nb_path).cells] == [ids[0], ids[1], ids[3]]


async def test_old_notebook_edits_by_synthetic_id_and_stays_without_ids(tmp_path: Path, ctx: ToolContext) -> None:
    path = tmp_path / "old.ipynb"
    make_notebook(path, minor=4)
    await _read(ctx, path)
    tool = NotebookEditTool()
    await call(tool, ctx, notebook_path="old.ipynb", cell_id="cell-1", new_source="y = 1")
    await call(
        tool, ctx, notebook_path="old.ipynb", cell_id="cell-0", edit_mode="insert", cell_type="code", new_source="z"
    )
    nb = load(path)
    assert nb.nbformat_minor == 4 and [c.source for c in nb.cells][1:3] == ["z", "y = 1"]
    assert all("id" not in c for c in nb.cells)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"cell_id": "nope"}, 'no cell has the id "nope" (the notebook has 4 cells'),
        ({"cell_number": 4}, "cell_number 4 is out of range (the notebook has 4 cells)"),
        ({}, "cell_id or cell_number is required to replace a cell"),
        ({"edit_mode": "delete"}, "cell_id or cell_number is required to delete a cell"),
    ],
)
async def test_bad_targets_are_refused_and_nothing_is_written(
    nb_path: Path, ctx: ToolContext, args: dict[str, Any], message: str
) -> None:
    await _read(ctx, nb_path)
    before = nb_path.read_bytes()
    result = await call(NotebookEditTool(), ctx, notebook_path="analysis.ipynb", new_source="x", **args)
    assert result.is_error and message in text_of(result)
    assert nb_path.read_bytes() == before


def test_input_rules() -> None:
    from skawld_core.errors import ToolInputError

    tool = NotebookEditTool()
    with pytest.raises(ToolInputError, match="cell_type is required when edit_mode is insert"):
        tool.validate({"notebook_path": "a.ipynb", "edit_mode": "insert", "new_source": "x"})
    with pytest.raises(ToolInputError, match="not both"):
        tool.validate({"notebook_path": "a.ipynb", "cell_id": "a", "cell_number": 1, "new_source": "x"})
    with pytest.raises(ToolInputError, match="edit_mode must be one of"):
        tool.validate({"notebook_path": "a.ipynb", "edit_mode": "append", "new_source": "x"})


async def test_read_before_edit_and_staleness(nb_path: Path, ctx: ToolContext) -> None:
    tool = NotebookEditTool()
    r = await call(tool, ctx, notebook_path="analysis.ipynb", cell_number=0, new_source="x")
    assert r.is_error and "You must Read this notebook before editing it" in text_of(r)
    await _read(ctx, nb_path)
    nb = load(nb_path)
    nb.cells[0].source = "changed elsewhere"
    nb_path.write_text(nbformat.writes(nb) + "\n\n")
    r = await call(tool, ctx, notebook_path="analysis.ipynb", cell_number=0, new_source="x")
    assert r.is_error and "has been modified since it was last read" in text_of(r)


async def test_only_notebooks_and_only_nbformat_4(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    r = await call(NotebookEditTool(), ctx, notebook_path="a.py", cell_number=0, new_source="x")
    assert r.is_error and "not a .ipynb notebook; use Edit" in text_of(r)
    v3 = tmp_path / "v3.ipynb"
    v3.write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "worksheets": [], "metadata": {}, "cells": []}))
    await _read(ctx, v3)
    r = await call(
        NotebookEditTool(), ctx, notebook_path="v3.ipynb", edit_mode="insert", cell_type="code", new_source="x"
    )
    assert r.is_error and "nbformat 4 notebooks only" in text_of(r)


async def test_an_edit_that_would_break_the_schema_is_refused(tmp_path: Path, ctx: ToolContext) -> None:
    path = tmp_path / "weird.ipynb"
    nb = make_notebook(path)
    doc = json.loads(path.read_text())
    doc["cells"][0]["not_a_cell_key"] = 1  # already invalid: the tool must not write an invalid notebook
    path.write_text(json.dumps(doc))
    await _read(ctx, path)
    before = path.read_bytes()
    r = await call(NotebookEditTool(), ctx, notebook_path="weird.ipynb", cell_id=nb.cells[1].id, new_source="x")
    assert r.is_error and "would not be valid" in text_of(r) and "it was not changed" in text_of(r)
    assert path.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-skawld")]


async def test_symlinked_notebook_keeps_the_link(nb_path: Path, tmp_path: Path, ctx: ToolContext) -> None:
    link = tmp_path / "link.ipynb"
    link.symlink_to(nb_path)
    await _read(ctx, link)
    await call(NotebookEditTool(), ctx, notebook_path="link.ipynb", cell_number=0, new_source="via link")
    assert link.is_symlink() and load(nb_path).cells[0].source == "via link"


# -- permissions: the same write scope as Edit ----------------------------------------------------------


def edit_call(path: str, cwd: Path) -> PendingToolCall:
    return PendingToolCall(
        tool_name="NotebookEdit",
        tool_use_id="t",
        input={"notebook_path": path, "cell_number": 0, "new_source": "x"},
        summary="",
        scope="write",
        cwd=cwd,
    )


def test_accept_edits_scope_and_edit_rules_cover_notebook_edit(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    outside = tmp_path / "elsewhere.ipynb"
    engine = PermissionEngine(mode="acceptEdits", project_root=proj)
    assert engine.evaluate(edit_call("a.ipynb", proj)).behavior == "allow"
    d = engine.evaluate(edit_call(str(outside), proj))
    assert d.behavior == "ask" and "outside the project" in (d.reason or "")
    assert engine.evaluate(edit_call(".git/x.ipynb", proj)).behavior == "ask"  # protected path
    deny = parse_claude_rule("Edit(secret/**)", "deny").rules
    engine = PermissionEngine(mode="yolo", rules=deny, project_root=proj)
    assert engine.evaluate(edit_call("secret/n.ipynb", proj)).behavior == "deny"
    assert engine.evaluate(edit_call("open/n.ipynb", proj)).behavior == "allow"
    assert PermissionEngine(mode="plan", project_root=proj).evaluate(edit_call("a.ipynb", proj)).behavior == "deny"


def test_registered_only_when_asked() -> None:
    assert "NotebookEdit" not in [t.name for t in default_tools()]
    assert "NotebookEdit" in [t.name for t in default_tools(notebook_edit=True)]


def test_nbformat_is_not_imported_by_read(tmp_path: Path) -> None:
    import subprocess
    import sys

    make_notebook(tmp_path / "n.ipynb")
    code = (
        "import asyncio, sys\n"
        "from pathlib import Path\n"
        "from skawld_core.tools import ReadTool, ToolContext\n"
        "ctx = ToolContext(cwd=Path('.'), session_id='s', run_id='r', tool_use_id='t')\n"
        "r = asyncio.run(ReadTool().execute(ReadTool().validate({'file_path': 'n.ipynb'}), ctx))\n"
        "print(r.is_error, 'nbformat' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path, env=env
    )
    assert out.stdout.strip() == "False False", out.stdout + out.stderr
