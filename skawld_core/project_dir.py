"""The project's ``.skawld/`` folder: machine-local files never reach git.

`ensure_local_dir` creates a ``.skawld`` directory and, the first time, a
``.gitignore`` in it that ignores the session database, local settings, logs
and history, while committed config (``config.json``, ``skills/``,
``agents/``, ``commands/``) stays visible. An existing ``.gitignore`` is never
touched.
"""

from __future__ import annotations

import os
from pathlib import Path

GITIGNORE_NAME = ".gitignore"

GITIGNORE_TEXT = """\
# Written by skawld: machine-local files stay out of git.
# Committed config (config.json, skills/, agents/, commands/) is not ignored.
sessions.db
sessions.db-*
settings.local.json
*.local.json
history
history.*
logs/
checkpoints/
*.lock
*.tmp
"""


def ensure_local_dir(directory: str | os.PathLike[str]) -> Path:
    """`mkdir -p` the directory; for a ``.skawld`` folder, also write its
    ``.gitignore`` unless one exists. Returns the directory."""
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    if path.name == ".skawld":
        write_gitignore(path)
    return path


def write_gitignore(directory: Path) -> bool:
    """Create ``<directory>/.gitignore`` (exclusive create, so a user's file or a
    concurrent writer's wins). Returns whether this call wrote it."""
    target = directory / GITIGNORE_NAME
    if target.exists() or target.is_symlink():
        return False
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    except OSError:
        return False  # a read-only folder: the store itself will report the real problem
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(GITIGNORE_TEXT)
    return True
