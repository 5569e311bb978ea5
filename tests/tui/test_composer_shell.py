"""`!cmd` in the app: the real Bash tool, the permission dialog, a Bash panel,
and the output carried to the model by the next message (wire request log)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from skawld_core.messages import TextBlock, ToolResultBlock  # noqa: E402
from skawld_core.providers import AnthropicProvider  # noqa: E402
from skawld_core.testing import reply  # noqa: E402
from skawld_core.tools.bash import BashTool  # noqa: E402
from skawld_tui.app.screens.permission import PermissionScreen  # noqa: E402
from skawld_tui.app.widgets.blocks import NoteLine, UserMessage  # noqa: E402
from skawld_tui.app.widgets.tool_panel import ToolPanel  # noqa: E402
from skawld_tui.shell_line import outcome_of, shell_command  # noqa: E402
from tests.support.wire_server import WireServer, text, turn  # noqa: E402

from .helpers import SIZE, make_app, ready, run_done, send, until  # noqa: E402


def test_shell_lines_and_the_bash_output_shape() -> None:
    assert shell_command("!ls -la") == "ls -la" and shell_command("!") is None and shell_command("ls") is None
    ran = outcome_of("x", ToolResultBlock(tool_use_id="t", content="out\n---\nerr\nexit: 3"))
    assert ran.context() == [
        "<bash-input>x</bash-input>",
        "<bash-stdout>out</bash-stdout><bash-stderr>err\nexit: 3</bash-stderr>",
    ]
    refused = outcome_of(
        "x", ToolResultBlock(tool_use_id="t", content="The user denied this tool call.", is_error=True)
    )
    assert refused.denied and refused.context() == []


@pytest.mark.timeout(60)
async def test_bang_command_asks_runs_and_reaches_the_next_request(tmp_path: Path) -> None:
    with WireServer() as srv:
        srv.anthropic.enqueue(turn(text("I see the output.")))
        provider = AnthropicProvider(api_key="test", base_url=srv.url)
        app = make_app(provider=provider, tools=[BashTool()], model="claude-opus-4-5", cwd=tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            await send(pilot, "!echo from-shell; echo to-stderr >&2; touch ran.flag")
            await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
            await pilot.press("y")
            await until(lambda: any(p.result for p in app.query(ToolPanel)), pilot)
            panel = app.query(ToolPanel).first()
            assert panel.tool_name == "Bash" and "from-shell" in panel.result
            assert (tmp_path / "ran.flag").exists()
            assert srv.anthropic.requests == []  # a `!` line alone does not call the model
            await send(pilot, "what did it print?")
            await run_done(pilot)
            content = srv.anthropic.requests[-1].body["messages"][-1]["content"]
            texts = [part["text"] for part in content if part["type"] == "text"]
            cmd = "echo from-shell; echo to-stderr >&2; touch ran.flag"
            assert f"<bash-input>{cmd}</bash-input>" in texts
            assert "<bash-stdout>from-shell</bash-stdout><bash-stderr>to-stderr</bash-stderr>" in texts
            assert texts[-1] == "what did it print?"
            assert [m.text for m in app.query(UserMessage)] == [f"! {cmd}", "what did it print?"]


async def test_a_denied_bang_command_neither_runs_nor_reaches_the_model(tmp_path: Path) -> None:
    app = make_app([reply("ok")], tools=[BashTool()], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "!touch nope.flag")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        await pilot.press("n")
        await until(lambda: any("not run" in str(n.render()) for n in app.query(NoteLine)), pilot)
        assert not (tmp_path / "nope.flag").exists()
        await send(pilot, "hello")
        await run_done(pilot)
        message = app.test_provider.requests[-1].messages[-1]  # type: ignore[attr-defined]
        assert not any("bash-input" in b.text for b in message.content if isinstance(b, TextBlock))


def test_a_resumed_message_shows_the_command_not_its_output() -> None:
    from skawld_core.messages import ImageBlock, Message
    from skawld_tui.transcript_model import user_prompt_text

    image = ImageBlock.model_validate({"source": {"type": "base64", "media_type": "image/png", "data": "AA=="}})
    message = Message(
        role="user",
        content=[
            TextBlock(text="<bash-input>ls</bash-input>"),
            TextBlock(text="<bash-stdout>a\nb</bash-stdout><bash-stderr></bash-stderr>"),
            TextBlock(text="which one?\n[image: x.png 2×2]"),
            image,
        ],
    )
    assert user_prompt_text(message) == "! ls\nwhich one?\n[image: x.png 2×2]"


async def test_esc_ends_a_running_bang_command_and_its_processes(tmp_path: Path) -> None:
    app = make_app([], tools=[BashTool()], cwd=tmp_path, mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "!echo $$ > pid; touch started; sleep 30; touch finished")
        await until(lambda: (tmp_path / "started").exists(), pilot)
        await pilot.press("escape")
        await until(lambda: any("interrupted" in str(n.render()) for n in app.query(NoteLine)), pilot)
        pid = int((tmp_path / "pid").read_text())
        await until(lambda: not Path(f"/proc/{pid}").exists() or "Z" in _state(pid), pilot)
        assert not (tmp_path / "finished").exists()
        assert app.composer.pending_context == []


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return "Z"
