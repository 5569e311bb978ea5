"""`/compact <focus>` against the local wire server: the focus is in the summary request."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:  # make `tests.support` importable under plain `pytest`
    sys.path.insert(0, _ROOT)

from skawld_core import Agent  # noqa: E402
from skawld_core.compaction import KeepRecentTurns  # noqa: E402
from skawld_core.providers import AnthropicProvider  # noqa: E402
from skawld_core.sessions import InMemorySessionStore  # noqa: E402
from skawld_tui.plain.chat import make_prompt_session, run_plain  # noqa: E402
from tests.support.wire_server import WireServer, text, turn  # noqa: E402


@pytest.mark.timeout(60)
async def test_compact_focus_is_sent_in_the_summary_request(tmp_path: Path) -> None:
    with WireServer() as srv:
        srv.anthropic.enqueue(turn(text("first")), turn(text("second")), turn(text("SUMMARY")))
        provider = AnthropicProvider(api_key="test", base_url=srv.url)

        def build(can_use_tool: Any, ask_user: Any) -> Agent:
            return Agent(
                provider=provider,
                model="claude-opus-4-5",
                tools=[],
                can_use_tool=can_use_tool,
                ask_user=ask_user,
                session_store=InMemorySessionStore(),
                cwd=tmp_path,
                sandbox="off",
                compaction=KeepRecentTurns(1),
            )

        buf = io.StringIO()
        console = Console(file=buf, width=120, force_terminal=False, color_system=None)
        lines = ["one", "two", "/compact the retry logic and its tests", "/exit"]
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
            pipe.send_text("".join(line + "\r" for line in lines))
            prompt = make_prompt_session(input=pipe, output=DummyOutput())
            assert await run_plain(build, console=console, prompt_session=prompt) == 0
        summary = srv.anthropic.requests[-1].body
        assert len(srv.anthropic.requests) == 3  # two prompts, then the summary
        system = (
            " ".join(b["text"] for b in summary["system"]) if isinstance(summary["system"], list) else summary["system"]
        )
        assert "summarizing the earlier part of a coding session" in system
        assert "focus on: the retry logic and its tests" in system
        assert "(focus: the retry logic and its tests)" in buf.getvalue()
