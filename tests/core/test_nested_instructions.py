"""Nested CLAUDE.md / AGENTS.md join the context the first time the model reads below them."""

from __future__ import annotations

from pathlib import Path

from skawld_core import Agent
from skawld_core.instructions import load_instructions
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import default_tools
from tests.support.events import tool_results


async def read_results(tmp_path: Path, paths: list[str], *, nested: bool) -> list[str]:
    provider = ScriptedProvider(
        [
            *(reply(tool_call("Read", {"file_path": p}, id=f"r{i}")) for i, p in enumerate(paths)),
            reply("done"),
        ]
    )
    agent = Agent(
        provider=provider,
        model="m",
        tools=default_tools(),
        cwd=tmp_path,
        session_store=InMemorySessionStore(),
        nested_instructions=nested,
    )
    session = await agent.session()
    async with session.run("read") as run:
        events = [e async for e in run]
    return list(tool_results(events).values())


def layout(root: Path) -> None:
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "CLAUDE.md").write_text("PKG-RULES: no globals\n")
    (root / "pkg" / "sub" / "AGENTS.md").write_text("SUB-RULES: async only\n")
    (root / "pkg" / "sub" / "a.py").write_text("A = 1\n")
    (root / "pkg" / "sub" / "b.py").write_text("B = 2\n")
    (root / "top.py").write_text("TOP = 0\n")


async def test_nested_files_are_attached_once_on_first_read(tmp_path: Path) -> None:
    layout(tmp_path)
    first, second, top = await read_results(tmp_path, ["pkg/sub/a.py", "pkg/sub/b.py", "top.py"], nested=True)
    assert "A = 1" in first
    assert "<system-reminder>" in first
    assert first.index("PKG-RULES") < first.index("SUB-RULES")
    assert "PKG-RULES" not in second and "SUB-RULES" not in second and "B = 2" in second
    assert "RULES" not in top


async def test_off_by_default_in_the_sdk(tmp_path: Path) -> None:
    layout(tmp_path)
    [result] = await read_results(tmp_path, ["pkg/sub/a.py"], nested=False)
    assert "RULES" not in result


def test_files_between_the_repo_root_and_cwd_load_at_start(tmp_path: Path) -> None:
    layout(tmp_path)
    (tmp_path / "CLAUDE.md").write_text("ROOT\n")
    found = load_instructions(tmp_path, home=tmp_path / "home", cwd=tmp_path / "pkg")
    assert found.paths == [tmp_path / "CLAUDE.md", tmp_path / "pkg" / "CLAUDE.md"]


def test_imports_nest_five_deep_at_most(tmp_path: Path) -> None:
    for i in range(7):
        (tmp_path / f"f{i}.md").write_text(f"LEVEL{i} @f{i + 1}.md\n")
    (tmp_path / "CLAUDE.md").write_text("@f0.md\n")
    found = load_instructions(tmp_path, home=tmp_path / "home")
    text = found.prompt_text()
    assert "LEVEL4" in text and "LEVEL5" not in text
    assert [reason for _, _, reason in found.refused] == ["imports nest deeper than 5"]
