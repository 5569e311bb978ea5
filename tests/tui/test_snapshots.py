"""Snapshot tests (SVGs in the top-level snapshots/test_snapshots/ directory).

Everything on screen is fixed: scripted model, fixed session id, fixed terminal
size, no durations (`AppForTests.SHOW_TIMINGS = False`), cursor blink off.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, text, thinking, tool_call
from skawld_core.tools.bash import BashTool
from skawld_core.tools.edit import EditTool
from skawld_core.tools.read import ReadTool
from skawld_tui.app.screens.network_ask import NetworkAskScreen
from skawld_tui.app.screens.permission import PermissionScreen
from skawld_tui.app.widgets.blocks import AssistantMarkdown
from skawld_tui.app.widgets.tool_panel import ToolPanel
from tests.support.mock_tools import MockAlwaysFail, MockRead
from tests.support.nesting import Delegate

from .helpers import SIZE, make_app, ready, run_done, send, until
from .test_app import nested_provider, stored_history

pytestmark = pytest.mark.timeout(60)

ANSWER = """Here is the plan:

1. Read `app.py`
2. Fix the **off-by-one** bug

```python
for i in range(len(items)):
    print(items[i])
```
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text("def total(items):\n    return sum(items) + 1\n")
    return tmp_path


def test_empty_app(snap_compare: Any) -> None:
    assert snap_compare(make_app([]), terminal_size=SIZE, run_before=ready)


def test_streaming_turn(snap_compare: Any) -> None:
    hold = asyncio.Event()
    turn = reply(thinking("The user wants a plan."), text(ANSWER, chunk=4))
    turn.hold, turn.hold_at = hold, 2 + len(ANSWER) // 8  # stop half way through the text
    app = make_app([turn])

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "How do I fix the bug?")
        await until(lambda: bool(app.query(AssistantMarkdown)), pilot)
        md = app.query_one(AssistantMarkdown)
        await until(lambda: md.feed is not None and not md.feed.parts and len(md.source) > 20, pilot)
        await pilot.pause(0.1)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def _panels_app(project: Path) -> Any:
    return make_app(
        [
            reply(
                "Let me look around.",
                tool_call("Read", {"file_path": "app.py"}, id="t1"),
                tool_call("MockRead", {"path": "notes.txt"}, id="t2"),
            ),
            reply(tool_call("MockAlwaysFail", {"path": "db"}, id="t3")),
            reply(tool_call("Bash", {"command": "echo hello; echo world"}, id="t4")),
            reply("Done: the file sums items and adds one."),
        ],
        tools=[ReadTool(), MockRead(), MockAlwaysFail(), BashTool()],
        mode="yolo",
        cwd=project,
    )


def test_tool_panels_collapsed(snap_compare: Any, project: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "inspect the project")
        await run_done(pilot)

    assert snap_compare(_panels_app(project), terminal_size=SIZE, run_before=run_before)


def test_tool_panels_expanded(snap_compare: Any, project: Path) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "inspect the project")
        await run_done(pilot)
        for panel in pilot.app.query(ToolPanel):
            if panel.tool_use_id in ("t1", "t3", "t4"):
                panel.collapsed = False
        await pilot.pause()
        pilot.app.transcript.scroll_end(animate=False)
        await pilot.pause()

    assert snap_compare(_panels_app(project), terminal_size=(100, 44), run_before=run_before)


