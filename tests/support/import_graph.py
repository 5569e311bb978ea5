"""A package's first-party import graph, read from its source with `ast`.

Every ``import`` / ``from ... import`` of one of the package's modules, classified as
top-level, ``if TYPE_CHECKING:`` or function-local (with the comment on its line, where
a lazy import states its reason). Used by the import-graph tests of `skawld_core` and
`skawld_tui`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

Kind = Literal["top", "type_checking", "local"]


@dataclass(frozen=True)
class Import:
    """One first-party import: `source` imports `target` (a module or package)."""

    source: str
    target: str
    kind: Kind
    line: int
    comment: str = ""
    """The ``#`` comment on the import's first line, if any."""
    end_line: int = 0
    scope: str = ""
    """The function it is in (``""`` at module level)."""


class ImportGraph:
    """The modules of the package at `root` (named `package`) and their imports."""

    def __init__(self, package: str, root: Path) -> None:
        self.package = package
        self.root = root

    @cached_property
    def modules(self) -> dict[str, Path]:
        """Every module of the package by dotted name (a package under its own name)."""
        found: dict[str, Path] = {}
        for path in sorted(self.root.rglob("*.py")):
            parts = (self.package, *path.relative_to(self.root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
        return found

    def _targets(self, source: str, node: ast.Import | ast.ImportFrom) -> set[str]:
        """The first-party modules an import statement loads (the deepest that exist)."""
        mods = self.modules
        if isinstance(node, ast.Import):
            return {a.name for a in node.names if a.name in mods}
        base = node.module or ""
        if node.level:
            package = source.split(".")
            if mods[source].name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, base] if base else package)
        out = {f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names}
        return {t for t in out if t in mods}

    def _walk(self, source: str, node: ast.AST, kind: Kind, lines: list[str], scope: str = "") -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                text = lines[child.lineno - 1]
                comment = text.split("#", 1)[1].strip() if "#" in text else ""
                end = child.end_lineno or child.lineno
                for target in sorted(self._targets(source, child) - {source}):
                    yield Import(source, target, kind, child.lineno, comment, end, scope)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                yield from self._walk(source, child, "local", lines, f"{scope}.{child.name}" if scope else child.name)
            elif isinstance(child, ast.If) and kind == "top" and _is_type_checking(child.test):
                for stmt in child.body:
                    module = ast.Module(body=[stmt], type_ignores=[])
                    yield from self._walk(source, module, "type_checking", lines, scope)
                for stmt in child.orelse:
                    yield from self._walk(source, ast.Module(body=[stmt], type_ignores=[]), kind, lines, scope)
            else:
                yield from self._walk(source, child, kind, lines, scope)

    @cached_property
    def imports(self) -> tuple[Import, ...]:
        """Every first-party import in the package."""
        out: list[Import] = []
        for name, path in self.modules.items():
            text = path.read_text()
            out.extend(self._walk(name, ast.parse(text), "top", text.splitlines()))
        return tuple(out)

    def unexplained_local_imports(self) -> list[Import]:
        """First-party function-local imports without a ``# lazy: reason``. A block of
        import statements (any module; one blank line apart at most, as isort groups them)
        is explained by a ``# lazy:`` comment on any of its statements."""
        explained: set[tuple[str, int]] = set()
        for name, path in self.modules.items():
            text = path.read_text()
            lines = text.splitlines()
            for block in _local_import_blocks(ast.parse(text)):
                if any("# lazy:" in lines[node.lineno - 1] for node in block):
                    explained.update((name, node.lineno) for node in block)
        local = {(i.source, i.line): i for i in self.imports if i.kind == "local"}
        return [imp for key, imp in sorted(local.items()) if key not in explained]

    def graph(self, kinds: set[Kind], *, package_inits: bool = False) -> dict[str, set[str]]:
        """Module -> the modules it imports with `kinds`; with `package_inits`, also the
        packages each import runs on the way (importing ``a.b.c`` runs ``a`` and ``a.b``)."""
        edges: dict[str, set[str]] = {m: set() for m in self.modules}
        for imp in self.imports:
            if imp.kind in kinds:
                edges[imp.source].add(imp.target)
                if package_inits:
                    edges[imp.source] |= _packages_run(imp.source, imp.target)
        return edges


def _local_import_blocks(tree: ast.AST) -> Iterator[list[ast.Import | ast.ImportFrom]]:
    """Runs of import statements in each function body (one blank line apart at most)."""
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        block: list[ast.Import | ast.ImportFrom] = []
        for node in ast.walk(func):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            if block and node.lineno - (block[-1].end_lineno or block[-1].lineno) > 2:
                yield block
                block = []
            block.append(node)
        if block:
            yield block


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _packages_run(source: str, target: str) -> set[str]:
    """The packages whose `__init__` importing `target` runs (those not already around `source`)."""
    parts = target.split(".")
    ancestors = {".".join(parts[:i]) for i in range(1, len(parts))}
    own = source.split(".")
    return ancestors - {".".join(own[:i]) for i in range(1, len(own) + 1)}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found
