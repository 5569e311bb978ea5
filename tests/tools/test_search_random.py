"""Randomised trees and queries: rg and the Python fallback must agree on every one."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from skawld_core.tools import GlobTool, GrepTool

from .conftest import call, make_ctx, needs_rg, text_of

pytestmark = needs_rg

WORDS = ["alpha", "Beta", "gamma", "TODO", "todo", "fixme", "x1", "y_2", "end"]
NAMES = ["a", "b", "lib", "test_x", "main", "util", "Data", "notes"]
EXTS = [".py", ".ts", ".md", ".txt", ".js", ".log", ""]
DIRS = ["", "src", "src/core", "docs", "build", "pkg/gen", "pkg/sub", "tests"]
IGNORE_LINES = [
    "*.log",
    "build/",
    "/docs",
    "gen/",
    "!keep.log",
    "test_*",
    "**/sub/*.md",
    "src/core/*.js",
    "Data*",
    "*.txt",
    "!src/**/notes.txt",
    "lib.*",
    "/main.py",
]
GLOBS = [None, "*.py", "**/*.ts", "src/**", "src/*.py", "*.{md,txt}", "**/sub/*", "[ab].*", "test_?.py"]
PATTERNS = ["TODO", "todo", "alpha|gamma", r"\bend\b", r"x\d", "^Beta", r"y_2$", "fix.e"]


def build_random_tree(root: Path, rnd: random.Random) -> None:
    for _ in range(40):
        d = root / rnd.choice(DIRS)
        d.mkdir(parents=True, exist_ok=True)
        name = rnd.choice(NAMES) + rnd.choice(EXTS)
        lines = [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 5))) for _ in range(rnd.randint(0, 8))]
        (d / name).write_text("\n".join(lines) + ("\n" if lines and rnd.random() < 0.8 else ""))
    (root / "keep.log").write_text("TODO keep\n")
    for where in ("", "src", "pkg"):
        if rnd.random() < 0.7:
            (root / where).mkdir(parents=True, exist_ok=True)
            chosen = rnd.sample(IGNORE_LINES, rnd.randint(1, 4))
            (root / where / ".gitignore").write_text("\n".join(chosen) + "\n")


def random_grep_query(rnd: random.Random) -> dict[str, Any]:
    q: dict[str, Any] = {"pattern": rnd.choice(PATTERNS), "head_limit": 0}
    q["output_mode"] = rnd.choice(["files_with_matches", "content", "count"])
    if (glob := rnd.choice(GLOBS)) is not None:
        q["glob"] = glob
    if rnd.random() < 0.3:
        q["-i"] = True
    if q["output_mode"] == "content":
        q["-n"] = rnd.random() < 0.5
        if rnd.random() < 0.4:
            q[rnd.choice(["-A", "-B", "-C"])] = rnd.randint(0, 2)
    if rnd.random() < 0.15:
        q["type"] = rnd.choice(["py", "ts", "md", "js"])
    return q


@pytest.mark.parametrize("seed", range(12))
async def test_random_trees_agree(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    build_random_tree(tmp_path, rnd)
    ctx = make_ctx(tmp_path)
    for _ in range(12):
        q = random_grep_query(rnd)
        a = await call(GrepTool(use_rg=True), ctx, **q)
        b = await call(GrepTool(use_rg=False), ctx, **q)
        assert text_of(a) == text_of(b), q
    for glob in GLOBS[1:]:
        a = await call(GlobTool(use_rg=True, use_index=False), ctx, pattern=glob)
        b = await call(GlobTool(use_rg=False, use_index=False), ctx, pattern=glob)
        c = await call(GlobTool(), ctx, pattern=glob)  # the shared file index
        assert text_of(a) == text_of(b) == text_of(c), glob
