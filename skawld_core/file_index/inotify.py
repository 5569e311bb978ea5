"""Linux inotify through ctypes: which watched directories changed since the last look.

`DirWatcher.add` watches one directory (not recursively); `drain` reads the
pending events without blocking and returns the directories whose entries (or
whose files' contents) changed. A kernel queue overflow is reported, so the
caller can rescan everything instead of trusting a partial list. When inotify is
missing or its limits are reached, `add` returns False and the caller polls that
directory's mtime instead: the listing stays complete either way.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys
import threading
from dataclasses import dataclass, field

__all__ = ["DirWatcher", "Drained"]

_IN_MODIFY = 0x2
_IN_ATTRIB = 0x4
_IN_CLOSE_WRITE = 0x8
_IN_MOVED_FROM = 0x40
_IN_MOVED_TO = 0x80
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_IGNORED = 0x8000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_EXCL_UNLINK = 0x04000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = 0o2000000

# Entries appearing, going or renamed change the listing; content and attribute
# changes only invalidate cached modification times.
_STRUCTURE = _IN_CREATE | _IN_DELETE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_DELETE_SELF | _IN_MOVE_SELF
_CONTENT = _IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE
_MASK = _STRUCTURE | _CONTENT | _IN_ONLYDIR | _IN_DONT_FOLLOW | _IN_EXCL_UNLINK
_EVENT = struct.Struct("iIII")


@dataclass
class Drained:
    """What changed: directories whose entries changed, files whose content or
    attributes changed (absolute paths), and whether events were lost."""

    dirs: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    overflow: bool = False


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the C library this process already uses
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return libc


class DirWatcher:
    """One inotify instance watching a set of directories by path."""

    def __init__(self) -> None:
        self._libc = _libc()
        self._fd = -1
        if self._libc is not None:
            self._fd = self._libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        self.limit_reason: str | None = None if self._fd >= 0 else "inotify is not available"
        self._path_of: dict[int, str] = {}
        self._wd_of: dict[str, int] = {}
        self._lock = threading.Lock()  # `add` may run in a thread beside `drain`

    @property
    def active(self) -> bool:
        """True while events can be read."""
        return self._fd >= 0

    def fileno(self) -> int:
        """The inotify descriptor (readable when events are pending; -1 when inactive),
        for an event loop to wait on."""
        return self._fd

    def add(self, path: str) -> bool:
        """Watch `path` (before it is listed, so no change falls between the two);
        False when it cannot be watched (the caller polls it instead)."""
        if self._libc is None or self._fd < 0:
            return False
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(path), _MASK)
        if wd < 0:
            if ctypes.get_errno() == errno.ENOSPC:
                self.limit_reason = "the inotify watch limit (fs.inotify.max_user_watches) is reached"
            return False
        with self._lock:
            self._path_of[wd] = path
            self._wd_of[path] = wd
        return True

    def remove(self, path: str) -> None:
        """Stop watching `path` (if the kernel still watches that inode for it)."""
        with self._lock:
            wd = self._wd_of.pop(path, None)
            if wd is None or self._libc is None or self._path_of.get(wd) != path:
                return
            del self._path_of[wd]
        self._libc.inotify_rm_watch(self._fd, wd)

    def watches(self, path: str) -> bool:
        """True when `path` is watched."""
        wd = self._wd_of.get(path)
        return wd is not None and self._path_of.get(wd) == path

    def drain(self) -> Drained:
        """Read every pending event without blocking."""
        out = Drained()
        if self._fd < 0:
            return out
        while True:
            try:
                buf = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return out
            except OSError:
                out.overflow = True
                return out
            if not buf:
                return out
            with self._lock:
                self._parse(buf, out)

    def _parse(self, buf: bytes, out: Drained) -> None:
        offset = 0
        while offset + _EVENT.size <= len(buf):
            wd, mask, _cookie, size = _EVENT.unpack_from(buf, offset)
            raw = buf[offset + _EVENT.size : offset + _EVENT.size + size].rstrip(b"\0")
            offset += _EVENT.size + size
            if mask & _IN_Q_OVERFLOW:
                out.overflow = True
                continue
            path = self._path_of.get(wd)
            if path is None:
                continue
            if mask & _IN_IGNORED:  # the kernel dropped the watch (directory gone)
                del self._path_of[wd]
                if self._wd_of.get(path) == wd:
                    del self._wd_of[path]
                continue
            if mask & _STRUCTURE:
                if mask & (_IN_DELETE_SELF | _IN_MOVE_SELF):
                    out.dirs.add(os.path.dirname(path))
                out.dirs.add(path)
            elif raw:
                out.files.add(os.path.join(path, os.fsdecode(raw)))

    def close(self) -> None:
        """Release the inotify instance."""
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
            self._path_of.clear()
            self._wd_of.clear()
