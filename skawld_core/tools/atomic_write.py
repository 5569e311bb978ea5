"""Atomic file writes: temp file in the same directory, fsync, rename."""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from pathlib import Path

from .file_tracker import canonical_path
from .safe_open import Verify, open_verified

_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _no_objection(_: Path) -> str | None:
    return None


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, verify: Verify | None = None) -> Path:
    """Write `data` to `path` atomically and return the real path written.

    Symlinks are resolved first, so the link is kept and its target replaced. The
    directory is opened once and every later step works relative to that
    descriptor; `verify` (if given) is asked about the real path of the file
    about to be replaced (`<real directory>/<name>`) and raises `OpenRefused` when
    it objects, so a directory swapped for a symlink after the permission check
    cannot redirect the write. The temp file is `.tmp-skawld-<uuid>-<name>`
    beside the target; the existing mode is kept; the temp file is removed if
    anything fails, so readers see either the old content or the new, never a
    partial file.
    """
    target = canonical_path(path)
    name = target.name
    check = verify or _no_objection
    dir_fd, real_dir = open_verified(target.parent, os.O_RDONLY | _DIRECTORY, lambda d: check(d / name))
    try:
        try:
            # Not following a symlink here: one swapped in is replaced, its target left alone.
            mode = stat.S_IMODE(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
        except FileNotFoundError:
            mode = _default_mode()
        tmp = f".tmp-skawld-{uuid.uuid4().hex}-{name}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600, dir_fd=dir_fd)
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
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
    finally:
        os.close(dir_fd)
    return real_dir / name
