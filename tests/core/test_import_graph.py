"""skawld_core's import graph: layered (no cycles), few function-local imports, cheap to import.

The graph is read from the source with `ast`: every ``import`` / ``from ... import``
of a skawld_core module, classified as top-level, ``if TYPE_CHECKING:`` or
function-local. The layering rule is in docs/architecture.md ("Layers").
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

import skawld_core

PACKAGE = "skawld_core"
ROOT = Path(skawld_core.__file__).parent

Kind = Literal["top", "type_checking", "local"]

# Function-local first-party import statements that may remain (64 before the graph
# was untangled). Lower it when you remove one; raising it needs a reason in review.
LOCAL_IMPORT_BUDGET = 14  # 14: the built-in file tools' path policies (tools/path_policy.py)

# Third-party modules that `import skawld_core` and the SDK's building blocks must not
# load: provider SDKs and HTTP stacks, MCP, the UI, parsers and optional stores.
HEAVY = (
    "anthropic",
    "openai",
    "httpx",
    "httpx2",
    "httpcore2",
    "h11",
    "anyio",
    "mcp",
    "mcp_types",
    "textual",
    "rich",
    "typer",
    "tree_sitter",
    "tree_sitter_bash",
    "yaml",
    "bs4",
    "markdownify",
    "pypdf",
    "nbformat",
    "aiosqlite",
    "asyncpg",
    "skawld_tui",
)


@dataclass(frozen=True)
class Import:
    """One first-party import: `source` imports `target` (a module or package)."""

    source: str
    target: str
    kind: Kind
    line: int


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package under its own name)."""
    found: dict[str, Path] = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = (PACKAGE, *path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _targets(source: str, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The first-party modules an import statement loads (the deepest that exist)."""
    mods = modules()
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


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(source: str, node: ast.AST, kind: Kind) -> Iterator[Import]:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            for target in sorted(_targets(source, child) - {source}):
                yield Import(source, target, kind, child.lineno)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            yield from _walk(source, child, "local")
        elif isinstance(child, ast.If) and kind == "top" and _is_type_checking(child.test):
            for stmt in child.body:
                yield from _walk(source, ast.Module(body=[stmt], type_ignores=[]), "type_checking")
            for stmt in child.orelse:
                yield from _walk(source, ast.Module(body=[stmt], type_ignores=[]), kind)
        else:
            yield from _walk(source, child, kind)


@cache
def imports() -> tuple[Import, ...]:
    """Every first-party import in the package."""
    return tuple(imp for name, path in modules().items() for imp in _walk(name, ast.parse(path.read_text()), "top"))


def _packages_run(source: str, target: str) -> set[str]:
    """The packages whose `__init__` importing `target` runs (those not already around `source`)."""
    parts = target.split(".")
    ancestors = {".".join(parts[:i]) for i in range(1, len(parts))}
    own = source.split(".")
    return ancestors - {".".join(own[:i]) for i in range(1, len(own) + 1)}


def graph(kinds: set[Kind], *, package_inits: bool = False) -> dict[str, set[str]]:
    """Module -> the modules it imports with `kinds`; with `package_inits`, also the
    packages each import runs on the way (importing ``a.b.c`` runs ``a`` and ``a.b``)."""
    edges: dict[str, set[str]] = {m: set() for m in modules()}
    for imp in imports():
        if imp.kind in kinds:
            edges[imp.source].add(imp.target)
            if package_inits:
                edges[imp.source] |= _packages_run(imp.source, imp.target)
    return edges


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


def test_the_graph_sees_the_package() -> None:
    mods = modules()
    assert {"skawld_core", "skawld_core.agent", "skawld_core.tools.bash", "skawld_core.sandbox"} <= set(mods)
    agent_imports = {i.target for i in imports() if i.source == "skawld_core.agent" and i.kind == "top"}
    assert {"skawld_core.session", "skawld_core.tools.registry"} <= agent_imports
    # the classifier: a TYPE_CHECKING import and a function-local one, by line
    tc = [i for i in imports() if i.source == "skawld_core.loop" and i.kind == "type_checking"]
    assert "skawld_core.host" in [i.target for i in tc]
    assert any(i.source == "skawld_core.agent" and i.kind == "local" for i in imports())


def test_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_cycle_among_top_level_and_type_checking_imports() -> None:
    """Dependencies point one way, type-only ones included (docs/architecture.md, "Layers")."""
    assert cycles(graph({"top", "type_checking"})) == []


def test_no_cycle_at_import_time_counting_package_inits() -> None:
    """Whatever module is imported first, none meets a half-initialized one: the
    top-level imports, with the package `__init__`s they run, have no cycle."""
    assert cycles(graph({"top"}, package_inits=True)) == []


def test_function_local_first_party_imports_stay_within_budget() -> None:
    """Imports go at the module top unless lazy for a reason (import cost, or a
    package cycle at import time), and the reason is written next to them."""
    local = sorted({(i.source, i.line) for i in imports() if i.kind == "local"})
    listing = "\n".join(f"{src}:{line}" for src, line in local)
    assert len(local) <= LOCAL_IMPORT_BUDGET, f"{len(local)} function-local imports:\n{listing}"


def test_extension_packages_and_the_loop_never_import_agent_or_session() -> None:
    """MCP, skills, subagents, the loop and the scheduler see the Agent and the
    Session through `skawld_core.host` Protocols."""
    lower = ("skawld_core.mcp", "skawld_core.skills", "skawld_core.subagents", "skawld_core.loop")
    lower += ("skawld_core.scheduler", "skawld_core.direct_tool", "skawld_core.host", "skawld_core.tools")
    wrong = [
        i for i in imports() if i.source.startswith(lower) and i.target in ("skawld_core.agent", "skawld_core.session")
    ]
    assert wrong == []


def _loaded_after(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_import_skawld_core_loads_nothing_heavy() -> None:
    """`import skawld_core` loads the events, messages and errors only: Agent,
    Session, tools and providers wait for first use, third-party heavy modules too."""
    loaded = _loaded_after("import skawld_core")
    assert [m for m in HEAVY if m in loaded] == []
    eager = [m for m in loaded if m.startswith("skawld_core.")]
    assert not [m for m in eager if m.split(".")[1] in ("agent", "session", "tools", "providers", "config")]


def test_the_sdk_building_blocks_load_nothing_heavy() -> None:
    """Agent, config, providers, tools, stores and the extension packages import
    their heavy dependencies where first used, never at import."""
    blocks = ("agent", "config", "providers", "tools", "sessions", "mcp", "skills", "subagents", "checkpoints")
    loaded = _loaded_after("; ".join(f"import skawld_core.{b}" for b in blocks))
    assert [m for m in HEAVY if m in loaded] == []
