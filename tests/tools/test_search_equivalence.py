"""ripgrep and the pure-Python fallback give identical Grep and Glob results on one tree."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from skawld_core.tools import GlobTool, GrepTool

from .conftest import call, make_ctx, needs_rg, text_of
from .search_tree import build_tree

pytestmark = needs_rg

GREP_QUERIES: list[dict[str, Any]] = [
    {"pattern": "TODO"},  # S1 plain files mode
    {"pattern": "TODO", "output_mode": "count"},  # S2
    {"pattern": "todo", "-i": True},  # S3
    {"pattern": "TODO", "output_mode": "content"},  # S4
    {"pattern": "TODO", "output_mode": "content", "-n": True},  # S5
    {"pattern": "TODO", "glob": "*.ts"},  # S6
    {"pattern": "TODO", "glob": "**/*.md"},  # S7
    {"pattern": "ZZZNOMATCH"},  # S8
    {"pattern": "todo", "-i": True, "output_mode": "content", "-n": True},  # S9
    {"pattern": "todo", "-i": True, "output_mode": "count"},  # S10
    {"pattern": "const|def|class", "output_mode": "content", "-n": True},  # S11
    {"pattern": "TODO", "output_mode": "content", "-n": True, "-C": 1},  # S12
    {"pattern": "TODO", "output_mode": "content", "-n": True, "-A": 2},
    {"pattern": "TODO", "output_mode": "content", "-B": 3, "head_limit": 0},
    {"pattern": "TODO", "output_mode": "content", "-n": True, "-C": 1, "-A": 0},
    {"pattern": "TODO", "type": "py"},
    {"pattern": "TODO", "type": "ts", "output_mode": "count"},
    {"pattern": "TODO", "type": "ts", "glob": "src/*"},
    {"pattern": "TODO", "glob": "src/**"},
    {"pattern": "TODO", "glob": "nested/**/*.log"},
    {"pattern": "TODO", "glob": "*.{py,txt}", "output_mode": "count"},
    {"pattern": "TODO", "path": "nested"},
    {"pattern": "TODO", "path": "crlf.txt", "output_mode": "content", "-n": True},
    {"pattern": "todo$", "output_mode": "content"},
    {"pattern": r"^\s+\w+\(\)", "output_mode": "content", "-n": True},
    {"pattern": r"start.*?end", "multiline": True, "output_mode": "content", "-n": True},
    {"pattern": r"start.*?end", "multiline": True, "output_mode": "count"},
    {"pattern": r"start.*?end", "multiline": True, "output_mode": "content", "-n": True, "-C": 1},
    {"pattern": r"TODO.*\n.*line", "multiline": True},
    {"pattern": r"TODO \d+", "output_mode": "content", "head_limit": 10},
    {"pattern": "colon", "output_mode": "content", "-n": True},
    {"pattern": "unicode", "output_mode": "content"},
    {"pattern": "[[:upper:]]{4}[[:punct:]]", "output_mode": "content", "-n": True},
    {"pattern": r"\bdef\s+\w+\(", "output_mode": "count"},
    {"pattern": "TODO", "path": "build"},
    {"pattern": "TODO", "path": ".hidden", "output_mode": "content"},
    {"pattern": "TODO", "path": "docs/notes.md", "output_mode": "count"},
]

GLOB_QUERIES: list[dict[str, Any]] = [
    {"pattern": "**/*"},
    {"pattern": "*"},
    {"pattern": "**/*.ts"},
    {"pattern": "*.ts"},
    {"pattern": "src/*"},
    {"pattern": "**/*.{py,md}"},
    {"pattern": "*.log"},
    {"pattern": "nested/**"},
    {"pattern": "**/deep/*.py"},
    {"pattern": "[a-m]*.txt"},
    {"pattern": "?ulti.py"},
    {"pattern": "*.nothing"},
    {"pattern": "*", "path": "src"},
    {"pattern": "*", "path": "build"},
    {"pattern": "**/*.ts", "path": ".hidden"},
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tree(tmp_path_factory.mktemp("equiv") / "repo")


@pytest.mark.parametrize("query", GREP_QUERIES, ids=lambda q: " ".join(f"{k}={v}" for k, v in q.items()))
async def test_grep_backends_agree(tree: Path, query: dict[str, Any]) -> None:
    ctx = make_ctx(tree)
    with_rg = await call(GrepTool(use_rg=True), ctx, **query)
    with_py = await call(GrepTool(use_rg=False), ctx, **query)
    assert text_of(with_rg) == text_of(with_py)
    assert with_rg.summary == with_py.summary
    assert not with_rg.is_error


@pytest.mark.parametrize("query", GLOB_QUERIES, ids=lambda q: " ".join(f"{k}={v}" for k, v in q.items()))
async def test_glob_backends_agree(tree: Path, query: dict[str, Any]) -> None:
    ctx = make_ctx(tree)
    with_rg = await call(GlobTool(use_rg=True, use_index=False), ctx, **query)
    with_py = await call(GlobTool(use_rg=False, use_index=False), ctx, **query)
    with_index = await call(GlobTool(), ctx, **query)
    assert text_of(with_rg) == text_of(with_py) == text_of(with_index)
    assert not with_rg.is_error


async def test_ignore_rules_apply_in_both(tree: Path) -> None:
    ctx = make_ctx(tree)
    for use_rg in (True, False):
        out = text_of(await call(GrepTool(use_rg=use_rg), ctx, pattern="TODO"))
        for absent in (
            "docs/",
            "build/",
            "anchored/gen",
            "scratch.tmp",
            "dot-ignore",
            ".hidden",
            ".env",
            "a.log",
            "binary.bin",
            "link.ts",
            "linkdir",
            "#hash.txt",
            "sp ace.txt",
            "generated",
            "pkg/local-only.txt",
            "Bak/",
            "bak/",
        ):
            assert absent not in out, (use_rg, absent)
        for present in (
            "anchored/keep.ts",
            "nested/keep.log",
            "we:ird name.txt",
            "\u00fcn\u00ef.py",
            "keep.tmp",
            "pkg/sub/local-only.txt",
        ):
            assert present in out, (use_rg, present)


async def test_can_read_filter_same_in_both(tree: Path) -> None:
    deny = {os.path.realpath(tree / "src" / "beta.ts"), os.path.realpath(tree / "many.txt")}
    ctx = make_ctx(tree, can_read=lambda p: str(p) not in deny)
    for query in ({"pattern": "TODO"}, {"pattern": "TODO", "output_mode": "content", "-C": 2, "head_limit": 0}):
        a = text_of(await call(GrepTool(use_rg=True), ctx, **query))
        b = text_of(await call(GrepTool(use_rg=False), ctx, **query))
        assert a == b and "beta.ts" not in a and "many.txt" not in a
    a = text_of(await call(GlobTool(use_rg=True), ctx, pattern="**/*"))
    assert a == text_of(await call(GlobTool(use_rg=False), ctx, pattern="**/*"))
    assert "src/beta.ts" not in a.split("\n") and "many.txt" not in a.split("\n")
