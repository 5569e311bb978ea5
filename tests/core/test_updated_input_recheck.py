"""An `updated_input` from `can_use_tool` is checked again (issue 10, point 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from skawld_core import Agent
from skawld_core.permissions import CanUseToolRequest, PermissionAllow
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import default_tools
from tests.support.events import tool_results

DENY_SECRETS = {"kind": "path", "tools": ["Write", "Edit", "Read"], "paths": ["secrets/**"], "decision": "deny"}
DENY_RM = {"kind": "bash", "pattern": "rm", "decision": "deny"}


def rewriting(new_input: dict[str, Any]) -> Any:
    async def can_use_tool(request: CanUseToolRequest) -> PermissionAllow:
        return PermissionAllow(updated_input=new_input)

    return can_use_tool


async def run_one(tmp_path: Path, name: str, inp: dict[str, Any], new_input: dict[str, Any], **kw: Any) -> str:
    agent = Agent(
        provider=ScriptedProvider([reply(tool_call(name, inp, id="t")), reply("done")]),
        model="m",
        tools=default_tools(),
        cwd=tmp_path,
        session_store=InMemorySessionStore(),
        can_use_tool=rewriting(new_input),
        **kw,
    )
    session = await agent.session()
    async with session.run("go") as run:
        events = [e async for e in run]
    return next(iter(tool_results(events).values()))


async def test_rewrite_onto_a_denied_path_is_denied(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    result = await run_one(
        tmp_path,
        "Write",
        {"file_path": "notes.txt", "content": "a"},
        {"file_path": "secrets/key.txt", "content": "a"},
        permission_rules=[DENY_SECRETS],
    )
    assert result == "Tool call denied: updated input was refused: path rule matched Write."
    assert not (tmp_path / "secrets" / "key.txt").exists()
    assert not (tmp_path / "notes.txt").exists()


async def test_rewrite_onto_a_denied_command_is_denied(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    result = await run_one(
        tmp_path, "Bash", {"command": "echo hi"}, {"command": "rm victim"}, permission_rules=[DENY_RM]
    )
    assert result.startswith("Tool call denied: updated input was refused: bash rule matched Bash.")
    assert victim.read_text() == "keep"


async def test_rewrite_onto_a_protected_path_is_denied(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    result = await run_one(
        tmp_path,
        "Write",
        {"file_path": "notes.txt", "content": "a"},
        {"file_path": ".git/config", "content": "[core]\n\tfsmonitor = evil\n"},
    )
    assert "updated input was refused" in result and "protected path" in result
    assert not (tmp_path / ".git" / "config").exists()


async def test_rewrite_onto_an_ordinary_path_runs(tmp_path: Path) -> None:
    result = await run_one(
        tmp_path,
        "Write",
        {"file_path": "notes.txt", "content": "a"},
        {"file_path": "other.txt", "content": "b"},
        permission_rules=[DENY_SECRETS],
    )
    assert result == "wrote 1 bytes to other.txt"
    assert (tmp_path / "other.txt").read_text() == "b"


async def test_approving_a_protected_path_without_rewrite_writes_it(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    same = {"file_path": ".git/description", "content": "x"}
    result = await run_one(tmp_path, "Write", same, {**same, "content": "y"})
    assert result == "wrote 1 bytes to .git/description"
    assert (tmp_path / ".git" / "description").read_text() == "y"
