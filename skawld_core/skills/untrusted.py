"""Skills and agents of an unaccepted project grant nothing (issue #11).

A project skill's `allowed_tools` and `model`, and a project agent's `model`,
apply only once the user trusted the project. Until then the skill or agent
still loads and runs, with the permissions the user already has.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

__all__ = ["from_untrusted", "strip_grants"]

T = TypeVar("T")


def from_untrusted(path: Path | None, untrusted_dirs: Sequence[Path]) -> bool:
    """True when `path` lies in one of `untrusted_dirs`."""
    if path is None or not untrusted_dirs:
        return False
    resolved = path.resolve()
    return any(resolved == d or d in resolved.parents for d in untrusted_dirs)


def strip_grants(item: T, path: Path | None, untrusted_dirs: Sequence[Path], **cleared: object) -> T:
    """`item` (a frozen dataclass) with the `cleared` fields reset when it comes from an untrusted dir."""
    if not from_untrusted(path, untrusted_dirs):
        return item
    return dataclasses.replace(item, **cleared)  # type: ignore[type-var]
