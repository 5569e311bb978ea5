"""Glob: patterns, ordering, ignore rules, caps, can_read, both backends (§3 glob.test)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from skawld_core.errors import ToolInputError
from skawld_core.tools import GlobTool
from skawld_core.tools.glob import _newest

from .conftest import HAS_RG, call, make_ctx, text_of
from .search_tree import build_tree

BACKENDS = [
    pytest.param(True, id="rg", marks=pytest.mark.skipif(not HAS_RG, reason="no rg")),
    pytest.param(False, id="py"),
    pytest.param(None, id="index"),
]


def glob_tool(use_rg: bool | None) -> GlobTool:
    """rg or the Python walker (`use_rg` True/False, index off), or the shared file index (None)."""
    return GlobTool() if use_rg is None else GlobTool(use_rg=use_rg, use_index=False)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build_tree(tmp_path / "repo")


def test_validation_summary_flags() -> None:
    g = GlobTool()
    with pytest.raises(ToolInputError):
        g.validate({})
    with pytest.raises(ToolInputError):
        g.validate({"pattern": ""})
    assert g.summarize(g.validate({"pattern": "**/*.ts"})) == "Glob **/*.ts"
    assert g.summarize(g.validate({"pattern": "*.ts", "path": "src"})) == "Glob *.ts in src"
    assert g.scope == "read" and g.parallel_safe


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_recursive_ts_newest_first(tree: Path, use_rg: bool | None) -> None:
    r = await call(glob_tool(use_rg), make_ctx(tree), pattern="**/*.ts")
    # gitignored (anchored/gen), hidden (.hidden) and symlinked (link.ts) files are left out
    assert text_of(r).split("\n") == ["src/beta.ts", "src/alpha.ts", "anchored/keep.ts"]
    assert r.summary == "3 file(s) matched"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_pattern_without_slash_matches_any_depth(tree: Path, use_rg: bool | None) -> None:
    r = await call(glob_tool(use_rg), make_ctx(tree), pattern="*.log")
    assert text_of(r) == "nested/keep.log"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_relative_prefix_is_anchored(tree: Path, use_rg: bool | None) -> None:
    ctx = make_ctx(tree)
    assert text_of(await call(glob_tool(use_rg), ctx, pattern="src/*.ts")) == "src/beta.ts\nsrc/alpha.ts"
    assert text_of(await call(glob_tool(use_rg), ctx, pattern="nested/*.py")) == "No matches found."
    assert text_of(await call(glob_tool(use_rg), ctx, pattern="nested/**/*.py")) == "nested/deep/x.py"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_explicit_path_and_absolute_pattern(tree: Path, use_rg: bool | None) -> None:
    g = glob_tool(use_rg)
    ctx = make_ctx(tree.parent)
    assert text_of(await call(g, ctx, pattern="*.ts", path="repo/src")) == "beta.ts\nalpha.ts"
    assert (
        text_of(await call(g, ctx, pattern=f"{tree}/src/*.t*"))
        == f"{tree}/src/component.tsx\n{tree}/src/beta.ts\n{tree}/src/alpha.ts"
    )


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_specific_md_and_braces(tree: Path, use_rg: bool | None) -> None:
    ctx = make_ctx(tree)
    assert text_of(await call(glob_tool(use_rg), ctx, pattern="**/*.md")) == "readme.md"
    r = await call(glob_tool(use_rg), ctx, pattern="src/*.{js,tsx}")
    assert text_of(r) == "src/gamma.js\nsrc/component.tsx"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_no_matches(tree: Path, use_rg: bool | None) -> None:
    r = await call(glob_tool(use_rg), make_ctx(tree), pattern="**/*.nothing")
    assert text_of(r) == "No matches found." and r.summary == "no matches" and not r.is_error


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_missing_path_is_error(tree: Path, use_rg: bool | None) -> None:
    r = await call(glob_tool(use_rg), make_ctx(tree), pattern="*", path="nope")
    assert r.is_error and text_of(r).startswith("Glob error:")


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_mtime_order(tmp_path: Path, use_rg: bool | None) -> None:
    for i, name in enumerate(["old.py", "new.py", "mid.py"]):
        (tmp_path / name).write_text("x")
        os.utime(tmp_path / name, (1000 + [0, 20, 10][i],) * 2)
    r = await call(glob_tool(use_rg), make_ctx(tmp_path), pattern="*.py")
    assert text_of(r) == "new.py\nmid.py\nold.py"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_cap_at_1000(tmp_path: Path, use_rg: bool | None) -> None:
    for i in range(1005):
        (tmp_path / f"f{i:04}.txt").write_text("")
    r = await call(glob_tool(use_rg), make_ctx(tmp_path), pattern="*.txt")
    lines = text_of(r).split("\n")
    assert len(lines) == 1001
    assert lines[-1] == "… (truncated to 1000 of 1005 results)"
    assert r.summary == "1005 file(s) matched"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_can_read_filter(tree: Path, use_rg: bool | None) -> None:
    denied = os.path.realpath(tree / "src" / "beta.ts")
    ctx = make_ctx(tree, can_read=lambda p: str(p) != denied)
    assert text_of(await call(glob_tool(use_rg), ctx, pattern="src/*.ts")) == "src/alpha.ts"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_symlinked_root_and_can_read_gets_real_paths(tmp_path: Path, use_rg: bool | None) -> None:
    real = build_tree(tmp_path / "real")
    (tmp_path / "alias").symlink_to(real)
    seen: list[Path] = []

    def can_read(p: Path) -> bool:
        seen.append(p)
        return True

    r = await call(glob_tool(use_rg), make_ctx(tmp_path / "alias", can_read=can_read), pattern="src/*.ts")
    assert text_of(r) == "src/beta.ts\nsrc/alpha.ts"
    assert sorted(seen) == [Path(os.path.realpath(real)) / "src" / n for n in ("alpha.ts", "beta.ts")]


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_gitignore_in_parent_directory(tmp_path: Path, use_rg: bool | None) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.gen.py\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.gen.py").write_text("")
    (tmp_path / "pkg" / "b.py").write_text("")
    r = await call(glob_tool(use_rg), make_ctx(tmp_path / "pkg"), pattern="*.py")
    assert text_of(r) == "b.py"


async def test_fallback_sees_gitignore_changes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("")
    (tmp_path / "b.py").write_text("")
    g, ctx = GlobTool(use_rg=False), make_ctx(tmp_path)
    (tmp_path / ".gitignore").write_text("a.py\n")
    assert text_of(await call(g, ctx, pattern="*.py")) == "b.py"
    (tmp_path / ".gitignore").write_text("b.py\n")
    os.utime(tmp_path / ".gitignore", ns=(1, 1))
    assert text_of(await call(g, ctx, pattern="*.py")) == "a.py"


@pytest.mark.parametrize("seed", range(5))
def test_the_newest_head_is_the_full_sort_head(seed: int) -> None:
    rng = random.Random(seed)
    found = [(f"d{rng.randrange(50)}/f{i}.py", rng.choice([1, 2, 3, rng.randrange(10**6)])) for i in range(3000)]
    expected = sorted(found, key=lambda item: (-item[1], item[0]))[:1000]
    assert _newest(list(found), 1000) == expected
    assert _newest(list(found[:10]), 1000) == sorted(found[:10], key=lambda item: (-item[1], item[0]))


def _touch(root: Path, mtimes: dict[str, int]) -> None:
    """Empty files with these mtimes (in ns)."""
    for name, ns in mtimes.items():
        (root / name).write_bytes(b"")
        os.utime(root / name, ns=(1, ns))


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_a_tie_at_the_cap_edge_is_broken_by_path(tmp_path: Path, use_rg: bool | None) -> None:
    newer = {f"new{i:04}.txt": 1_700_000_000_000_000_000 + i for i in range(998)}  # one ns apart
    tied = dict.fromkeys(["t-e.txt", "t-a.txt", "t-d.txt", "t-c.txt", "t-b.txt"], 1_600_000_000_000_000_000)
    _touch(tmp_path, newer | tied)
    lines = text_of(await call(glob_tool(use_rg), make_ctx(tmp_path), pattern="*.txt")).split("\n")
    assert lines[:-1] == [f"new{i:04}.txt" for i in reversed(range(998))] + ["t-a.txt", "t-b.txt"]
    assert lines[-1] == "… (truncated to 1000 of 1003 results)"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_times_before_1970_and_near_it_keep_their_order(tmp_path: Path, use_rg: bool | None) -> None:
    _touch(tmp_path, {"e.py": -1_500_000_000, "z.py": 0, "f.py": 5_000_000_000, "n.py": 1_700_000_000_000_000_000})
    assert text_of(await call(glob_tool(use_rg), make_ctx(tmp_path), pattern="*.py")) == "n.py\nf.py\nz.py\ne.py"
    # past the cap, with the newest 1000 near 1970: the one before 1970 is still the oldest
    _touch(tmp_path, {f"s{i:04}.txt": 5_000_000_000 + i for i in range(1001)} | {"e.txt": -1_500_000_000})
    lines = text_of(await call(glob_tool(use_rg), make_ctx(tmp_path), pattern="*.txt")).split("\n")
    assert lines[:-1] == [f"s{i:04}.txt" for i in reversed(range(1, 1001))]
    assert lines[-1] == "… (truncated to 1000 of 1002 results)"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_a_name_that_is_not_utf8_is_shown_replaced(tmp_path: Path, use_rg: bool | None) -> None:
    fd = os.open(os.fsencode(tmp_path) + b"/bad\xff.py", os.O_WRONLY | os.O_CREAT, 0o644)
    os.close(fd)
    os.utime(os.fsencode(tmp_path) + b"/bad\xff.py", ns=(1, 2_000_000_000_000_000_000))
    _touch(tmp_path, {"good.py": 1_000_000_000_000_000_000})
    assert text_of(await call(glob_tool(use_rg), make_ctx(tmp_path), pattern="*.py")) == "bad\ufffd.py\ngood.py"


@pytest.mark.parametrize("use_rg", BACKENDS)
async def test_a_denied_file_among_the_newest_is_hidden_and_not_counted(tmp_path: Path, use_rg: bool | None) -> None:
    _touch(tmp_path, {f"f{i:04}.txt": 1_000_000_000_000_000_000 + i for i in range(1001)})
    _touch(tmp_path, {"secret.txt": 2_000_000_000_000_000_000})
    secret = os.path.realpath(tmp_path / "secret.txt")
    ctx = make_ctx(tmp_path, can_read=lambda p: str(p) != secret)
    lines = text_of(await call(glob_tool(use_rg), ctx, pattern="*.txt")).split("\n")
    assert lines[0] == "f1000.txt"
    assert "secret.txt" not in lines
    assert lines[-1] == "… (truncated to 1000 of 1001 results)"
