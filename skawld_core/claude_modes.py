"""Claude Code's permission-mode names beside skawld's: the same modes, but Claude Code
calls ``yolo`` ``bypassPermissions``."""

from __future__ import annotations

__all__ = ["CLAUDE_MODES", "claude_mode_name"]

CLAUDE_MODES = {"default": "default", "acceptEdits": "acceptEdits", "plan": "plan", "bypassPermissions": "yolo"}
"""Claude Code's mode name → skawld's."""
_MODE_NAMES = {skawld: claude for claude, skawld in CLAUDE_MODES.items()}


def claude_mode_name(mode: str | None) -> str:
    """skawld's permission mode in Claude Code's words (``yolo`` → ``bypassPermissions``; None: ``default``)."""
    return _MODE_NAMES.get(mode or "default", mode or "default")
