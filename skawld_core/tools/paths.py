"""Path helpers shared by the file tools: resolution, display and device checks."""

from __future__ import annotations

import os
from pathlib import Path

DEVICE_PATHS = frozenset({"/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout", "/dev/stderr"})


def resolve_path(file_path: str, cwd: Path) -> Path:
    """Expand `~/`, then resolve against `cwd`; `..` is normalised lexically."""
    expanded = os.path.expanduser(file_path)
    return Path(os.path.normpath(os.path.join(os.path.abspath(cwd), expanded)))


def display_path(path: Path, cwd: Path) -> str:
    """`path` relative to `cwd` when it lies inside it, else the absolute path."""
    try:
        rel = path.relative_to(cwd)
    except ValueError:
        return str(path)
    return str(rel) if str(rel) != "." else str(path)


def _is_device(path: str) -> bool:
    return path in DEVICE_PATHS or path == "/proc" or path.startswith("/proc/") or path.startswith("/dev/fd/")


def is_device_path(path: Path) -> bool:
    """True for device-like paths (`/dev/zero`, `/proc/...`), also through symlinks."""
    return _is_device(str(path)) or _is_device(os.path.realpath(path))
