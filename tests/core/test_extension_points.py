"""Typed extension points: `Agent.extensions` is an `Extensions` with typed parts (the former
dict keys still read), and the connectors depend on the `ExtensionHost` Protocol, not `Agent`."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from skawld_core.extensions import Extensions
from skawld_core.skills.types import SkillLoadResult
from skawld_core.testing import ScriptedProvider

CORE = Path(__file__).resolve().parents[2] / "skawld_core"


def test_extensions_parts_are_typed_and_the_old_keys_still_read() -> None:
    ext = Extensions()
    assert ext.mcp is None and "mcp" not in ext and ext.get("mcp") is None
    with pytest.raises(KeyError):
        ext["skills"]
    with pytest.raises(KeyError):
        ext["no-such-part"]
    loaded = SkillLoadResult()
    ext.skills = loaded
    assert "skills" in ext and ext["skills"] is loaded and ext.get("skills") is loaded
    assert "unknown" not in ext and ext.get("unknown", 1) == 1


async def test_an_agent_fills_its_extensions_on_first_session(tmp_path: Path) -> None:
    from skawld_core import Agent
    from skawld_core.sessions.memory import InMemorySessionStore

    agent = Agent(
        provider=ScriptedProvider([]), model="m", tools=[], session_store=InMemorySessionStore(), cwd=tmp_path
    )
    assert isinstance(agent.extensions, Extensions) and agent.extensions.subagents is None
    await agent.session()
    assert agent.extensions.subagents is not None and agent.extensions.skills is not None
    assert agent.extensions.mcp is None  # no servers configured
    await agent.close()


@pytest.mark.parametrize(
    "module", ["extensions.py", "host.py", "mcp/manager.py", "skills/connect.py", "subagents/connect.py"]
)
def test_connectors_do_not_import_the_agent_module(module: str) -> None:
    tree = ast.parse((CORE / module).read_text(encoding="utf-8"))
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {m for m in imported if m == "agent" or m.endswith(".agent")}, imported
