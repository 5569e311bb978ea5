"""Plain mode driven through a prompt_toolkit pipe input, output captured by rich."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, text, tool_call
from skawld_tui.plain.chat import make_prompt_session, run_plain
from tests.support.mock_tools import MockExec, MockRead

from .helpers import plain_agent_factory

pytestmark = pytest.mark.timeout(30)


async def chat(lines: list[str], provider: ScriptedProvider, tools: list[Any], **kw: Any) -> tuple[int, str]:
    buf = io.StringIO()
    console = Console(file=buf, width=100, force_terminal=False, color_system=None)
    store = kw.pop("store", InMemorySessionStore())
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("".join(line + "\r" for line in lines))
        prompt = make_prompt_session(input=pipe, output=DummyOutput())
        code = await run_plain(
            plain_agent_factory(
                provider, cwd=Path(__file__).parent, tools=tools, store=store, include_partial_messages=True
            ),
            console=console,
            prompt_session=prompt,
            **kw,
        )
    return code, buf.getvalue()


async def test_plain_chat_streams_text_runs_tools_and_asks_inline() -> None:
    provider = ScriptedProvider(
        [
            reply(text("Reading now.", chunk=3), tool_call("MockRead", {"path": "a"}, id="r1")),
            reply(tool_call("MockExec", {"path": "make"}, id="x1")),
            reply("Built it."),
            reply(tool_call("MockExec", {"path": "rm"}, id="x2")),
            reply("Not removed."),
        ]
    )
    code, out = await chat(["read a", "y", "again", "n", "too risky", "/exit"], provider, [MockRead(), MockExec()])
    assert code == 0
    assert "Reading now.\n" in out
    assert "✓ MockRead a" in out and "read a" in out
    assert "? Allow MockExec" in out
    assert "ran make" in out and "Built it." in out
    assert "✗ MockExec" in out and "Not removed." in out
    sent = provider.requests[-1].messages[-1]
    assert "too risky" in str(sent.content)


async def test_plain_yolo_needs_a_yes() -> None:
    for answer in ("", "n", "nope"):
        _, out = await chat(["/mode yolo", answer, "/mode", "/exit"], ScriptedProvider([]), [])
        assert "every tool runs without asking" in out and "yolo mode not turned on" in out
        assert "permission mode: yolo" not in out and "permission mode: default" in out


async def test_plain_slash_commands_and_resume() -> None:
    store = InMemorySessionStore()
    provider = ScriptedProvider([reply("first answer")])
    _, out = await chat(
        ["hello", "/mode yolo", "y", "/help", "/bogus", "/exit"], provider, [], store=store, resume_id="s1"
    )
    assert "first answer" in out and "permission mode: yolo" in out and "unknown command /bogus" in out
    assert "every tool runs without asking" in out
    assert "/resume" in out
    _, out = await chat(["/exit"], ScriptedProvider([]), [], store=store, resume_id="s1")
    assert (
        "› hello" in out and "first answer" in out and "restored 2 messages, last activity just now · session s1" in out
    )
    assert out.rstrip().endswith("Resume this session with: skawld --resume s1")
