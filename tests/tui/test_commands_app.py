"""The slash-command registry in the app: new commands, completion from one registry."""

from __future__ import annotations

import asyncio
import io
import subprocess
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from rich.console import Console
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from skawld_core import Agent
from skawld_core.checkpoints import CheckpointEngine
from skawld_core.compaction import KeepRecentTurns
from skawld_core.providers.base import SystemBlock
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, text, tool_call
from skawld_core.tools.bash import BashTool
from skawld_core.tools.read import ReadTool
from skawld_core.tools.write import WriteTool
from skawld_tui.app.widgets.blocks import CommandOutput, Divider, ErrorBlock, NoteLine
from skawld_tui.commands.choice_screen import ChoiceScreen
from tests.support.mock_tools import MockRead

from .helpers import SIZE, AppForTests, make_app, ready, run_done, send, until

pytestmark = pytest.mark.timeout(60)


def outputs(app: Any) -> list[str]:
    return [m.source for m in app.query(CommandOutput)]


def notes(app: Any) -> list[str]:
    return [str(n.render()) for n in app.query(NoteLine)]


def rendered(app: Any) -> str:
    """The text of the Rich renderables commands showed (diffs)."""
    buf = io.StringIO()
    console = Console(file=buf, width=120, color_system=None)
    for widget in app.query(".command-renderable"):
        assert isinstance(widget, Static)
        console.print(widget.content)
    return buf.getvalue()


async def test_completion_lists_builtins_aliases_file_commands_and_skills(tmp_path: Path) -> None:
    (tmp_path / ".claude" / "commands").mkdir(parents=True)
    (tmp_path / ".claude" / "commands" / "ctx-review.md").write_text("---\ndescription: Review context use\n---\nGo.")
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("/", "c")
        await pilot.pause()
        values = [o.id for o in app.completions._options]
        assert {"/compact", "/context", "/usage", "/ctx-review"} <= set(values)  # /cost is /usage's alias
        labels = [str(app.completions.get_option_at_index(i).prompt) for i in range(app.completions.option_count)]
        assert any("/ctx-review  — Review context use" in label for label in labels)
        assert any("/compact [focus]  — Summarise" in label for label in labels)


