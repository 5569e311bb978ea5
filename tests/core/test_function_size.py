"""No function in skawld_core or skawld_tui is longer than 100 lines (from its ``def`` to
its last line): a longer one is several steps that want names of their own."""

from __future__ import annotations

import ast
from pathlib import Path

import skawld_core
import skawld_tui

LIMIT = 100


def test_no_function_over_the_limit() -> None:
    long: list[str] = []
    for package in (skawld_core, skawld_tui):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > LIMIT:
                        long.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []
