"""Edit: validation, unique match, replace_all, CRLF, literal `$`, tracker rules (§3 edit.test)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skawld_core.errors import ToolInputError
from skawld_core.tools import EditTool, ReadTool, ToolContext

from .conftest import call, text_of

edit = EditTool()
read = ReadTool()


async def _prepared(tmp_path: Path, ctx: ToolContext, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    await call(read, ctx, file_path=name)
    return p


def test_validation() -> None:
    v = edit.validate({"file_path": "a", "old_string": "x", "new_string": "y"})
    assert v.replace_all is False
    assert edit.validate({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "true"}).replace_all
    assert edit.validate({"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": 1}).replace_all
    with pytest.raises(ToolInputError, match="use Write to create a file"):
        edit.validate({"file_path": "a", "old_string": "", "new_string": "y"})
    with pytest.raises(ToolInputError):
        edit.validate({"file_path": "a", "old_string": "x"})
    assert edit.scope == "write" and not edit.parallel_safe


def test_summary() -> None:
    v = edit.validate({"file_path": "a.py", "old_string": "x", "new_string": "y"})
    assert edit.summarize(v) == "Edit a.py (replace one)"
    v = edit.validate({"file_path": "a.py", "old_string": "x", "new_string": "y", "replace_all": True})
    assert edit.summarize(v) == "Edit a.py (replace all)"


async def test_single_edit_and_delta(tmp_path: Path, ctx: ToolContext) -> None:
    p = await _prepared(tmp_path, ctx, "a.txt", b"one\ntwo\nthree\n")
    r = await call(edit, ctx, file_path="a.txt", old_string="two", new_string="2a\n2b")
    assert not r.is_error
    assert text_of(r) == "Edited a.txt: +1 lines in a.txt"
    assert p.read_text() == "one\n2a\n2b\nthree\n"
    r = await call(edit, ctx, file_path="a.txt", old_string="2a\n2b\n", new_string="")
    assert text_of(r) == "Edited a.txt: -2 lines in a.txt"
    r = await call(edit, ctx, file_path="a.txt", old_string="one", new_string="uno")
    assert text_of(r) == "Edited a.txt: +0 lines in a.txt"


async def test_replace_all_and_ambiguity(tmp_path: Path, ctx: ToolContext) -> None:
    p = await _prepared(tmp_path, ctx, "f.txt", b"foo foo foo\n")
    r = await call(edit, ctx, file_path="f.txt", old_string="foo", new_string="bar")
    assert r.is_error
    assert "3 occurrences" in text_of(r) and "replace_all" in text_of(r)
    assert p.read_text() == "foo foo foo\n"
    r = await call(edit, ctx, file_path="f.txt", old_string="foo", new_string="bar", replace_all=True)
    assert not r.is_error and p.read_text() == "bar bar bar\n"


async def test_crlf_kept(tmp_path: Path, ctx: ToolContext) -> None:
    p = await _prepared(tmp_path, ctx, "w.txt", b"a\r\nb\r\nc\r\n")
    r = await call(edit, ctx, file_path="w.txt", old_string="b", new_string="x\ny")
    assert not r.is_error
    assert p.read_bytes() == b"a\r\nx\r\ny\r\nc\r\n"


async def test_lf_kept(tmp_path: Path, ctx: ToolContext) -> None:
    p = await _prepared(tmp_path, ctx, "u.txt", b"a\nb\nc\n")
    await call(edit, ctx, file_path="u.txt", old_string="b", new_string="x\ny")
    assert p.read_bytes() == b"a\nx\ny\nc\n"


async def test_lf_needle_on_crlf_file(tmp_path: Path, ctx: ToolContext) -> None:
    p = await _prepared(tmp_path, ctx, "c.txt", b"a\r\nline1\r\nline2\r\nline3\r\n")
    r = await call(edit, ctx, file_path="c.txt", old_string="line1\nline2", new_string="b")
    assert not r.is_error
    assert p.read_bytes() == b"a\r\nb\r\nline3\r\n"


@pytest.mark.parametrize("replacement", ["$$VAR", "$&dup", "pre$`post", "a$'b", r"\1\g<0>"])
@pytest.mark.parametrize("replace_all", [False, True])
async def test_dollar_patterns_literal(tmp_path: Path, ctx: ToolContext, replacement: str, replace_all: bool) -> None:
    p = await _prepared(tmp_path, ctx, "d.txt", b"X here\n")
    r = await call(edit, ctx, file_path="d.txt", old_string="X", new_string=replacement, replace_all=replace_all)
    assert not r.is_error
    assert p.read_text() == f"{replacement} here\n"


async def test_symlink_edit_keeps_link(tmp_path: Path, ctx: ToolContext) -> None:
    target = tmp_path / "t.txt"
    target.write_text("hello\n")
    link = tmp_path / "l.txt"
    link.symlink_to(target)
    await call(read, ctx, file_path="l.txt")
    r = await call(edit, ctx, file_path="t.txt", old_string="hello", new_string="bye")
    assert not r.is_error
    r = await call(edit, ctx, file_path="l.txt", old_string="bye", new_string="ciao")
    assert not r.is_error
    assert link.is_symlink() and target.read_text() == "ciao\n"


async def test_errors(tmp_path: Path, ctx: ToolContext) -> None:
    (tmp_path / "n.txt").write_text("abc\n")
    r = await call(edit, ctx, file_path="n.txt", old_string="a", new_string="b")
    assert r.is_error and text_of(r) == "Error: You must Read this file before editing it."
    await call(read, ctx, file_path="n.txt")
    r = await call(edit, ctx, file_path="n.txt", old_string="a", new_string="a")
    assert r.is_error and "exactly the same" in text_of(r)
    r = await call(edit, ctx, file_path="n.txt", old_string="zzz", new_string="y")
    assert r.is_error and text_of(r) == "Error: old_string not found in file."
    (tmp_path / "n.txt").unlink()
    r = await call(edit, ctx, file_path="n.txt", old_string="a", new_string="b")
    assert r.is_error and text_of(r) == "Error: File not found."


async def test_refuses_file_changed_since_read(tmp_path: Path, ctx: ToolContext) -> None:
    p = await _prepared(tmp_path, ctx, "s.txt", b"v1\n")
    p.write_text("v1 plus someone's change\n")
    r = await call(edit, ctx, file_path="s.txt", old_string="v1", new_string="v2")
    assert r.is_error and "modified since it was last read" in text_of(r)
    assert p.read_text() == "v1 plus someone's change\n"


async def test_read_edit_read(tmp_path: Path, ctx: ToolContext) -> None:
    await _prepared(tmp_path, ctx, "r.txt", b"alpha\nbeta\n")
    await call(edit, ctx, file_path="r.txt", old_string="beta", new_string="gamma")
    assert text_of(await call(read, ctx, file_path="r.txt")) == "     1\talpha\n     2\tgamma"


async def test_non_utf8_bytes_preserved(tmp_path: Path, ctx: ToolContext) -> None:
    p = await _prepared(tmp_path, ctx, "latin.txt", b"caf\xe9 = 1\nx\n")
    r = await call(edit, ctx, file_path="latin.txt", old_string="x", new_string="y")
    assert not r.is_error
    assert p.read_bytes() == b"caf\xe9 = 1\ny\n"


async def test_crlf_region_in_mostly_lf_file(tmp_path: Path, ctx: ToolContext) -> None:
    p = await _prepared(tmp_path, ctx, "mixed.txt", b"a\nb\nc\nd\r\ne\r\nf\n")
    r = await call(edit, ctx, file_path="mixed.txt", old_string="d\ne", new_string="D\nE")
    assert not r.is_error
    assert p.read_bytes() == b"a\nb\nc\nD\r\nE\r\nf\n"