async def test_cost_is_usage() -> None:
    app = make_app([reply("hi")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await run_done(pilot)
        await send(pilot, "/cost")
        await pilot.pause()
        await send(pilot, "/usage")
        await pilot.pause()
        shown = outputs(app)
        assert len(shown) == 2 and shown[0] == shown[1] and "| input tokens |" in shown[0]


async def test_context_counts_system_tools_instructions_and_messages(tmp_path: Path) -> None:
    instructions = "Instructions from AGENTS.md:\n\n" + "Always run the linter. " * 200
    app = make_app([reply(text("x" * 4000))], tools=[MockRead()], cwd=tmp_path, system_prompt=instructions)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.agent is not None and app.session is not None
        from skawld_tui.commands.context import measure

        before = measure(app.agent, app.session)
        assert before.messages == 0 and before.tools > 0 and before.system > 0
        assert 1100 <= before.instructions <= 1250  # ~4,600 characters at 4 a token
        await send(pilot, "hello")
        await run_done(pilot)
        after = measure(app.agent, app.session)
        assert after.messages >= 1000  # the 4,000-character answer is in the window now
        assert after.free == after.window - after.used
        await send(pilot, "/context")
        await pilot.pause()
        shown = outputs(app)[-1]
        assert "| messages |" in shown and "| free |" in shown and "instructions (AGENTS.md, CLAUDE.md)" in shown
        assert "| tool definitions |" in shown and "`test-model`" in shown


class FixedSystemAgent(Agent):
    """A system prompt that is the same on every machine (the real one names the OS and Python)."""

    def system_blocks(self) -> list[SystemBlock]:
        return [
            SystemBlock(text="You are skawld, a coding agent. " * 40),
            SystemBlock(text="User-provided instructions:\n\n" + "Use tabs. " * 300),
        ]


def fixed_app(turns: list[Any], cwd: Path) -> AppForTests:
    provider = ScriptedProvider(turns, context_window=8000)

    def factory(can_use_tool: Callable[..., Any], ask_user: Any) -> Agent:
        return FixedSystemAgent(
            provider=provider,
            model="test-model",
            tools=[MockRead()],
            can_use_tool=can_use_tool,
            ask_user=ask_user,
            session_store=InMemorySessionStore(),
            cwd=cwd,
            sandbox="off",
        )

    return AppForTests(agent_factory=factory, resume_id="test-session")


def test_context_view_snapshot(snap_compare: Any, tmp_path: Path) -> None:
    app = fixed_app([reply(text("y" * 6000))], tmp_path)

    async def run_before(pilot: Pilot[Any]) -> None:
        await ready(pilot)
        await send(pilot, "explain the code")
        await run_done(pilot)
        await send(pilot, "/context")
        await until(lambda: len(outputs(app)) == 1, pilot)
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_compact_focus_reaches_the_summary_request() -> None:
    turns = [reply("first answer"), reply("second answer"), reply("the summary")]
    app = make_app(turns, compaction=KeepRecentTurns(1))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for prompt, runs in (("one", 1), ("two", 2)):
            await send(pilot, prompt)
            await run_done(pilot, runs)
        await send(pilot, "/compact keep the API names")
        await until(lambda: bool(app.query(Divider)), pilot)
        summary = app.test_provider.requests[-1]  # type: ignore[attr-defined]
        assert "focus on: keep the API names" in summary.system[0].text
        assert "(focus: keep the API names)" in str(app.query(Divider).last().render())


async def test_compact_on_request_compacts_five_exchanges_with_the_default_strategy() -> None:
    """The default keeps ten turns at the threshold; asked, it keeps only the last one."""
    turns = [reply(f"answer {n}") for n in range(5)] + [reply("the summary")]
    app = make_app(turns)  # the agent's default compaction (KeepRecentTurns(10))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for n in range(5):
            await send(pilot, f"question {n}")
            await run_done(pilot, n + 1)
        await send(pilot, "/compact the parser")
        await until(lambda: bool(app.query(Divider)), pilot)
        summary = app.test_provider.requests[-1]  # type: ignore[attr-defined]
        assert "focus on: the parser" in summary.system[0].text
        assert "question 0" in str(summary.messages) and "answer 4" not in str(summary.messages)
        assert "context compacted: 10 → 2 messages (focus: the parser)" in str(app.query(Divider).last().render())
        assert "nothing to compact" not in notes(app)


async def test_compact_is_refused_while_a_run_is_going() -> None:
    hold = asyncio.Event()
    turn = reply(text("streaming", chunk=3))
    turn.hold, turn.hold_at = hold, 1
    app = make_app([turn])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await until(lambda: app.running, pilot)
        await send(pilot, "/compact")
        await pilot.pause()
        assert "/compact is not available while a run is going" in notes(app)
        hold.set()
        await run_done(pilot)


@pytest.mark.parametrize("existing", [None, "CLAUDE.md"])
async def test_init_asks_the_model_to_write_or_improve_agents_md(tmp_path: Path, existing: str | None) -> None:
    if existing:
        (tmp_path / existing).write_text("# notes\n")
    app = make_app([reply("written")], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/init")
        await run_done(pilot)
        sent = str(app.test_provider.requests[0].messages[0].content)  # type: ignore[attr-defined]
        if existing:
            assert "This project already has CLAUDE.md" in sent
        else:
            assert "create an AGENTS.md file" in sent and "# AGENTS.md" in sent


async def test_diff_shows_the_session_changes_from_the_first_checkpoint(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "app.py").write_text("def total(items):\n    return sum(items) + 1\n")
    (project / "keep.txt").write_text("unchanged\n")
    new_app = "def total(items):\n    return sum(items)\n"
    turns = [
        reply(tool_call("Read", {"file_path": str(project / "app.py")}, id="r1")),
        reply(tool_call("Write", {"file_path": str(project / "app.py"), "content": new_app}, id="w1")),
        reply(tool_call("Write", {"file_path": str(project / "notes.md"), "content": "# notes\n"}, id="w2")),
        reply("fixed"),
    ]
    engine = CheckpointEngine(project, root=tmp_path / "cp")
    app = make_app(turns, tools=[ReadTool(), WriteTool()], cwd=project, mode="yolo", checkpoints=engine)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/diff")
        await pilot.pause()
        assert "nothing has run in this session yet: no changes to show" in notes(app)
        await send(pilot, "fix the off-by-one")
        await run_done(pilot)
        await send(pilot, "/diff")
        await until(lambda: bool(app.query(".command-renderable")), pilot)
        await pilot.pause()
        assert any(n.startswith("2 files changed since the session's first prompt (checkpoint") for n in notes(app))
        shown = rendered(app)
        assert "-    return sum(items) + 1" in shown and "+    return sum(items)" in shown
        assert "+++ b/notes.md" in shown and "keep.txt" not in shown
        assert not app.query(ErrorBlock)


async def test_diff_falls_back_to_git_without_checkpoints(tmp_path: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "a.py"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    (tmp_path / "a.py").write_text("x = 2\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/diff")
        await until(lambda: bool(app.query(".command-renderable")), pilot)
        await pilot.pause()
        assert "2 files changed in the working tree against git HEAD (checkpoints are off)" in notes(app)
        shown = rendered(app)
        assert "-x = 1" in shown and "+x = 2" in shown and "+y = 1" in shown


async def test_bashes_lists_and_kills_background_shells_and_the_status_counts_them(tmp_path: Path) -> None:
    hold = asyncio.Event()
    waiting = reply(text("waiting for the server", chunk=4))
    waiting.hold, waiting.hold_at = hold, 1
    turns = [
        reply(tool_call("Bash", {"command": "sleep 30", "run_in_background": True}, id="b1")),
        reply(tool_call("Bash", {"command": "sleep 31", "run_in_background": True}, id="b2")),
        reply(tool_call("Bash", {"command": "sleep 32", "run_in_background": True}, id="b3")),
        waiting,
    ]
    app = make_app(turns, tools=[BashTool()], cwd=tmp_path, mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/bashes")
        await pilot.pause()
        assert any(n.startswith("no background shells (Bash with run_in_background") for n in notes(app))
        await send(pilot, "start the servers")
        await until(lambda: app.status.info.shells == 3, pilot)
        assert "3 shells" in app.status.render_info().plain
        await send(pilot, "/bashes")
        await until(lambda: bool(outputs(app)), pilot)
        table = outputs(app)[-1]
        assert "| `bash_1` | `sleep 30` | running |" in table and "| `bash_2` | `sleep 31` | running |" in table
        await send(pilot, "/bashes kill bash_1")
        await until(lambda: "bash_1 killed" in notes(app), pilot)
        assert app.status.info.shells == 2
        await send(pilot, "/bashes kill bash_9")
        await pilot.pause()
        assert "no background shells 'bash_9'" not in notes(app)
        assert any(n.startswith("no background shell 'bash_9' (shells: bash_1, bash_2, bash_3)") for n in notes(app))
        await send(pilot, "/bashes kill")  # no id: choose among the running ones
        await until(lambda: isinstance(app.screen, ChoiceScreen), pilot)
        choices = app.screen.query_one(OptionList)
        assert [choices.get_option_at_index(i).id for i in range(choices.option_count)] == ["bash_2", "bash_3"]
        await pilot.press("enter")
        await until(lambda: "bash_2 killed" in notes(app), pilot)
        assert app.status.info.shells == 1
        await send(pilot, "/bashes")
        await until(lambda: len(outputs(app)) == 2, pilot)
        assert (
            "| `bash_1` | `sleep 30` | killed |" in outputs(app)[-1]
            and "| `bash_3` | `sleep 32` | running |" in outputs(app)[-1]
        )
        hold.set()
        await run_done(pilot)
        shell = app.agent.shell_policy.background(app.session.id).get("bash_3")  # type: ignore[union-attr]
        assert shell is not None and shell.running and app.status.info.shells == 1  # it outlives the run
        await pilot.press("ctrl+q")
        await until(lambda: isinstance(app.screen, ChoiceScreen), pilot)
        assert (
            isinstance(app.screen, ChoiceScreen)
            and app.screen.heading == "1 background shell still running: quitting ends it."
        )
        await pilot.press("enter")
        await until(lambda: not shell.running, pilot)
    assert app.return_code == 0 and shell.killed


async def test_a_command_files_model_runs_its_prompt_and_an_alias_warns(tmp_path: Path) -> None:
    commands = tmp_path / ".skawld" / "commands"
    commands.mkdir(parents=True)
    (commands / "quick.md").write_text("---\nmodel: small-model\n---\nBe quick about $ARGUMENTS")
    (commands / "deep.md").write_text("---\nmodel: opus\n---\nThink about $ARGUMENTS")
    turns = [reply(tool_call("MockRead", {"path": "a"}, id="r1")), reply("quick"), reply("plain"), reply("deep")]
    app = make_app(turns, tools=[MockRead()], cwd=tmp_path, mode="yolo")
    app.settings = SimpleNamespace(project_trusted=True)  # a project command's model needs an accepted project
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for typed, runs in (("/quick tests", 1), ("no command", 2), ("/deep caching", 3)):
            await send(pilot, typed)
            await run_done(pilot, runs)
        models = [r.model for r in app.test_provider.requests]  # type: ignore[attr-defined]
        assert models == ["small-model", "small-model", "test-model", "test-model"]  # every turn of its run
        assert "/deep: model 'opus' is a Claude Code alias; using the session's model" in notes(app)


async def test_a_new_session_ends_the_old_sessions_background_shells(tmp_path: Path) -> None:
    turns = [reply(tool_call("Bash", {"command": "sleep 40", "run_in_background": True}, id="b1")), reply("started")]
    app = make_app(turns, tools=[BashTool()], cwd=tmp_path, mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "start it")
        await run_done(pilot)
        assert app.agent is not None and app.session is not None
        shell = app.agent.shell_policy.background(app.session.id).get("bash_1")
        assert shell is not None and shell.running
        await until(lambda: app.status.info.shells == 1, pilot)
        await send(pilot, "/clear")
        await until(lambda: not shell.running, pilot)
        assert shell.killed
        await until(lambda: app.status.info.shells == 0, pilot)


async def test_memory_opens_the_instruction_files_in_the_editor(tmp_path: Path, monkeypatch: Any) -> None:
    """A real editor process: a script that appends a line to every file it is given."""
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nfor f in "$@"; do echo "- edited" >> "$f"; done\n')
    editor.chmod(0o755)
    monkeypatch.setenv("VISUAL", f"{editor}")
    agents_md = tmp_path / "AGENTS.md"
    agents_md.write_text("# Rules\n")
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.agent is not None
        app.agent.instruction_files = [str(agents_md)]
        await send(pilot, "/memory")
        await until(lambda: any("the next skawld reads them" in n for n in notes(app)), pilot)
    assert agents_md.read_text() == "# Rules\n- edited\n"


async def test_memory_says_when_the_editor_cannot_start(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("VISUAL", str(tmp_path / "no-such-editor"))
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/memory")
        await until(lambda: bool(app.query(ErrorBlock)), pilot)
        assert "cannot start the editor" in str(app.query(ErrorBlock).last().render())
    assert not (tmp_path / "AGENTS.md").exists()


async def test_hooks_lists_each_hook_with_its_file(tmp_path: Path, monkeypatch: Any) -> None:
    import json

    from skawld_core.settings import CliOptions, resolve_settings
    from skawld_tui.app.widgets.blocks import CommandOutput

    home = tmp_path / "home"
    (home / ".skawld").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    user = home / ".skawld" / "config.json"
    user.write_text(json.dumps({"hooks": {"Stop": [{"command": "notify-send done"}]}}))
    project = tmp_path / "repo" / ".claude" / "settings.json"
    project.parent.mkdir(parents=True)
    claude_hooks = {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}]}
    project.write_text(json.dumps({"hooks": claude_hooks}))
    settings = resolve_settings(CliOptions(cwd=str(tmp_path / "repo"), accept_project_config=True))
    app = make_app([], cwd=tmp_path / "repo")
    app.settings = settings
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/hooks")
        await until(lambda: bool(app.query(CommandOutput)), pilot)
        shown = app.query(CommandOutput).last().source  # type: ignore[attr-defined]
    assert f"**PreToolUse**\n\n- `Bash` → `./check.sh` — from {project}\n" in shown
    assert shown.endswith(f"**Stop**\n\n- `*` → `notify-send done` — from {user}")


def test_hooks_of_one_event_are_listed_under_it_whole() -> None:
    from skawld_tui.commands.hooks_view import hooks_markdown

    rows = [
        ("UserPromptSubmit", "*", "a", "x.json"),
        ("PreToolUse", "Bash", "b", "y.json"),
        ("UserPromptSubmit", "*", "c `d`", "command line"),
    ]
    assert hooks_markdown(rows).splitlines() == [
        "**UserPromptSubmit**",
        "",
        "- `*` → `a` — from x.json",
        "- `*` → `c 'd'` — from command line",
        "",
        "**PreToolUse**",
        "",
        "- `Bash` → `b` — from y.json",
    ]
