"""A small real filesystem that can be filled: a tmpfs mounted for one test (root only).

CI runs as root, so there it always mounts; elsewhere a test using it skips when not root
(mounting needs it), and fails when ``CI=true``.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(size: str) -> Iterator[Path]:
    """Mount a tmpfs of `size` (e.g. ``"4m"``) on a new directory for the block. The directory
    is in the system's temporary folder and open to every user (PostgreSQL runs as its own user
    and must reach it; pytest's own temporary folders are private to root)."""
    if os.geteuid() != 0:
        if os.environ.get("CI") == "true":
            pytest.fail("the full-disk cases need root in CI (to mount a small tmpfs)")
        pytest.skip("a full disk is made with a small tmpfs, and mounting one needs root")
    path = Path(tempfile.mkdtemp(prefix="skawld-disk-"))
    path.chmod(0o755)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        path.rmdir()
        if os.environ.get("CI") == "true":
            pytest.fail(f"cannot mount a tmpfs in CI: {mounted.stderr.strip()}")
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True)
        shutil.rmtree(path, ignore_errors=True)


def fill(ballast: Path, *, leave: int = 0) -> int:
    """Write `ballast` until the filesystem has no more than `leave` bytes free; return its size."""
    stat = os.statvfs(ballast.parent)
    target = max(stat.f_bavail * stat.f_frsize - leave, 0)
    written = 0
    chunk = b"\0" * 65536
    with ballast.open("wb", buffering=0) as out:
        try:
            while written < target:
                written += out.write(chunk[: min(len(chunk), target - written)])
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
    return written


def free_bytes(path: Path) -> int:
    stat = os.statvfs(path)
    return stat.f_bavail * stat.f_frsize
