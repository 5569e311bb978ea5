"""skawld_core's import graph: layered (no cycles), few function-local imports, cheap to import.

The graph is read from the source with `ast` (`tests.support.import_graph`): every
``import`` / ``from ... import`` of a skawld_core module, classified as top-level,
``if TYPE_CHECKING:`` or function-local. The layering rule is in docs/architecture.md ("Layers").
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import skawld_core
from tests.support.import_graph import Import, ImportGraph, Kind, cycles

PACKAGE = "skawld_core"
ROOT = Path(skawld_core.__file__).parent

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


GRAPH = ImportGraph(PACKAGE, ROOT)


def modules() -> dict[str, Path]:
    return GRAPH.modules


def imports() -> tuple[Import, ...]:
    return GRAPH.imports


def graph(kinds: set[Kind], *, package_inits: bool = False) -> dict[str, set[str]]:
    return GRAPH.graph(kinds, package_inits=package_inits)


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
