"""MCP prompts as `/mcp__server__prompt args` and resources as `@server:uri` mentions, in the plain
mode (the app shares the command registry and the mention code), against the real fixture server."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from mcp_support import fixture_entry
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from skawld_core.testing import ScriptedProvider, reply
from skawld_tui.plain.chat import make_prompt_session, run_plain
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn
from tests.tui.helpers import plain_agent_factory

pytestmark = pytest.mark.timeout(60)


async def chat(tmp_path: Path, lines: list[str], replies: int) -> tuple[ScriptedProvider, str]:
    provider = ScriptedProvider([reply("ok") for _ in range(replies)])
    factory = plain_agent_factory(provider, cwd=tmp_path, mcp_servers={"fx": fixture_entry()})
    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=False, color_system=None)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("".join(line + "\r" for line in [*lines, "/exit"]))
        prompt = make_prompt_session(input=pipe, output=DummyOutput())
        assert await run_plain(factory, console=console, prompt_session=prompt) == 0
    return provider, buf.getvalue()


async def test_a_server_prompt_is_a_slash_command_with_its_arguments(tmp_path: Path) -> None:
    provider, out = await chat(tmp_path, ["/mcp__fx__review src/app.py security issues", "/mcp__fx__review"], 1)
    [request] = provider.requests
    assert "PROMPT-REVIEW src/app.py looking for security issues" in json.dumps(request.messages[0].model_dump())
    assert "/mcp__fx__review needs path (usage: /mcp__fx__review <path> [focus])" in out


async def test_a_resource_mention_attaches_it(tmp_path: Path) -> None:
    provider, out = await chat(tmp_path, ["summarize @fx:note://hello please", "and @fx:note://missing"], 2)
    first, second = provider.requests
    assert "HELLO-RESOURCE" in json.dumps(first.messages[0].model_dump())
    assert "attached fx:note://hello" in out
    assert "not attached: fx:note://missing" in out
    assert "HELLO-RESOURCE" not in json.dumps(second.messages[-1].model_dump())


def test_headless_runs_a_server_prompt(cli: CliEnv) -> None:
    cli.write_user_config({"mcpServers": {"fx": fixture_entry()}})
    cli.srv.anthropic.enqueue(turn(text("reviewed")))
    out = cli.run(*cli.args("-p", "/mcp__fx__review lib.py speed"))
    assert out.returncode == 0, out.stderr
    [request] = cli.srv.anthropic.wait_for_requests(1)
    assert "PROMPT-REVIEW lib.py looking for speed" in json.dumps(request.body["messages"][0])
