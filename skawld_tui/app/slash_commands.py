"""Permission-mode cycling, and the old names of the slash-command helpers.

The commands themselves live in `skawld_tui.commands` (one registry for the app,
the plain mode and headless prompts).
"""

from __future__ import annotations

from ..commands.builtin import MODES
from ..commands.registry import complete, help_markdown, parse

__all__ = ["CYCLE", "MODES", "complete", "help_markdown", "next_mode", "parse"]

# Shift+Tab cycles these (Claude Code's order); yolo is reached only by /mode yolo or a flag.
CYCLE = ("default", "acceptEdits", "plan")


def next_mode(mode: str) -> str:
    """The permission mode after `mode` in the Shift+Tab cycle (never yolo; from yolo: default)."""
    i = CYCLE.index(mode) if mode in CYCLE else -1
    return CYCLE[(i + 1) % len(CYCLE)]
