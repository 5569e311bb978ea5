"""Atomic file writes: temp file in the same directory, fsync, rename."""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from pathlib import Path

from .file_tracker import canonical_path


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write `data` to `path` atomically and return the real path written.

    Symlinks are resolved first, so the link is kept and its target replaced. The
    temp file is `.tmp-skawld-<uuid>-<name>` beside the target; the existing mode
    is kept; the temp file is removed if anything fails, so readers see either the
    old content or the new, never a partial file.
    """
    target = canonical_path(path)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = _default_mode()
    tmp = target.parent / f".tmp-skawld-{uuid.uuid4().hex}-{target.name}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return target
