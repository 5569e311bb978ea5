"""Readable tool panels, Ctrl+O, subagent pane stats, selectable answers and highlighted code."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from skawld_core.testing import ScriptedProvider, reply, text, tool_call
from skawld_core.tools import Tool, ToolContext, ToolResult
from skawld_core.tools.bash import BashTool
from skawld_tui.app.widgets.blocks import AssistantMarkdown, MarkdownChunk
from skawld_tui.app.widgets.tool_panel import SubagentPane, ToolPanel
from skawld_tui.transcript_model import format_duration
from tests.support.mock_tools import MockAlwaysFail, MockRead, PathInput

from .helpers import make_app, ready, run_done, send, until

pytestmark = pytest.mark.timeout(60)

SIX_LINES = "printf 'line %s\\n' 1 2 3 4 5 6"


def panel(app: Any, tool_use_id: str) -> ToolPanel:
    return next(p for p in app.query(ToolPanel) if p.tool_use_id == tool_use_id)


def preview(p: ToolPanel) -> str:
    return str(p._preview.render()) if p._preview is not None and p._preview.display else ""


def preview_is_red(p: ToolPanel) -> bool:
    return p._preview is not None and p._preview.has_class("-error")


async def test_bash_panel_titled_by_command_shows_first_lines_collapsed(tmp_path: Path) -> None:
    app = make_app(
        [
            reply(tool_call("Bash", {"command": SIX_LINES, "description": "Print six lines"}, id="b")),
            reply(tool_call("Bash", {"command": "exit 3"}, id="x")),
            reply("ok"),
        ],
        tools=[BashTool()],
        mode="yolo",
        cwd=tmp_path,
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "print")
        await run_done(pilot)
        bash = panel(app, "b")
        assert bash.collapsed
        assert bash.title == f"✓ $ {SIX_LINES}  Print six lines"
        assert preview(bash) == "└ line 1\n  line 2\n  line 3\n  … +3 lines (ctrl+o to expand)"
        failed = panel(app, "x")
        assert failed.title == "✓ $ exit 3  — exit 3"
        assert preview(failed) == "└ (no output)"
        bash.collapsed = False
        await pilot.pause()
        assert preview(bash) == ""  # the full output replaces the preview
        assert "line 6" in str(bash.query_one(".bash-output Static").render())


async def test_error_result_is_visible_without_expanding(tmp_path: Path) -> None:
    app = make_app(
        [reply(tool_call("MockAlwaysFail", {"path": "db"}, id="f")), reply("it failed")],
        tools=[MockAlwaysFail()],
        mode="yolo",
        cwd=tmp_path,
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "try")
        await run_done(pilot)
        failed = panel(app, "f")
        assert failed.collapsed and failed.status == "error"
        assert failed.has_class("-error") and preview_is_red(failed)
        assert preview(failed) == "└ Tool failed: kaboom"


async def test_large_result_title_counts_its_lines(tmp_path: Path) -> None:
    class ManyLines(Tool[PathInput]):
        name = "ManyLines"
        description = "Forty lines (test double)."
        scope = "read"
        input_model = PathInput

        async def execute(self, value: PathInput, ctx: ToolContext) -> ToolResult:
            return ToolResult(content="\n".join(f"row {i}" for i in range(40)))

    app = make_app(
        [reply(tool_call("ManyLines", {"path": "p"}, id="m")), reply("done")],
        tools=[ManyLines()],
        mode="yolo",
        cwd=tmp_path,
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await run_done(pilot)
        many = panel(app, "m")
        assert many.title.endswith("· 40 lines")
        assert many._preview is None  # only Bash output and errors preview


async def test_ctrl_o_toggles_every_panel_and_the_ones_to_come(tmp_path: Path) -> None:
    app = make_app(
        [
            reply(tool_call("MockRead", {"path": "a"}, id="r1"), tool_call("MockRead", {"path": "b"}, id="r2")),
            reply("first"),
            reply(tool_call("MockRead", {"path": "c"}, id="r3")),
            reply("second"),
        ],
        tools=[MockRead()],
        mode="yolo",
        cwd=tmp_path,
    )
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "one")
        await run_done(pilot)
        assert all(p.collapsed for p in app.query(ToolPanel))
        await pilot.press("ctrl+o")
        assert not any(p.collapsed for p in app.query(ToolPanel))
        await send(pilot, "two")
        await run_done(pilot, 2)
        assert not panel(app, "r3").collapsed  # opened expanded: Ctrl+O is a mode
        await pilot.press("ctrl+o")
        assert all(p.collapsed for p in app.query(ToolPanel))
        panel(app, "r1").collapsed = False
        await pilot.press("ctrl+o")  # one collapsed panel left: expand them all
        assert not any(p.collapsed for p in app.query(ToolPanel))


async def test_subagent_pane_counts_tools_tokens_and_time(tmp_path: Path) -> None:
    from tests.support.nesting import is_child

    hold = asyncio.Event()
    provider = ScriptedProvider()
    provider.enqueue(reply(tool_call("Subagent", {"description": "look", "prompt": "CHILD look"}, id="s")))
    provider.enqueue(
        reply(tool_call("MockRead", {"path": "a"}, id="c1"), tool_call("MockRead", {"path": "b"}, id="c2")),
        match=is_child("CHILD"),
    )
    provider.enqueue(reply(text("found it", chunk=2)), match=is_child("CHILD"), hold=hold, hold_at=1)
    provider.enqueue(reply("parent done"))
    app = make_app(provider=provider, tools=[MockRead()], cwd=tmp_path)
    app.SHOW_TIMINGS = True  # type: ignore[misc]  # durations on screen for this one
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "delegate")  # default mode: the Subagent call itself does not ask
        await until(lambda: bool(app.query(SubagentPane)), pilot)
        pane = app.query_one(SubagentPane)
        await until(lambda: pane.tool_calls == 2 and pane.tokens > 0, pilot)
        running = pane.title
        assert "⋯ Agent #1  · 2 tools · " in running and " tokens · " in running
        await until(lambda: pane.title != running, pilot, timeout=3)  # the clock ticks while it runs
        hold.set()
        await run_done(pilot)
        assert pane.state == "success" and pane.duration_ms is not None
        done = pane.title
        assert done.startswith("✓ Agent #1  · 2 tools · ")
        assert done.endswith(f" tokens · {format_duration(pane.duration_ms)}")
        assert pane._timer is None  # the clock stopped: the final time stays put


def _answer() -> str:
    para = "This paragraph explains one step of the fix in plain words, without markup. "
    blocks = [para * 6, "```python\ndef total(items):\n    return sum(items)\n```", para * 5, para * 4, "The end."]
    return "\n\n".join(blocks) + "\n"


async def test_selecting_an_answer_copies_its_text(tmp_path: Path) -> None:
    answer = _answer()
    app = make_app([reply(text(answer, chunk=40))], cwd=tmp_path)
    async with app.run_test(size=(100, 50)) as pilot:
        await ready(pilot)
        await send(pilot, "explain")
        await run_done(pilot)
        chunks = [c for c in app.query(MarkdownChunk) if c.text.strip()]
        assert len(chunks) >= 2  # the selection crosses chunk widgets
        first, last = chunks[0], chunks[-1]
        end_y = max(i for i, line in enumerate(last._lines_text) if line)
        await pilot.mouse_down(first, offset=(0, 0))
        await pilot.hover(last, offset=(last.size.width - 1, end_y))
        await pilot.mouse_up(last, offset=(last.size.width - 1, end_y))
        assert app.screen.get_selected_text() == answer.strip()
        assert "md-chunk" not in (app.screen.get_selected_text() or "")
        # a selection inside one chunk gives the text as shown
        await pilot.mouse_down(first, offset=(5, 0))
        await pilot.hover(first, offset=(18, 0))
        await pilot.mouse_up(first, offset=(18, 0))
        assert app.screen.get_selected_text() == "paragraph expl"
        shown = first.render_line(0)
        selected = app.screen.get_component_rich_style("screen--selection")
        assert any(seg.style and seg.style.bgcolor == selected.bgcolor for seg in shown)


async def test_finished_answer_highlights_its_code(tmp_path: Path) -> None:
    answer = "Here:\n\n```python\ndef total(items):\n    return sum(items)\n```\n"
    app = make_app([reply(text(answer, chunk=5))], cwd=tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "code")
        await run_done(pilot)
        md = app.query_one(AssistantMarkdown)
        chunk = next(c for c in md.query(MarkdownChunk) if "def total" in c.text)
        row = next(i for i, line in enumerate(chunk._lines_text) if "def total" in line)
        strip = chunk.render_line(row)
        colours = {seg.style.color for seg in strip if seg.style and seg.text.strip() and seg.style.color}
        assert len(colours) >= 3  # keyword, name and punctuation differ: highlighted by language


async def test_resumed_panels_show_their_first_lines() -> None:
    from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
    from skawld_core.sessions import InMemorySessionStore

    store = InMemorySessionStore()
    await store.create(id="old")
    await store.append_messages(
        "old",
        [
            Message(role="user", content=[TextBlock(text="check")]),
            Message(
                role="assistant",
                content=[
                    ToolUseBlock(id="b", name="Bash", input={"command": "ls", "description": "List"}),
                    ToolUseBlock(id="f", name="Read", input={"file_path": "gone.py"}),
                ],
            ),
            Message(
                role="user",
                content=[
                    ToolResultBlock(tool_use_id="b", content="a.py\nb.py\n\nexit: 0"),
                    ToolResultBlock(tool_use_id="f", content="File does not exist: gone.py", is_error=True),
                ],
            ),
            Message(role="assistant", content=[TextBlock(text="Two files.")]),
        ],
    )
    app = make_app([], store=store, resume_id="old")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await until(lambda: len(app.query(ToolPanel)) == 2, pilot)
        await pilot.pause()
        assert panel(app, "b").title == "✓ $ ls  List"
        assert preview(panel(app, "b")) == "└ a.py\n  b.py"
        assert preview(panel(app, "f")) == "└ File does not exist: gone.py"
        assert preview_is_red(panel(app, "f")) and not preview_is_red(panel(app, "b"))


async def test_thinking_streams_collapsed_and_ctrl_o_shows_it() -> None:
    from skawld_core.testing import thinking
    from skawld_tui.app.widgets.blocks import ThinkingBlock

    app = make_app([reply(thinking("Weighing the options."), text("answer")), reply(thinking("Again."), text("two"))])
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "one")
        await run_done(pilot)
        [block] = app.query(ThinkingBlock)
        assert block.collapsed and block.text == "Weighing the options."
        await pilot.press("ctrl+o")
        assert not block.collapsed
        await send(pilot, "two")
        await run_done(pilot, 2)
        assert not app.query(ThinkingBlock).last().collapsed  # the ones to come open too
        await pilot.press("ctrl+o")
        assert all(b.collapsed for b in app.query(ThinkingBlock))
