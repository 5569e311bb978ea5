"""The slash-command registry in the plain mode: the same commands as the app, completion with descriptions."""

from __future__ import annotations

import io
import subprocess
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from skawld_core.compaction import KeepRecentTurns
from skawld_core.testing import ScriptedProvider, reply
from skawld_tui.commands import parse, slash_completer
from skawld_tui.file_commands import PromptCommands
from skawld_tui.plain.chat import make_prompt_session, run_plain

from .helpers import plain_agent_factory

pytestmark = pytest.mark.timeout(30)


async def chat(lines: list[str], provider: ScriptedProvider, cwd: Path, **kw: Any) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=120, force_terminal=False, color_system=None)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("".join(line + "\r" for line in lines))
        prompt = make_prompt_session(input=pipe, output=DummyOutput())
        code = await run_plain(plain_agent_factory(provider, cwd=cwd, **kw), console=console, prompt_session=prompt)
    assert code == 0
    return buf.getvalue()


def test_aliases_parse_to_their_command() -> None:
    assert parse("/cost") == ("usage", "")
    assert parse("/quit") == ("exit", "")
    assert parse("/clear") == ("new", "")
    assert parse("/compact keep the tests") == ("compact", "keep the tests")
    assert parse("//not a command") is None


async def test_commands_that_were_app_only_run_in_plain_mode(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply("first"), reply("second"), reply("the summary")])
    out = await chat(
        ["one", "two", "/cost", "/context", "/agents", "/tasks", "/bashes", "/compact the parser", "/exit"],
        provider,
        tmp_path,
        compaction=KeepRecentTurns(1),
    )
    assert "input tokens" in out and "cost" in out  # /cost
    assert "tool definitions" in out and "free" in out  # /context
    assert "no subagent types defined" in out and "no tasks in this session" in out
    assert "no background shells" in out
    assert "── context compacted: " in out and "(focus: the parser) ──" in out
    assert "focus on: the parser" in provider.requests[-1].system[0].text
    assert "available in the full-screen app" not in out


async def test_file_commands_run_and_help_lists_them(tmp_path: Path) -> None:
    commands = tmp_path / ".skawld" / "commands"
    commands.mkdir(parents=True)
    (commands / "hello.md").write_text("---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $1.")
    provider = ScriptedProvider([reply("hello, Ada")])
    out = await chat(["/help", "/hello Ada", "/nope", "/exit"], provider, tmp_path)
    assert "/hello <name>" in out and "Greet someone" in out and "(file)" in out
    assert "hello, Ada" in out and "Say hello to Ada." in str(provider.requests[0].messages[0].content)
    assert "unknown command /nope" in out


async def test_diff_in_plain_mode_uses_git_without_checkpoints(tmp_path: Path) -> None:
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "a.py"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    (tmp_path / "a.py").write_text("x = 2\n")
    out = await chat(["/diff", "/exit"], ScriptedProvider([]), tmp_path)
    assert "1 file changed in the working tree against git HEAD" in out
    assert "-x = 1" in out and "+x = 2" in out


async def test_init_in_plain_mode_sends_the_agents_md_prompt(tmp_path: Path) -> None:
    provider = ScriptedProvider([reply("done")])
    await chat(["/init", "/exit"], provider, tmp_path)
    assert "create an AGENTS.md file" in str(provider.requests[0].messages[0].content)


async def test_the_prompt_completer_offers_builtins_and_file_commands_with_descriptions(tmp_path: Path) -> None:
    commands = tmp_path / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a path\nargument-hint: <path>\n---\nReview $1")
    agent = plain_agent_factory(ScriptedProvider([]), cwd=tmp_path)(None, None)
    prompt_commands = PromptCommands(agent, home=tmp_path / "home")
    completer = slash_completer(lambda: prompt_commands)

    def complete(text: str) -> list[tuple[str, str, str]]:
        found = completer.get_completions(Document(text), CompleteEvent())
        return [(c.text, c.display_text, c.display_meta_text) for c in found]

    assert complete("/re") == [
        ("/resume", "/resume [id]", "Resume a stored session (picker with search)"),
        ("/rename", "/rename <title>", "Rename this session"),
        ("/rewind", "/rewind", "Restore code and/or conversation to before a prompt"),
        ("/review", "/review <path>", "Review a path"),
    ]
    assert [c[0] for c in complete("/co")] == ["/usage", "/compact", "/context"]  # /cost is /usage's alias
    assert complete("/review x") == [] and complete("hello") == []
    await agent.close()


