"""An MCP server's question (elicitation) answered in the app's modal form and in the plain mode,
against the real fixture server: defaults prefilled (SEP-1034), a wrong answer kept on the form,
decline and cancel."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from mcp_support import fixture_entry
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from skawld_core.messages import ToolResultBlock
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_tui.app.screens.elicitation import ElicitationScreen
from skawld_tui.plain.chat import make_prompt_session, run_plain
from tests.tui.helpers import SIZE, make_app, plain_agent_factory, run_done, send, until

pytestmark = pytest.mark.timeout(60)


def tool_result(messages: list[Any]) -> str:
    for message in messages:
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                content = block.content
                return content if isinstance(content, str) else "".join(getattr(b, "text", "") for b in content)
    raise AssertionError("no tool result")


async def test_the_app_shows_the_schema_as_a_form(tmp_path: Path) -> None:
    app = make_app(
        [reply(tool_call("mcp__fx__ask", {}, id="a")), reply("thanks")],
        cwd=tmp_path,
        mode="yolo",
        mcp_servers={"fx": fixture_entry()},
    )
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session_ready.is_set(), pilot, timeout=60)  # the MCP server starts first
        await send(pilot, "who am I")
        await until(lambda: isinstance(app.screen, ElicitationScreen), pilot, timeout=30)
        screen = app.screen
        assert "Who are you?" in str(screen.query_one("#elicit-message").render())
        values = {i.id: i.value for i in screen.query("Input")}
        assert values == {
            "elicit-name": "Ada",
            "elicit-age": "36",
            "elicit-score": "9.5",
            "elicit-colour": "green",
            "elicit-subscribe": "yes",
        }
        screen.query_one("#elicit-name").value = "Grace"
        screen.query_one("#elicit-age").value = "forty"
        for _ in range(5):
            await pilot.press("enter")
        assert isinstance(app.screen, ElicitationScreen)  # a wrong answer stays on the form
        assert "Age: expected a number" in str(screen.query_one("#elicit-error").render())
        screen.query_one("#elicit-age").value = "41"
        screen.query_one("#elicit-age").focus()
        for _ in range(4):
            await pilot.press("enter")
        await run_done(pilot)
    request = app.test_provider.requests[-1]
    answer = tool_result(request.messages[-1:])
    assert answer.startswith("accept: ")
    assert json.loads(answer.removeprefix("accept: ")) == {
        "age": 41,
        "colour": "green",
        "name": "Grace",
        "score": 9.5,
        "subscribe": True,
    }


async def test_the_app_declines_with_ctrl_d(tmp_path: Path) -> None:
    app = make_app(
        [reply(tool_call("mcp__fx__ask", {}, id="a")), reply("ok")],
        cwd=tmp_path,
        mode="yolo",
        mcp_servers={"fx": fixture_entry()},
    )
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: app.session_ready.is_set(), pilot, timeout=60)  # the MCP server starts first
        await send(pilot, "ask")
        await until(lambda: isinstance(app.screen, ElicitationScreen), pilot, timeout=30)
        await pilot.press("ctrl+d")
        await run_done(pilot)
    assert tool_result(app.test_provider.requests[-1].messages[-1:]) == "decline: null"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["y", "", "", "", "red", ""], {"age": 36, "colour": "red", "name": "Ada", "score": 9.5, "subscribe": True}),
        (
            ["y", "", "x", "", "", "", "Bo", "7", "", "", "no"],
            {"age": 7, "colour": "green", "name": "Bo", "score": 9.5, "subscribe": False},
        ),
        (["n"], "decline"),
        ([""], "cancel"),
    ],
)
async def test_the_plain_mode_asks_field_by_field(tmp_path: Path, lines: list[str], expected: Any) -> None:
    provider = ScriptedProvider([reply(tool_call("mcp__fx__ask", {}, id="a")), reply("ok")])
    buf = io.StringIO()
    console = Console(file=buf, width=120, force_terminal=False, color_system=None)
    factory = plain_agent_factory(provider, cwd=tmp_path, mcp_servers={"fx": fixture_entry()}, permission_mode="yolo")
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("".join(line + "\r" for line in ["who am I", *lines, "/exit"]))
        prompt = make_prompt_session(input=pipe, output=DummyOutput())
        assert await run_plain(factory, console=console, prompt_session=prompt) == 0
    answer = tool_result(provider.requests[-1].messages[-1:])
    if isinstance(expected, dict):
        assert json.loads(answer.removeprefix("accept: ")) == expected
    else:
        assert answer == f"{expected}: null"
    assert "The MCP server 'fx' asks: Who are you?" in buf.getvalue()
