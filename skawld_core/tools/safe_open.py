"""Open a file once and learn which file it really is, so a check cannot be raced.

A permission check on a path and a later `open()` of the same path can see two
different files when a symlink is swapped in between. The file tools therefore
open first and then ask about the descriptor's real path: on Linux
`/proc/self/fd/N`, on macOS `F_GETPATH`; elsewhere the symlink-resolved path is
opened with `O_NOFOLLOW` (a swapped final component then fails to open).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

__all__ = ["OpenRefused", "Verify", "fd_real_path", "open_verified"]

Verify = Callable[[Path], str | None]
_F_GETPATH = 50  # macOS fcntl command
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class OpenRefused(PermissionError):
    """The file actually opened may not be used (its real path failed the permission check)."""


def fd_real_path(fd: int) -> str | None:
    """The real path of an open descriptor, or None when the platform cannot tell."""
    if sys.platform.startswith("linux"):
        try:
            return os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            return None
    if sys.platform == "darwin":
        import fcntl

        try:
            raw = fcntl.fcntl(fd, _F_GETPATH, bytes(1024))
        except OSError:
            return None
        return raw.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
    return None


def open_verified(path: str | os.PathLike[str], flags: int, verify: Verify, mode: int = 0o666) -> tuple[int, Path]:
    """Open `path`, then check the real path of what was opened with `verify`.

    Returns the descriptor and its real path. Raises `OpenRefused` (the
    descriptor closed) when `verify` objects, and `OSError` when opening fails.
    """
    fd = os.open(path, flags | _CLOEXEC, mode)
    try:
        real = fd_real_path(fd)
        if real is None:
            # No way to ask the descriptor: reopen the resolved path without following a final symlink.
            os.close(fd)
            fd = -1
            real = os.path.realpath(path)
            fd = os.open(real, flags | _CLOEXEC | _NOFOLLOW, mode)
        problem = verify(Path(real))
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise
    if problem is not None:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise OpenRefused(problem)
    return fd, Path(real)
