"""The line mode's /rename, /fork and /rewind (with real checkpoints)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from skawld_core import Agent
from skawld_core.checkpoints import CheckpointEngine
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools.write import WriteTool
from skawld_tui.plain.chat import make_prompt_session, run_plain

pytestmark = pytest.mark.timeout(30)


async def chat(lines: list[str], agent_kwargs: dict[str, Any]) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=200, force_terminal=False, color_system=None)

    def build(can_use_tool: Any, ask_user: Any) -> Agent:
        return Agent(can_use_tool=can_use_tool, ask_user=ask_user, model="test-model", **agent_kwargs)

    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("".join(line + "\r" for line in lines))
        prompt = make_prompt_session(input=pipe, output=DummyOutput())
        await run_plain(build, console=console, prompt_session=prompt)
    return buf.getvalue()


async def test_rename_fork_and_rewind_in_the_line_mode(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    store = InMemorySessionStore()
    provider = ScriptedProvider(
        [reply(tool_call("Write", {"file_path": str(project / "made.txt"), "content": "x\n"})), reply("made")]
    )
    out = await chat(
        ["make a file", "/rename Making files", "/fork", "/rewind", "1", "b", "/exit"],
        {
            "provider": provider,
            "tools": [WriteTool()],
            "permission_mode": "yolo",
            "session_store": store,
            "cwd": project,
            "checkpoints": CheckpointEngine(project, root=tmp_path / "cp"),
        },
    )
    assert "renamed: Making files" in out
    assert "forked session " in out and "the original is unchanged" in out
    assert " 1. make a file  · just now · code checkpoint" in out
    assert "Files outside the project and effects outside the filesystem" in out
    assert "code restored: 0 files written, 1 removed" in out
    assert "the prompt was: make a file" in out
    assert not (project / "made.txt").exists()
    titles = sorted(str(r.meta.get("title")) for r in await store.list_sessions())
    assert titles == ["Making files", "Making files", "Making files"]  # original, fork, rewind fork


async def test_rewind_in_the_line_mode_names_changes_not_made_by_the_agent(tmp_path: Path) -> None:
    """Issue 26: what a restore would overwrite that the agent's file tools did not write is
    listed, and 'k' keeps it. A non-file tool stands in for the user (like a shell command, its
    writes cannot be told from the user's)."""
    from skawld_core.tools import tool

    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("v1\n")

    @tool(name="Elsewhere")
    def elsewhere() -> str:
        """Changes files the way a user would."""
        (project / "notes.txt").write_text("my own edit\n")
        (project / "mine.txt").write_text("my new file\n")
        return "done"

    provider = ScriptedProvider(
        [
            reply(tool_call("Write", {"file_path": str(project / "made.txt"), "content": "x\n"})),
            reply(tool_call("Elsewhere", {})),
            reply("made"),
        ]
    )
    out = await chat(
        ["make a file", "/rewind", "1", "k", "k", "/exit"],
        {
            "provider": provider,
            "tools": [WriteTool(), elsewhere],
            "permission_mode": "yolo",
            "session_store": InMemorySessionStore(),
            "cwd": project,
            "checkpoints": CheckpointEngine(project, root=tmp_path / "cp"),
        },
    )
    assert "These files changed after that checkpoint, not by the agent:" in out
    assert "edited since: notes.txt (would be rewritten)" in out
    assert "created since: mine.txt (would be removed)" in out
    assert "made.txt (would" not in out
    assert "left as they are (your changes): " in out
    assert (project / "notes.txt").read_text() == "my own edit\n" and (project / "mine.txt").exists()
    assert not (project / "made.txt").exists()
