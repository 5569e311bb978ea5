"""Image attachments: chips above the prompt, the clipboard, what is sent and resumed."""

from __future__ import annotations

import asyncio
import struct
import zlib
from pathlib import Path

import pytest

from skawld_core.messages import ImageBlock, TextBlock
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import reply, tool_call
from skawld_core.tools import ToolContext, ToolResult
from skawld_tui.app.widgets.blocks import NoteLine, UserMessage
from skawld_tui.app.widgets.prompt import AttachmentBar, AttachmentChip
from skawld_tui.images import CLIPBOARD_HINT, ImageError, dimensions, from_bytes, sniff
from tests.support.mock_tools import MockExec, PathInput

from .helpers import SIZE, make_app, ready, run_done, until


def png_bytes(width: int, height: int) -> bytes:
    """A real (valid, red) PNG of the given size."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def gif_bytes(width: int, height: int) -> bytes:
    return b"GIF89a" + struct.pack("<HH", width, height) + b"\x00\x00\x00;"


def jpeg_bytes(width: int, height: int) -> bytes:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def webp_bytes(width: int, height: int) -> bytes:
    body = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00"
    body += (width - 1).to_bytes(3, "little") + (height - 1).to_bytes(3, "little")
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


def test_magic_bytes_and_sizes_of_the_four_formats() -> None:
    cases = [(png_bytes(3, 2), "image/png"), (gif_bytes(30, 20), "image/gif")]
    cases += [(jpeg_bytes(640, 480), "image/jpeg"), (webp_bytes(120, 80), "image/webp")]
    assert [sniff(data) for data, _ in cases] == [media for _, media in cases]
    assert [dimensions(data, media) for data, media in cases] == [(3, 2), (30, 20), (640, 480), (120, 80)]
    assert sniff(b"%PDF-1.7") is None
    with pytest.raises(ImageError, match="not a PNG, JPEG, GIF or WebP"):
        from_bytes(b"just text", "notes.png")
    assert from_bytes(webp_bytes(120, 80), "x.webp").label == "[image: x.webp 120×80]"


async def test_a_pasted_image_path_becomes_a_chip_and_is_sent(tmp_path: Path) -> None:
    (tmp_path / "bug.png").write_bytes(png_bytes(12, 8))
    (tmp_path / "fake.png").write_text("not an image")
    store = InMemorySessionStore()
    app = make_app([reply("I see a red box.")], cwd=tmp_path, store=store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.prompt.post_message(_paste(str(tmp_path / "bug.png")))
        await until(lambda: len(app.query(AttachmentChip)) == 1, pilot)
        assert app.prompt.text == ""  # the path became the chip, not text
        assert "[image: bug.png 12×8]" in str(app.query_one(AttachmentChip).render())
        app.prompt.post_message(_paste("'fake.png'"))  # an image name, but not image bytes
        await until(lambda: bool(app._notifications), pilot)
        assert len(app.query(AttachmentChip)) == 1
        await pilot.press(*"what is this")
        await pilot.press("enter")
        await run_done(pilot)
        sent = app.test_provider.requests[-1].messages[-1].content  # type: ignore[attr-defined]
        images = [b for b in sent if isinstance(b, ImageBlock)]
        assert len(images) == 1 and images[0].source.media_type == "image/png"  # type: ignore[union-attr]
        assert [b.text for b in sent if isinstance(b, TextBlock)][-1] == "what is this\n[image: bug.png 12×8]"
        assert not app.query_one(AttachmentBar).has_class("-active") and not app.query(AttachmentChip)
    resumed = make_app([], cwd=tmp_path, store=store)
    async with resumed.run_test(size=SIZE) as pilot:
        await ready(pilot)
        shown = [m.text for m in resumed.query(UserMessage)]
        assert shown and "what is this\n[image: bug.png 12×8]" in shown[0]


async def test_chips_are_removed_by_backspace_on_an_empty_prompt_or_a_click(tmp_path: Path) -> None:
    for name in ("a.png", "b.gif"):
        (tmp_path / name).write_bytes(png_bytes(2, 2) if name.endswith("png") else gif_bytes(4, 4))
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.prompt.post_message(_paste(f"{tmp_path / 'a.png'}\n{tmp_path / 'b.gif'}"))
        await until(lambda: len(app.query(AttachmentChip)) == 2, pilot)
        await pilot.press("x", "backspace")  # deletes the typed character only
        assert len(app.query(AttachmentChip)) == 2
        await pilot.press("backspace")  # empty prompt: drops the last chip
        await until(lambda: len(app.query(AttachmentChip)) == 1, pilot)
        assert "a.png" in str(app.query_one(AttachmentChip).render())
        await pilot.click(AttachmentChip)
        await until(lambda: not app.query(AttachmentChip), pilot)
        assert app.composer.images == []


def _fake_bin(tmp_path: Path, script: str | None) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if script is not None:
        tool = bin_dir / "wl-paste"
        tool.write_text(script)
        tool.chmod(0o755)
    return str(bin_dir)


async def test_ctrl_v_reads_an_image_from_wl_paste(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "clip.png").write_bytes(png_bytes(9, 9))
    monkeypatch.setenv("PATH", _fake_bin(tmp_path, f'#!/bin/sh\nexec /bin/cat "{tmp_path / "clip.png"}"\n'))
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+v")
        await until(lambda: len(app.query(AttachmentChip)) == 1, pilot)
        assert "[image: clipboard-1.png 9×9]" in str(app.query_one(AttachmentChip).render())


async def test_ctrl_v_without_a_clipboard_reader_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _fake_bin(tmp_path, None))
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+v")
        await until(lambda: bool(app._notifications), pilot)
        assert [n.message for n in app._notifications] == [CLIPBOARD_HINT]
        assert not app.query(AttachmentChip)


def test_snapshot_of_an_image_chip(snap_compare: object, tmp_path: Path) -> None:
    (tmp_path / "screen.png").write_bytes(png_bytes(120, 80))

    async def attach(pilot: object) -> None:
        await ready(pilot)  # type: ignore[arg-type]
        app = pilot.app  # type: ignore[attr-defined]
        app.prompt.post_message(_paste(str(tmp_path / "screen.png")))
        await until(lambda: len(app.query(AttachmentChip)) == 1, pilot)  # type: ignore[arg-type]
        await pilot.press(*"what is wrong here")  # type: ignore[attr-defined]

    assert snap_compare(make_app([], cwd=tmp_path), run_before=attach, terminal_size=SIZE)  # type: ignore[operator]


def _paste(text: str) -> object:
    from textual import events

    return events.Paste(text)


@pytest.mark.timeout(60)
async def test_a_chip_reaches_the_openai_responses_wire_as_input_image(tmp_path: Path) -> None:
    import base64
    import sys

    root = str(Path(__file__).resolve().parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)
    from skawld_core.providers import OpenAIResponsesProvider
    from tests.support.wire_server import WireServer, text, turn

    data = png_bytes(6, 4)
    (tmp_path / "ui.png").write_bytes(data)
    with WireServer() as srv:
        srv.responses.enqueue(turn(text("a small image")))
        provider = OpenAIResponsesProvider(api_key="sk-test", base_url=srv.openai_url)
        app = make_app(provider=provider, cwd=tmp_path, model="gpt-5")
        async with app.run_test(size=SIZE) as pilot:
            await ready(pilot)
            app.prompt.post_message(_paste(str(tmp_path / "ui.png")))
            await until(lambda: len(app.query(AttachmentChip)) == 1, pilot)
            await pilot.press("enter")  # an empty prompt with an image is sent
            await run_done(pilot)
        user = [m for m in srv.responses.requests[-1].body["input"] if m.get("role") == "user"][-1]["content"]
        images = [p for p in user if p["type"] == "input_image"]
        assert [p["image_url"] for p in images] == [f"data:image/png;base64,{base64.b64encode(data).decode()}"]
        assert any(p.get("text") == "[image: ui.png 6×4]" for p in user)  # the label stands for the empty prompt


async def test_a_typed_image_path_is_attached_on_send(tmp_path: Path) -> None:
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "err.gif").write_bytes(gif_bytes(30, 20))
    app = make_app([reply("seen")], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.prompt.set_text("why this error?\nsee shots/err.gif please")
        await pilot.press("enter")
        await run_done(pilot)
        sent = app.test_provider.requests[-1].messages[-1].content  # type: ignore[attr-defined]
        assert [b.source.media_type for b in sent if isinstance(b, ImageBlock)] == ["image/gif"]  # type: ignore[union-attr]
        assert [b.text for b in sent if isinstance(b, TextBlock)][
            -1
        ] == "why this error?\nsee [image: err.gif 30×20] please"


class SlowToStop(MockExec):
    """MockExec that, once cancelled, takes until `stopped` is set to end."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()  # never set: only Esc ends the call
        self.stopped = asyncio.Event()

    async def execute(self, value: PathInput, ctx: ToolContext) -> ToolResult:
        try:
            return await super().execute(value, ctx)
        except asyncio.CancelledError:
            await self.stopped.wait()
            raise


