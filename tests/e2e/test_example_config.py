"""`.skawld.example/` works as a project config: skill, subagent and the mcp-server-time entry."""

from __future__ import annotations

import shutil

import pytest

from skawld_core.events import ResultEvent, SkillsLoadedEvent, SystemEvent, ToolCallEndEvent
from tests.cli.harness import ROOT, CliEnv, parse_events
from tests.support.wire_server import text, tool_call, turn

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(shutil.which("mcp-server-time") is None, reason="needs `pip install mcp-server-time`"),
]


def test_example_config_dir_loads_and_its_mcp_server_answers(cli: CliEnv) -> None:
    shutil.copytree(ROOT / ".skawld.example", cli.repo / ".skawld")
    refused = cli.run(*cli.args("-p", "hi", base_url=False, model=False))
    assert refused.returncode == 3 and "/mcpServers/time" in refused.stderr
    cli.srv.anthropic.enqueue(
        turn(tool_call("mcp__time__get_current_time", {"timezone": "UTC"}, id="t1")),
        turn(text("It is now.")),
    )
    out = cli.run(*cli.args("-p", "what time is it?", "--json", "--accept-project-config", model=False))
    assert out.returncode == 0, out.stderr
    events = parse_events(out.stdout)
    system = events[0]
    assert isinstance(system, SystemEvent) and system.model == "claude-sonnet-4-6"
    assert {"mcp__time__get_current_time", "Skill", "Subagent"} <= set(system.tools)
    skills = next(e for e in events if isinstance(e, SkillsLoadedEvent))
    assert [s.name for s in skills.skills] == ["commit"]
    end = next(e for e in events if isinstance(e, ToolCallEndEvent))
    assert end.tool_name == "mcp__time__get_current_time" and not end.is_error
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "success"
    assert "UTC" in str(cli.srv.anthropic.requests[1].body["messages"][-1])
    assert "reviewer" in str(cli.srv.anthropic.requests[0].body["tools"])
