"""A new file tool gets path rules, Claude's Read()/Edit() rules and the protected-path check
from the `PathPolicy` it declares, with no table of tool names to update (issue #24, item 9)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from skawld_core import Agent
from skawld_core.model_base import SkawldModel
from skawld_core.permissions import PendingToolCall, PermissionEngine
from skawld_core.permissions.claude_rules import parse_claude_rules
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import Tool, ToolContext, ToolResult
from skawld_core.tools.path_policy import PathPolicy, tool_path_policy
from tests.support.events import tool_results


class CopyInput(SkawldModel):
    source: str
    destination: str


class CopyFileTool(Tool[CopyInput]):
    """Copies a file: two path fields, the edit family."""

    name = "CopyFile"
    description = "Copy a file."
    scope = "write"
    input_model = CopyInput
    path_policy = PathPolicy(("source", "destination"), "edit")

    async def execute(self, value: CopyInput, ctx: ToolContext) -> ToolResult:
        shutil.copyfile(ctx.cwd / value.source, ctx.cwd / value.destination)
        return ToolResult(content="copied")


class PeekInput(SkawldModel):
    target: str


class PeekTool(Tool[PeekInput]):
    """Shows a file's first line: one path field, the read family."""

    name = "Peek"
    description = "First line of a file."
    scope = "read"
    input_model = PeekInput
    path_policy = PathPolicy(("target",), "read")

    async def execute(self, value: PeekInput, ctx: ToolContext) -> ToolResult:
        return ToolResult(content=(ctx.cwd / value.target).read_text().splitlines()[0])


def claude(allow: list[str] = [], deny: list[str] = []) -> list[Any]:  # noqa: B006 - read only
    return parse_claude_rules(allow, "allow").rules + parse_claude_rules(deny, "deny").rules


def decide(tool: Tool[Any], root: Path, rules: list[Any], mode: Any = "default", **inp: str) -> tuple[str, str]:
    engine = PermissionEngine(mode=mode, rules=rules, project_root=root)
    # as the scheduler builds it: the tool's own policy travels with the call
    call = PendingToolCall(
        tool_name=tool.name,
        tool_use_id="t",
        input=inp,
        summary="",
        scope=tool.scope,
        cwd=root,
        path_policy=tool.path_policy,
    )
    declared = engine.evaluate(call)
    # and by name alone (the policy its class registered): the same decision
    registered = engine.evaluate(PendingToolCall(**{**call.__dict__, "path_policy": None}))
    assert (registered.behavior, registered.reason) == (declared.behavior, declared.reason)
    return declared.behavior, declared.reason or ""


def test_defining_the_tool_registers_its_policy() -> None:
    assert tool_path_policy("CopyFile") == CopyFileTool.path_policy
    assert tool_path_policy("Peek") == PeekTool.path_policy


def test_path_rules_see_every_path_field(tmp_path: Path) -> None:
    rules = [{"kind": "path", "tools": ["CopyFile"], "paths": ["locked/**"], "decision": "deny"}]
    assert decide(CopyFileTool(), tmp_path, rules, source="a", destination="locked/b")[0] == "deny"
    assert decide(CopyFileTool(), tmp_path, rules, source="locked/a", destination="b")[0] == "deny"
    allow = [{"kind": "path", "tools": ["CopyFile"], "paths": ["src/**"], "decision": "allow"}]
    assert decide(CopyFileTool(), tmp_path, allow, source="src/a", destination="src/b")[0] == "allow"
    # an allow covers the call only when it covers every path it names
    assert decide(CopyFileTool(), tmp_path, allow, source="src/a", destination="elsewhere")[0] == "ask"


def test_claude_read_and_edit_rules_cover_the_family(tmp_path: Path) -> None:
    deny_read = claude(deny=["Read(./secrets/**)"])
    assert decide(PeekTool(), tmp_path, deny_read, mode="yolo", target="secrets/key")[0] == "deny"
    assert decide(PeekTool(), tmp_path, deny_read, mode="yolo", target="notes")[0] == "allow"
    allow_edit = claude(allow=["Edit(./src/**)"])
    assert decide(CopyFileTool(), tmp_path, allow_edit, source="src/a", destination="src/b")[0] == "allow"
    assert decide(CopyFileTool(), tmp_path, allow_edit, source="src/a", destination="out/b")[0] == "ask"
    deny_edit = claude(deny=["Edit(./dist/**)"])
    assert decide(CopyFileTool(), tmp_path, deny_edit, mode="yolo", source="a", destination="dist/b")[0] == "deny"
    # a family rule does not reach the other family, nor a one-tool rule another tool
    assert decide(PeekTool(), tmp_path, deny_edit, mode="yolo", target="dist/b")[0] == "allow"
    deny_write = claude(deny=["Write(./dist/**)"])
    assert decide(CopyFileTool(), tmp_path, deny_write, mode="yolo", source="a", destination="dist/b")[0] == "allow"
    # a Claude Read rule hides the files from Glob/Grep and the sandbox too (it covers reads)
    engine = PermissionEngine(rules=deny_read, project_root=tmp_path)
    assert engine.restricts_reads and not engine.can_read(tmp_path / "secrets" / "key")


def test_protected_paths_ask_for_an_edit_family_tool(tmp_path: Path) -> None:
    allow_all = claude(allow=["Edit(./**)"])
    behavior, reason = decide(CopyFileTool(), tmp_path, allow_all, source="a", destination=".git/config")
    assert behavior == "ask" and "protected path" in reason
    behavior, reason = decide(CopyFileTool(), tmp_path, [], mode="acceptEdits", source="a", destination=".git/hooks/x")
    assert behavior == "ask" and "protected path" in reason
    assert decide(CopyFileTool(), tmp_path, allow_all, source="a", destination="b")[0] == "allow"


@pytest.mark.parametrize(("rules", "copied"), [([], True), (["Edit(./dist/**)"], False)])
async def test_the_agent_applies_the_tools_policy(tmp_path: Path, rules: list[str], copied: bool) -> None:
    (tmp_path / "a.txt").write_text("data\n")
    (tmp_path / "dist").mkdir()
    provider = ScriptedProvider(
        [reply(tool_call("CopyFile", {"source": "a.txt", "destination": "dist/a.txt"}, id="c")), reply("done")]
    )
    agent = Agent(
        provider=provider,
        model="m",
        tools=[CopyFileTool()],
        cwd=tmp_path,
        session_store=InMemorySessionStore(),
        permission_rules=claude(deny=rules),
        permission_mode="yolo",
    )
    session = await agent.session()
    async with session.run("copy it") as run:
        events = [e async for e in run]
    assert (tmp_path / "dist" / "a.txt").exists() == copied
    assert ("denied" in tool_results(events)["c"]) != copied
