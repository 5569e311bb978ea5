"""A Read deny rule hides files from Glob and Grep run by the agent (issue 2, part 8)."""

from __future__ import annotations

from pathlib import Path

from skawld_core import Agent
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import default_tools
from tests.support.events import tool_results


async def run_search(tmp_path: Path, rules: list[dict[str, object]]) -> tuple[str, str, Agent]:
    (tmp_path / ".env").write_text("API_TOKEN=secret-value\n")
    (tmp_path / "config.py").write_text("TOKEN_NAME = 'API_TOKEN'\n")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "prod.txt").write_text("API_TOKEN=prod\n")
    provider = ScriptedProvider(
        [
            reply(
                tool_call("Grep", {"pattern": "API_TOKEN", "output_mode": "content", "-n": True}, id="g"),
                tool_call("Glob", {"pattern": "**/*"}, id="f"),
            ),
            reply("done"),
        ]
    )
    agent = Agent(
        provider=provider,
        model="m",
        tools=default_tools(),
        cwd=tmp_path,
        session_store=InMemorySessionStore(),
        permission_rules=rules,
    )
    session = await agent.session()
    async with session.run("find tokens") as run:
        events = [e async for e in run]
    results = tool_results(events)
    return results["g"], results["f"], agent


async def test_read_deny_rule_hides_names_and_contents(tmp_path: Path) -> None:
    rule = {"kind": "path", "tools": ["Read"], "paths": ["**/.env", "secrets/**"], "decision": "deny"}
    grep, glob, agent = await run_search(tmp_path, [rule])
    assert "config.py" in grep
    assert "secret-value" not in grep and ".env" not in grep and "prod" not in grep
    assert "prod.txt" not in glob and "config.py" in glob
    assert agent.permissions.restricts_reads


async def test_without_read_rules_nothing_is_filtered(tmp_path: Path) -> None:
    grep, glob, agent = await run_search(tmp_path, [])
    assert "prod.txt" in glob and "API_TOKEN=prod" in grep
    assert not agent.permissions.restricts_reads
    session = await agent.session()
    context = session.tool_context("r", "t", lambda e: None)
    assert context.can_read(tmp_path / ".env")
