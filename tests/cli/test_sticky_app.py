"""Answers that stick: the app's dialog saves the rule it shows, and the next session honours it.

The dialog runs in the real app (Textual pilot) over a real Bash tool in a temporary git
repository, with HOME pointed at the test's own home; the next session is the installed
`skawld -p` against the local wire server, which denies anything that would ask.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Static

from skawld_core.testing import reply, tool_call
from skawld_core.tools import BashTool
from skawld_tui.app.screens.permission import PermissionScreen
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn
from tests.support.wire_server import tool_call as wire_tool_call
from tests.tui.helpers import SIZE, make_app, ready, run_done, send, until

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


def _bash_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for m in body["messages"] if m["role"] == "user" for b in m["content"] if isinstance(b, dict)]


async def test_always_saves_the_shown_rule_and_the_next_skawld_p_does_not_ask(
    cli: CliEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(cli.home))
    app = make_app(
        [
            reply(tool_call("Bash", {"command": "echo first-run"}, id="b1")),
            reply(tool_call("Bash", {"command": "echo again"}, id="b2")),
            reply("done"),
        ],
        tools=[BashTool()],
        cwd=cli.repo,
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "say it")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        shown = str(app.screen.query_one("#permission-rule", Static).render())
        assert "Bash(echo:*)" in shown
        assert app.screen.query_one("#always", Button).label.plain == "Always (a)"
        await pilot.press("a")
        await run_done(pilot)
        assert not isinstance(app.screen, PermissionScreen)  # the second echo was not asked about
        assert app.broker.session_allowed == set()  # it was the saved rule, not a session answer

    settings = cli.repo / ".claude" / "settings.local.json"
    assert json.loads(settings.read_text()) == {"permissions": {"allow": ["Bash(echo:*)"]}}
    ignored = subprocess.run(["git", "check-ignore", "-q", str(settings)], cwd=cli.repo, check=False)
    assert ignored.returncode == 0

    cli.srv.anthropic.enqueue(
        turn(wire_tool_call("Bash", {"command": "echo from-the-next-session"}, id="n1")), turn(text("ok"))
    )
    out = cli.run(*cli.args("-p", "say it again", "--json"))
    assert out.returncode == 0, out.stderr  # no trust prompt for the user's own rule
    results = [b for b in _bash_results(cli.srv.anthropic.requests[-1].body) if b.get("type") == "tool_result"]
    assert results and not results[-1].get("is_error"), results
    assert "from-the-next-session" in json.dumps(results[-1])


async def test_without_the_saved_rule_the_headless_run_is_refused(cli: CliEnv) -> None:
    """The control: the same `skawld -p` run asks (and so is refused) when nothing was saved."""
    cli.srv.anthropic.enqueue(
        turn(wire_tool_call("Bash", {"command": "echo from-the-next-session"}, id="n1")), turn(text("ok"))
    )
    out = cli.run(*cli.args("-p", "say it again", "--json"))
    assert out.returncode == 0, out.stderr
    results = [b for b in _bash_results(cli.srv.anthropic.requests[-1].body) if b.get("type") == "tool_result"]
    assert results and results[-1].get("is_error")


async def test_deny_and_once_save_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    app = make_app(
        [
            reply(tool_call("Bash", {"command": "echo one"}, id="b1")),
            reply(tool_call("Bash", {"command": "echo two"}, id="b2")),
            reply("done"),
        ],
        tools=[BashTool()],
        cwd=tmp_path,
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        await pilot.press("y")
        await until(lambda: isinstance(app.screen, PermissionScreen) and "two" in str(app.screen.tool_input), pilot)
        await pilot.press("n")
        await run_done(pilot)
    assert not (tmp_path / ".claude").exists()
    assert not (tmp_path / "home" / ".skawld" / "remembered-rules.json").exists()


async def test_a_command_no_rule_covers_offers_no_always(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    app = make_app(
        [reply(tool_call("Bash", {"command": "echo $(whoami)"}, id="b1")), reply("done")],
        tools=[BashTool()],
        cwd=tmp_path,
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        assert not app.screen.query("#always")
        assert "command substitution" in str(app.screen.query_one("#permission-rule", Static).render())
        await pilot.press("a")  # not offered: the dialog stays open
        await pilot.pause()
        assert isinstance(app.screen, PermissionScreen)
        await pilot.press("s")
        await run_done(pilot)
    assert not (tmp_path / ".claude").exists()


async def test_a_rule_saved_for_the_first_call_of_a_batch_covers_the_waiting_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    app = make_app(
        [
            reply(
                tool_call("Bash", {"command": "git status"}, id="b1"),
                tool_call("Bash", {"command": "git status --short"}, id="b2"),
                tool_call("Bash", {"command": "git log"}, id="b3"),
            ),
            reply("done"),
        ],
        tools=[BashTool()],
        cwd=tmp_path,
    )
    asked: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        asked.append(app.screen.tool_input["command"])
        await pilot.press("a")  # saves Bash(git status:*): b2 is covered, b3 (git log) is not
        await until(
            lambda: isinstance(app.screen, PermissionScreen) and app.screen.tool_input != {"command": asked[0]}, pilot
        )
        asked.append(app.screen.tool_input["command"])
        await pilot.press("y")
        await run_done(pilot)
    assert asked == ["git status", "git log"]
    saved = json.loads((tmp_path / ".claude" / "settings.local.json").read_text())
    assert saved["permissions"]["allow"] == ["Bash(git status:*)"]


async def test_a_protected_path_gets_no_always(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from skawld_core.tools import WriteTool

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    target = tmp_path / ".claude" / "agents" / "x.md"
    app = make_app(
        [reply(tool_call("Write", {"file_path": str(target), "content": "x"}, id="w1")), reply("done")],
        tools=[WriteTool()],
        cwd=tmp_path,
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        assert not app.screen.query("#always")
        assert "would not stop the question" in str(app.screen.query_one("#permission-rule", Static).render())
        await pilot.press("n")
        await run_done(pilot)
    assert not target.exists()
