"""skawld_tui's import graph: no cycles, function-local imports only with a written reason,
the app's and the plain mode's parts never import the app or the chat, and the headless
runners never import the app, the plain mode or Textual.

The graph is read from the source (`tests.support.import_graph`), as for skawld_core
(`tests/core/test_import_graph.py`); docs/architecture.md describes the layout.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import skawld_tui
from tests.support.import_graph import ImportGraph, cycles

GRAPH = ImportGraph("skawld_tui", Path(skawld_tui.__file__).parent)


def test_the_graph_sees_the_package() -> None:
    assert {"skawld_tui.app.skawld_app", "skawld_tui.headless.run", "skawld_tui.cli.command"} <= set(GRAPH.modules)
    local = [i for i in GRAPH.imports if i.source == "skawld_tui.headless.run" and i.kind == "local"]
    assert {i.target for i in local} == {"skawld_tui.headless.claude_runner", "skawld_tui.headless.skawld_runner"}
    assert all(i.comment.startswith("lazy:") for i in local)
    tc = [i.target for i in GRAPH.imports if i.source == "skawld_tui.app.composer" and i.kind == "type_checking"]
    assert "skawld_tui.app.host" in tc


def test_no_cycle_among_top_level_and_type_checking_imports() -> None:
    """Dependencies point one way, type-only ones included: a part gets the app as the
    `ChatApp` Protocol (`app/host.py`) and the plain chat as `PlainView` (`plain/view.py`)."""
    assert cycles(GRAPH.graph({"top", "type_checking"})) == []


def test_no_cycle_at_import_time_counting_package_inits() -> None:
    assert cycles(GRAPH.graph({"top"}, package_inits=True)) == []


def test_every_function_local_import_says_why_it_is_lazy() -> None:
    """An import goes at the module top unless it waits for a reason (start-up time, a
    sub-command's or a screen's own dependencies), written next to it as ``# lazy: ...``."""
    silent = [f"{i.source}:{i.line} imports {i.target}" for i in GRAPH.unexplained_local_imports()]
    assert silent == []


def test_the_parts_never_import_the_app_or_the_plain_chat() -> None:
    starters = {"skawld_tui.cli.command"}  # the command line starts them
    wrong = [
        f"{i.source} -> {i.target}"
        for i in GRAPH.imports
        if i.target in ("skawld_tui.app.skawld_app", "skawld_tui.plain.chat") and i.source not in starters
    ]
    assert wrong == []


def test_headless_imports_no_app_and_no_plain_mode() -> None:
    wrong = [
        f"{i.source} -> {i.target}"
        for i in GRAPH.imports
        if i.source.startswith("skawld_tui.headless") and i.target.startswith(("skawld_tui.app", "skawld_tui.plain"))
    ]
    assert wrong == []
    probe = (
        "import sys\n"
        "import skawld_tui.headless.run, skawld_tui.headless.skawld_runner, skawld_tui.headless.claude_runner\n"
        "print('textual' in sys.modules, 'prompt_toolkit' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
