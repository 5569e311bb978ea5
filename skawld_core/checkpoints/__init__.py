"""Checkpoints: snapshots of the project's working tree (files changed by any
tool, Bash included) in a shadow git repository outside the user's ``.git``.

See `CheckpointEngine`. Files outside the project and effects outside the
filesystem (network, databases, processes) are not covered.
"""

from __future__ import annotations

from .engine import (
    DEFAULT_MAX_FILE_BYTES,
    CheckpointEngine,
    RestoreResult,
    Snapshot,
    default_checkpoint_root,
    project_key,
    project_root,
)
from .git import CheckpointError
from .overwrites import UserChange, agent_written_paths, describe_changes, user_changes

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "CheckpointEngine",
    "CheckpointError",
    "RestoreResult",
    "Snapshot",
    "UserChange",
    "agent_written_paths",
    "default_checkpoint_root",
    "describe_changes",
    "project_key",
    "project_root",
    "user_changes",
]
