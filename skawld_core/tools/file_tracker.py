"""Which files this session has read, by canonical (symlink-resolved) path."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def canonical_path(path: str | os.PathLike[str]) -> Path:
    """Resolve symlinks; for a path that does not exist, canonicalize the nearest
    existing ancestor and append the rest."""
    return Path(os.path.realpath(Path(path).expanduser()))


@dataclass(frozen=True)
class ReadStamp:
    mtime_ns: int
    size: int


class FileReadTracker:
    """Per-session record of files read, so Write/Edit can refuse blind or stale edits."""

    def __init__(self) -> None:
        self._stamps: dict[Path, ReadStamp | None] = {}

    def mark_read(self, path: str | os.PathLike[str]) -> None:
        """Record that `path` was read now (with its current mtime and size)."""
        real = canonical_path(path)
        try:
            st = real.stat()
            self._stamps[real] = ReadStamp(st.st_mtime_ns, st.st_size)
        except OSError:
            self._stamps[real] = None

    def has_read(self, path: str | os.PathLike[str]) -> bool:
        return canonical_path(path) in self._stamps

    def changed_since_read(self, path: str | os.PathLike[str]) -> bool:
        """True when the file's mtime or size differs from when it was read."""
        real = canonical_path(path)
        stamp = self._stamps.get(real)
        if stamp is None:
            return False
        try:
            st = real.stat()
        except OSError:
            return True
        return (st.st_mtime_ns, st.st_size) != (stamp.mtime_ns, stamp.size)

    def clear(self) -> None:
        self._stamps.clear()
