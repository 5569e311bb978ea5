"""Checks Write and Edit share before touching an existing file."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
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


def edit_target_problem(
    path: Path, rel: str, tracker: FileReadTracker, *, max_bytes: int, too_large: Callable[[int], str]
) -> str | None:
    """An error text when an existing file cannot be edited in place: missing, not a
    regular file, over `max_bytes` (then `too_large(size)`), changed since read, or read-only."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return "Error: File not found."
    except OSError as exc:
        return f"Error: cannot access {rel}: {exc.strerror or exc}."
    if not stat.S_ISREG(st.st_mode):
        return f"Error: {rel} is not a regular file."
    if st.st_size > max_bytes:
        return too_large(st.st_size)
    return stale_or_unwritable(path, rel, tracker)
