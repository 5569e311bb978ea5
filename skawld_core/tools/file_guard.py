"""Checks Write and Edit share before touching an existing file."""

from __future__ import annotations

import os
from pathlib import Path

from .file_tracker import FileReadTracker

STALE_MESSAGE = "Error: {rel} has been modified since it was last read. Read it again before changing it."


def stale_or_unwritable(path: Path, rel: str, tracker: FileReadTracker) -> str | None:
    """An error text when the existing file changed since it was read or may not be written."""
    if tracker.changed_since_read(path):
        return STALE_MESSAGE.format(rel=rel)
    if not os.access(path, os.W_OK):
        return f"Error: Permission denied: {rel} is not writable."
    return None
