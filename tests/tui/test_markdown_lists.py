"""Ordered lists keep their period (`1. Fix`), in the plain mode and the app's transcript."""

from __future__ import annotations

from rich.console import Console

from skawld_tui.app.widgets.blocks import render_markdown
from skawld_tui.markdown_lists import PlainMarkdown

TEXT = "1. Read `app.py`\n2. Fix the **bug** in the loop, which takes a long line to describe\n"


def _lines(renderable: object) -> list[str]:
    console = Console(width=40, color_system=None, record=True)
    console.print(renderable)
    return [line.rstrip() for line in console.export_text().splitlines() if line.strip()]


def test_plain_numbers_keep_the_period_and_wrap_under_the_text() -> None:
    lines = _lines(PlainMarkdown(TEXT))
    assert lines[:2] == [" 1. Read app.py", " 2. Fix the bug in the loop, which takes"]
    assert lines[2].startswith("    a long line")


def test_the_transcript_markdown_numbers_too() -> None:
    assert _lines(render_markdown("3. third\n4. fourth\n"))[:2] == [" 3. third", " 4. fourth"]
