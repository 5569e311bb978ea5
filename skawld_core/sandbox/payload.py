"""Data handed to a child process through a file descriptor instead of its argv.

The kernel caps one argument at 128 KiB and the whole argv near 2 MiB; a long
command (or bwrap's arguments when many files are hidden) goes through a
descriptor the child reads instead.
"""

from __future__ import annotations

import os
import tempfile

__all__ = ["data_fd"]


def data_fd(data: bytes) -> int:
    """A descriptor holding `data`, positioned at its start: a memfd, or an unlinked
    temporary file where there is none. The caller closes it."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("skawld", os.MFD_CLOEXEC)
    else:  # pragma: no cover - macOS
        fd, path = tempfile.mkstemp(prefix="skawld-")
        os.unlink(path)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd
