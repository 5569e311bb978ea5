"""The plain mode's composer: `!cmd`, `@file`, image paths, persisted history, `@` completion."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from skawld_core.messages import ImageBlock, TextBlock
from skawld_core.testing import ScriptedProvider, reply
from skawld_core.tools.bash import BashTool
from skawld_tui.plain.chat import make_prompt_session, run_plain
from skawld_tui.plain.composer import make_completer
from skawld_tui.prompt_history import PromptHistory

from .helpers import plain_agent_factory
from .test_composer_images import png_bytes

pytestmark = pytest.mark.timeout(30)


async def chat(lines: list[str], provider: ScriptedProvider, cwd: Path, tools: list[Any]) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=120, force_terminal=False, color_system=None)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text("".join(line + "\r" for line in lines))
        prompt = make_prompt_session(input=pipe, output=DummyOutput())
        await run_plain(plain_agent_factory(provider, cwd=cwd, tools=tools), console=console, prompt_session=prompt)
    return buf.getvalue()


def _texts(provider: ScriptedProvider) -> list[str]:
    return [b.text for b in provider.requests[-1].messages[-1].content if isinstance(b, TextBlock)]


async def test_plain_bang_command_then_mention_then_history(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("remember the milk\n")
    provider = ScriptedProvider([reply("ok")])
    out = await chat(["!echo plain-shell", "y", "read @notes.md please", "/exit"], provider, tmp_path, [BashTool()])
    assert "plain-shell" in out and "attached notes.md" in out
    texts = _texts(provider)
    assert "<bash-input>echo plain-shell</bash-input>" in texts
    assert any("Called the Read tool" in t and "remember the milk" in t for t in texts)
    assert texts[-1] == "read @notes.md please"
    assert PromptHistory.for_project(tmp_path).load() == ["!echo plain-shell", "read @notes.md please", "/exit"]


async def test_plain_typed_image_path_is_sent_as_an_image(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(png_bytes(7, 5))
    provider = ScriptedProvider([reply("a red square")])
    out = await chat(["what is in shot.png", "/exit"], provider, tmp_path, [])
    assert "attached image [image: shot.png 7×5]" in out
    content = provider.requests[-1].messages[-1].content
    assert [b.source.media_type for b in content if isinstance(b, ImageBlock)] == ["image/png"]  # type: ignore[union-attr]
    assert _texts(provider)[-1] == "what is in [image: shot.png 7×5]"


def test_plain_at_completion_is_fuzzy_and_slash_still_completes(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "module_loader.py").write_text("x")
    completer = make_completer(["/help", "/exit"], tmp_path)
    found = [c.text for c in completer.get_completions(Document("see @modlo"), CompleteEvent())]
    assert found == ["@pkg/module_loader.py"]
    assert [c.text for c in completer.get_completions(Document("/he"), CompleteEvent())] == ["/help"]