def test_diff_panel(snap_compare: Any, project: Path) -> None:
    app = make_app(
        [
            reply(tool_call("Read", {"file_path": "app.py"}, id="r1")),
            reply(
                tool_call(
                    "Edit",
                    {"file_path": "app.py", "old_string": "sum(items) + 1", "new_string": "sum(items)"},
                    id="e1",
                )
            ),
            reply("Removed the stray `+ 1`."),
        ],
        tools=[ReadTool(), EditTool()],
        mode="yolo",
        cwd=project,
    )

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "fix total()")
        await run_done(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_permission_modal(snap_compare: Any, project: Path) -> None:
    app = make_app(
        [
            reply(
                "I'll run the tests.",
                tool_call("Bash", {"command": "pytest -q tests/", "description": "Run the tests"}, id="b1"),
            )
        ],
        tools=[BashTool()],
        cwd=project,
    )

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "run the tests")
        await until(lambda: isinstance(pilot.app.screen, PermissionScreen), pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_network_ask_modal(snap_compare: Any, project: Path) -> None:
    app = make_app(cwd=project)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        pilot.app.push_screen(NetworkAskScreen("pypi.org", "WebFetch(domain:pypi.org)"))
        await until(lambda: isinstance(pilot.app.screen, NetworkAskScreen), pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_nested_subagent_panes(snap_compare: Any, tmp_path: Path) -> None:
    app = make_app(provider=nested_provider(), tools=[Delegate()], mode="yolo", cwd=tmp_path)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "research this")
        await run_done(pilot)
        for pane in pilot.app.query("SubagentPane"):
            pane.collapsed = False  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(app, terminal_size=(100, 40), run_before=run_before)


def test_resumed_session(snap_compare: Any) -> None:
    store = InMemorySessionStore()

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await pilot.pause()

    async def seed() -> None:
        await store.create(id="old-session")
        await store.append_messages("old-session", stored_history())

    asyncio.run(seed())
    app = make_app([], store=store, resume_id="old-session")
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_slash_completion(snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await pilot.press("/", "m")
        await pilot.pause()

    assert snap_compare(make_app([]), terminal_size=SIZE, run_before=run_before)


def test_error_block(snap_compare: Any) -> None:
    from skawld_core.errors import AuthError

    provider = ScriptedProvider()
    provider.fail(AuthError("invalid x-api-key"))
    app = make_app(provider=provider, max_retries=0)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "hello")
        await run_done(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_ask_user_modal(snap_compare: Any) -> None:
    question = {
        "questions": [
            {
                "question": "Which database should the service use?",
                "header": "Database",
                "options": [
                    {"label": "Postgres", "description": "the production default"},
                    {"label": "SQLite", "description": "zero setup"},
                ],
            }
        ]
    }
    app = make_app([reply(tool_call("AskUser", question, id="q1"))])

    async def run_before(pilot: Pilot[Any]) -> None:
        from skawld_tui.app.screens.ask_user import AskUserScreen

        await ready(pilot)
        await send(pilot, "set up storage")
        await until(lambda: isinstance(pilot.app.screen, AskUserScreen), pilot)
        for ta in pilot.app.screen.query("Input"):
            ta.cursor_blink = False  # type: ignore[attr-defined]
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_history_search(snap_compare: Any, tmp_path: Path) -> None:
    from skawld_tui.prompt_history import PromptHistory

    store = PromptHistory.for_project(tmp_path)
    for entry in ("fix the parser", "add tests for the lexer", "write the docs"):
        store.append(entry)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await pilot.press("ctrl+r", "l", "e", "x")
        await pilot.pause()

    assert snap_compare(make_app([], cwd=tmp_path), terminal_size=SIZE, run_before=run_before)


def test_model_picker(snap_compare: Any) -> None:
    import dataclasses

    from skawld_core.config_model import ConfigFile, ProviderSection
    from skawld_core.settings import Settings
    from skawld_tui.commands.choice_screen import ChoiceScreen
    from tests.support.wire_server import WireServer

    with WireServer() as srv:
        models = [{"id": name, "object": "model"} for name in ("qwen3:8b", "llama3.1", "gpt-oss:20b")]
        srv.chat.profile = dataclasses.replace(srv.chat.profile, models=models)
        app = make_app([], model="qwen3:8b")
        config = ConfigFile(provider=ProviderSection(id="openai-chat", baseURL=f"{srv.url}/v1"))
        app.settings = Settings(config=config, permission_mode="default", api_key="k", env={})

        async def run_before(pilot: Pilot[Any]) -> None:
            await ready(pilot)
            await send(pilot, "/model")
            await until(lambda: isinstance(app.screen, ChoiceScreen), pilot)
            await pilot.pause()

        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