class DropAllButLast:
    """A strategy written before `focus` existed: its `compact` takes no focus."""

    id = "drop-all-but-last"

    def __init__(self) -> None:
        self.calls = 0

    async def compact(self, messages: list[Any], *, provider: Any, model: str, usage_report: Any) -> list[Any]:
        self.calls += 1
        return messages[-1:]


async def test_compact_focus_with_a_strategy_that_takes_none(tmp_path: Path) -> None:
    from skawld_core.compaction import takes_focus

    strategy = DropAllButLast()
    assert not takes_focus(strategy) and takes_focus(KeepRecentTurns(1))  # type: ignore[arg-type]
    out = await chat(
        ["one", "/compact the parser", "/exit"], ScriptedProvider([reply("a")]), tmp_path, compaction=strategy
    )
    assert strategy.calls == 1 and "context compacted: 2 → 1 messages (focus: the parser)" in out


async def test_plain_choose_asks_for_a_number() -> None:
    from skawld_tui.plain.chat import PlainChat

    buf = io.StringIO()
    console = Console(file=buf, width=100, force_terminal=False, color_system=None)
    picked: list[str] = []

    async def then(value: str) -> None:
        picked.append(value)

    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("2\r9\r")
        chat = PlainChat(console, make_prompt_session(input=pipe, output=DummyOutput()))
        options = [("bash_1", "bash_1  sleep 30"), ("bash_2", "bash_2  sleep 31")]
        await chat.host.choose("Kill which background shell?", options, then)
        await chat.host.choose("Kill which background shell?", options, then)  # 9 is no choice
    assert picked == ["bash_2"]
    assert "Kill which background shell?\n 1. bash_1  sleep 30\n 2. bash_2  sleep 31" in buf.getvalue()


async def test_agents_lists_the_subagent_types_from_the_config_dir(tmp_path: Path) -> None:
    agents = tmp_path / "cfg" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\ndescription: Reviews diffs\n---\nYou review.")
    out = await chat(["/agents", "/exit"], ScriptedProvider([]), tmp_path, config_dir=tmp_path / "cfg")
    assert "reviewer — Reviews diffs" in out


async def test_cost_and_the_result_line_mark_estimated_usage(tmp_path: Path) -> None:
    estimated = {"openai_chat": {"usage_estimated": True}}
    provider = ScriptedProvider([reply("counted"), reply("guessed", provider_metadata=estimated)])
    out = await chat(["one", "/cost", "two", "/cost", "/exit"], provider, tmp_path)
    first_cost, second_cost = out.split("input tokens")[1:3]
    assert "Estimated" not in first_cost and "Estimated" in second_cost
    assert "~" in out.split("guessed", 1)[1].split("input tokens")[0]  # the second result line


async def test_plain_bashes_lists_and_kills_and_quitting_ends_the_rest(tmp_path: Path) -> None:
    from skawld_core.testing import tool_call
    from skawld_core.tools.bash import BashTool
    from tests.sandbox.conftest import gone, sleep_tag

    first, second = sleep_tag(), sleep_tag()
    provider = ScriptedProvider(
        [
            reply(tool_call("Bash", {"command": f"sleep {first}", "run_in_background": True}, id="b1")),
            reply(tool_call("Bash", {"command": f"sleep {second}", "run_in_background": True}, id="b2")),
            reply("both started"),
        ]
    )
    out = await chat(
        ["start them", "/bashes", "/bashes kill bash_1", "/exit"],
        provider,
        tmp_path,
        tools=[BashTool()],
        permission_mode="yolo",
    )
    assert f"sleep {first}" in out and f"sleep {second}" in out and "running" in out  # listed after the run
    assert "bash_1 killed" in out
    assert "ending 1 background shell" in out
    assert await gone(first) and await gone(second)