async def test_a_prompt_queued_while_the_run_stops_keeps_its_image(tmp_path: Path) -> None:
    """Sent while Esc is still ending the run, the prompt waits for the next run; its
    image chip goes with it."""
    (tmp_path / "bug.png").write_bytes(png_bytes(6, 4))
    tool = SlowToStop()
    turns = [reply(tool_call("MockExec", {"path": "x"})), reply("a red box")]
    app = make_app(turns, cwd=tmp_path, tools=[tool], mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(*"go")
        await pilot.press("enter")
        await until(lambda: tool.started.is_set(), pilot)
        await pilot.press("escape")
        await until(lambda: tool.cancelled, pilot)
        app.prompt.post_message(_paste(str(tmp_path / "bug.png")))
        await until(lambda: len(app.query(AttachmentChip)) == 1, pilot)
        await pilot.press(*"and this")
        await pilot.press("enter")
        await until(lambda: any("queued: and this" in str(n.render()) for n in app.query(NoteLine)), pilot)
        tool.stopped.set()
        await run_done(pilot, runs=2)
        sent = app.test_provider.requests[-1].messages[-1].content  # type: ignore[attr-defined]
        assert [b.source.media_type for b in sent if isinstance(b, ImageBlock)] == ["image/png"]  # type: ignore[union-attr]
        assert "and this" in [b.text for b in sent if isinstance(b, TextBlock)][-1]
