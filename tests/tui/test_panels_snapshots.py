"""Snapshots of readable tool panels and highlighted code (SVGs in snapshots/test_panels_snapshots/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from skawld_core.testing import reply, tool_call
from skawld_core.tools.bash import BashTool
from tests.support.mock_tools import MockAlwaysFail

from .helpers import SIZE, make_app, ready, run_done, send

pytestmark = pytest.mark.timeout(60)


def _run(prompt: str) -> Any:
    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, prompt)
        await run_done(pilot)

    return run_before


def test_collapsed_bash_panel_shows_first_lines(snap_compare: Any, tmp_path: Path) -> None:
    command = 'for i in 1 2 3 4 5 6 7 8; do echo "test_$i passed"; done'
    app = make_app(
        [
            reply(tool_call("Bash", {"command": command, "description": "Run the test loop"}, id="b1")),
            reply(tool_call("Bash", {"command": "echo one line"}, id="b2")),
            reply("All eight passed."),
        ],
        tools=[BashTool()],
        mode="yolo",
        cwd=tmp_path,
    )
    assert snap_compare(app, terminal_size=SIZE, run_before=_run("run the tests"))


def test_error_panel_visible_collapsed(snap_compare: Any, tmp_path: Path) -> None:
    app = make_app(
        [
            reply(tool_call("MockAlwaysFail", {"path": "db"}, id="f1")),
            reply(tool_call("Bash", {"command": "echo 'no such table' >&2; exit 2", "description": "Query"}, id="b1")),
            reply("Both failed."),
        ],
        tools=[MockAlwaysFail(), BashTool()],
        mode="yolo",
        cwd=tmp_path,
    )
    assert snap_compare(app, terminal_size=SIZE, run_before=_run("query the db"))


CODE_ANSWER = """The fix:

```python
def total(items: list[int]) -> int:
    \"\"\"Sum the items.\"\"\"
    return sum(items)  # no stray + 1
```

And in the shell:

```bash
pytest -q tests/ && echo "ok"
```
"""


def test_highlighted_code_block(snap_compare: Any, tmp_path: Path) -> None:
    app = make_app([reply(CODE_ANSWER)], cwd=tmp_path)
    assert snap_compare(app, terminal_size=SIZE, run_before=_run("show the fix"))
