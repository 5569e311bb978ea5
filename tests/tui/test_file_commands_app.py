"""Command files in the app: `/` completion lists them, typing one runs its prompt."""

from __future__ import annotations

from pathlib import Path

from skawld_core.testing import reply
from skawld_tui.app.widgets.blocks import NoteLine

from .helpers import SIZE, make_app, ready, run_done, send


async def test_command_file_completes_and_runs(tmp_path: Path) -> None:
    commands = tmp_path / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "hello.md").write_text("---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $1.")
    app = make_app([reply("hello, Ada")], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("/", "h", "e")
        labels = [str(app.completions.get_option_at_index(i).prompt) for i in range(app.completions.option_count)]
        assert any("/hello <name>  — Greet someone" in label for label in labels)
        app.prompt.clear()
        await send(pilot, "/hello Ada")
        await run_done(pilot)
        request = app.test_provider.requests[0]  # type: ignore[attr-defined]
        assert "Say hello to Ada." in str(request.messages[0].content)


async def test_a_refused_shell_line_is_a_note_not_a_run(tmp_path: Path) -> None:
    commands = tmp_path / ".skawld" / "commands"
    commands.mkdir(parents=True)
    (commands / "wipe.md").write_text("!`rm -rf build`")
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "/wipe")
        await pilot.pause()
        assert any("needs permission" in str(n.render()) for n in app.query(NoteLine))
        assert app.test_provider.requests == []  # type: ignore[attr-defined]
