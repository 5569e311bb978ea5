"""MCP stdio servers: an inherited environment loses its secrets; the entry's own `env` is kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from ext_helpers import make_agent
from mcp_support import fixture_entry, run_calls

from skawld_core.testing import ScriptedProvider


async def test_inherit_env_drops_secrets_but_keeps_explicit_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-parent")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-parent")
    monkeypatch.setenv("SKAWLD_TEST_PARENT_VAR", "from-parent")
    servers = {"inherit": fixture_entry(inheritEnv=True, env={"SERVICE_API_KEY": "explicit"})}
    agent = make_agent(
        tmp_path, ScriptedProvider(), mcp_servers=servers, permission_mode="yolo", env_passthrough=["GITHUB_TOKEN"]
    )
    out = await run_calls(
        agent,
        ("mcp__inherit__env_var", {"name": "ANTHROPIC_API_KEY"}, "a"),
        ("mcp__inherit__env_var", {"name": "SERVICE_API_KEY"}, "b"),
        ("mcp__inherit__env_var", {"name": "GITHUB_TOKEN"}, "c"),
        ("mcp__inherit__env_var", {"name": "SKAWLD_TEST_PARENT_VAR"}, "d"),
    )
    got = tuple(out[k].content for k in "abcd")
    assert got == ("<unset>", "explicit", "ghp-parent", "from-parent")
    await agent.close()
