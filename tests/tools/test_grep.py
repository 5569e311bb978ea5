"""Grep: modes, flags, filters, caps, can_read and errors on both backends (§3 grep.test)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from skawld_core.errors import ToolInputError
from skawld_core.tools import GrepTool

from .conftest import HAS_RG, call, make_ctx, text_of

BACKENDS = [
    pytest.param(True, id="rg", marks=pytest.mark.skipif(not HAS_RG, reason="no rg")),
    pytest.param(False, id="py"),
]


@pytest.fixture
def fixture_tree(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / ".gitignore").write_text("docs/\n")
    (root / "src" / "alpha.ts").write_text("const a = 1;\n// TODO: alpha task\n")
    (root / "src" / "beta.ts").write_text("// todo lowercase\n// TODO beta\nconst b = 2;\n")
    (root / "src" / "gamma.js").write_text("const g = 3;\n")
    (root / "docs" / "notes.md").write_text("TODO in ignored docs\n")
    (root / "binary.bin").write_bytes(b"TODO\0\x01\x02")
    return root


def lines(result_text: str) -> list[str]:
    return result_text.split("\n")


def test_schema_uses_rg_flag_names() -> None:
    schema = GrepTool().input_schema
    for flag in ("-i", "-n", "-A", "-B", "-C", "head_limit", "output_mode", "multiline", "glob", "type"):
        assert flag in schema["properties"]
    assert schema["required"] == ["pattern"]
    g = GrepTool()
    v = g.validate({"pattern": "x", "-i": True, "-C": 2})
    assert v.ignore_case and v.context == 2
    assert g.dump_input(v) == {
        "pattern": "x",
        "output_mode": "files_with_matches",
        "-i": True,
        "-n": False,
        "-C": 2,
        "multiline": False,
        "head_limit": 250,
    }
    with pytest.raises(ToolInputError):
        g.validate({"pattern": "x", "output_mode": "lines"})
    with pytest.raises(ToolInputError):
        g.validate({"pattern": "x", "-A": -1})


def test_summary_and_flags() -> None:
    g = GrepTool()
    s = g.summarize(g.validate({"pattern": "TODO", "output_mode": "content"}))
    assert "TODO" in s and "content" in s
    assert g.scope == "read" and g.parallel_safe


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_files_mode(fixture_tree: Path, use_rg: bool) -> None:
    r = await call(GrepTool(use_rg=use_rg), make_ctx(fixture_tree), pattern="TODO")
    assert lines(text_of(r)) == [f"{fixture_tree}/src/alpha.ts", f"{fixture_tree}/src/beta.ts"]
    assert r.summary == "Grep matched 2 line(s)"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_no_match(fixture_tree: Path, use_rg: bool) -> None:
    r = await call(GrepTool(use_rg=use_rg), make_ctx(fixture_tree), pattern="ZZZNOMATCH")
    assert text_of(r) == "No matches found." and not r.is_error


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_content_ignore_case_and_numbers(fixture_tree: Path, use_rg: bool) -> None:
    g, ctx = GrepTool(use_rg=use_rg), make_ctx(fixture_tree)
    plain = lines(text_of(await call(g, ctx, pattern="TODO", output_mode="content")))
    assert plain == [f"{fixture_tree}/src/alpha.ts:// TODO: alpha task", f"{fixture_tree}/src/beta.ts:// TODO beta"]
    numbered = lines(text_of(await call(g, ctx, pattern="todo", output_mode="content", **{"-i": True, "-n": True})))
    assert numbered == [
        f"{fixture_tree}/src/alpha.ts:2:// TODO: alpha task",
        f"{fixture_tree}/src/beta.ts:1:// todo lowercase",
        f"{fixture_tree}/src/beta.ts:2:// TODO beta",
    ]
    assert all(re.search(r":\d+:", line) for line in numbered)


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_context(fixture_tree: Path, use_rg: bool) -> None:
    r = await call(
        GrepTool(use_rg=use_rg), make_ctx(fixture_tree), pattern="alpha", output_mode="content", **{"-C": 1, "-n": True}
    )
    assert lines(text_of(r)) == [
        f"{fixture_tree}/src/alpha.ts-1-const a = 1;",
        f"{fixture_tree}/src/alpha.ts:2:// TODO: alpha task",
    ]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_count_mode(fixture_tree: Path, use_rg: bool) -> None:
    r = await call(GrepTool(use_rg=use_rg), make_ctx(fixture_tree), pattern="TODO", output_mode="count", **{"-i": True})
    assert lines(text_of(r)) == [f"{fixture_tree}/src/alpha.ts:1", f"{fixture_tree}/src/beta.ts:2"]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_glob_and_type_filters(fixture_tree: Path, use_rg: bool) -> None:
    g, ctx = GrepTool(use_rg=use_rg), make_ctx(fixture_tree)
    r = await call(g, ctx, pattern="const", glob="**/*.ts")
    assert lines(text_of(r)) == [f"{fixture_tree}/src/alpha.ts", f"{fixture_tree}/src/beta.ts"]
    r = await call(g, ctx, pattern="const", type="js")
    assert lines(text_of(r)) == [f"{fixture_tree}/src/gamma.js"]
    r = await call(g, ctx, pattern="TODO", glob="*.md")  # a glob never re-includes a gitignored file
    assert text_of(r) == "No matches found."


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_single_file_path(fixture_tree: Path, use_rg: bool) -> None:
    r = await call(
        GrepTool(use_rg=use_rg),
        make_ctx(fixture_tree),
        pattern="TODO",
        path="src/beta.ts",
        output_mode="content",
        **{"-n": True},
    )
    assert text_of(r) == f"{fixture_tree}/src/beta.ts:2:// TODO beta"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_head_limit(tmp_path: Path, use_rg: bool) -> None:
    (tmp_path / "many.txt").write_text("".join(f"hit {i}\n" for i in range(300)))
    r = await call(GrepTool(use_rg=use_rg), make_ctx(tmp_path), pattern="hit", output_mode="content", head_limit=50)
    out = lines(text_of(r))
    assert len(out) <= 52
    assert out[-1] == "… (truncated to 50 of 300 lines)"
    r = await call(GrepTool(use_rg=use_rg), make_ctx(tmp_path), pattern="hit", output_mode="content", head_limit=0)
    assert len(lines(text_of(r))) == 300


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_output_char_cap(tmp_path: Path, use_rg: bool) -> None:
    (tmp_path / "wide.txt").write_text("".join("match " + "w" * 100 + f"{i:02}\n" for i in range(400)))
    r = await call(GrepTool(use_rg=use_rg), make_ctx(tmp_path), pattern="match", output_mode="content", head_limit=0)
    out = text_of(r)
    assert len(out) <= 30_200 and "truncated" in out


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_long_lines_clipped(tmp_path: Path, use_rg: bool) -> None:
    (tmp_path / "min.js").write_text("needle" + "z" * 1000 + "\n")
    out = text_of(await call(GrepTool(use_rg=use_rg), make_ctx(tmp_path), pattern="needle", output_mode="content"))
    assert out == f"{tmp_path}/min.js:needle" + "z" * 494 + "… (506 chars truncated)"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_bad_regex_is_error_result(fixture_tree: Path, use_rg: bool) -> None:
    r = await call(GrepTool(use_rg=use_rg), make_ctx(fixture_tree), pattern="(unclosed")
    assert r.is_error and isinstance(r.content, str) and r.content.startswith("Error: Grep error:")


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_unknown_type_and_missing_path(fixture_tree: Path, use_rg: bool) -> None:
    r = await call(GrepTool(use_rg=use_rg), make_ctx(fixture_tree), pattern="x", type="no-such-type")
    assert r.is_error and "no-such-type" in text_of(r)
    r = await call(GrepTool(use_rg=use_rg), make_ctx(fixture_tree), pattern="x", path="missing")
    assert r.is_error and "not found" in text_of(r)


@pytest.mark.parametrize("use_rg", BACKENDS)
@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
async def test_can_read_hides_names_and_contents(fixture_tree: Path, use_rg: bool, mode: str) -> None:
    denied = os.path.realpath(fixture_tree / "src" / "beta.ts")
    ctx = make_ctx(fixture_tree, can_read=lambda p: str(p) != denied)
    r = await call(GrepTool(use_rg=use_rg), ctx, pattern="TODO|const", output_mode=mode, **{"-C": 2})
    assert "beta" not in text_of(r)
    assert "alpha.ts" in text_of(r)


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_multiline(tmp_path: Path, use_rg: bool) -> None:
    (tmp_path / "m.py").write_text("def start():\n    body()\n    end()\nother\n")
    r = await call(
        GrepTool(use_rg=use_rg),
        make_ctx(tmp_path),
        pattern=r"start.*?end",
        output_mode="content",
        multiline=True,
        **{"-n": True},
    )
    assert lines(text_of(r)) == [
        f"{tmp_path}/m.py:{n}:{t}" for n, t in [(1, "def start():"), (2, "    body()"), (3, "    end()")]
    ]
    r = await call(GrepTool(use_rg=use_rg), make_ctx(tmp_path), pattern=r"start.*?end", output_mode="content")
    assert text_of(r) == "No matches found."


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_context_groups_and_head_limit_count_separators(tmp_path: Path, use_rg: bool) -> None:
    (tmp_path / "a.txt").write_text("".join(f"{'hit' if i in (2, 9) else 'x'}\n" for i in range(1, 13)))
    (tmp_path / "b.txt").write_text("hit\n")
    g, ctx = GrepTool(use_rg=use_rg), make_ctx(tmp_path)
    r = await call(g, ctx, pattern="hit", output_mode="content", **{"-n": True, "-C": 1})
    a, b = f"{tmp_path}/a.txt", f"{tmp_path}/b.txt"
    expected = [f"{a}-1-x", f"{a}:2:hit", f"{a}-3-x", "--", f"{a}-8-x", f"{a}:9:hit", f"{a}-10-x", "--", f"{b}:1:hit"]
    assert lines(text_of(r)) == expected
    assert r.summary == f"Grep matched {len(expected)} line(s)"
    r = await call(g, ctx, pattern="hit", output_mode="content", head_limit=4, **{"-n": True, "-C": 1})
    assert lines(text_of(r)) == [*expected[:4], f"… (truncated to 4 of {len(expected)} lines)"]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_can_read_checks_real_path_of_explicit_symlinked_file(tmp_path: Path, use_rg: bool) -> None:
    (tmp_path / "secret.env").write_text("TOKEN=abc\n")
    (tmp_path / "innocent.txt").symlink_to(tmp_path / "secret.env")
    denied = os.path.realpath(tmp_path / "secret.env")
    ctx = make_ctx(tmp_path, can_read=lambda p: str(p) != denied)
    r = await call(GrepTool(use_rg=use_rg), ctx, pattern="TOKEN", path="innocent.txt", output_mode="content")
    assert text_of(r) == "No matches found."
