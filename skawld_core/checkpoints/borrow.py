"""A new shadow repository borrows the project's git objects for its first snapshot.

A first snapshot stores every file. Writing each as a loose object costs about
ten times what hashing it costs (20,000 files: ~9 s against ~0.7 s here), and
most of those blobs already sit in the project's own `.git`. So a new shadow
lists the project's object directory in `objects/info/alternates` (read by git,
never written: git only tries to refresh an object's mtime there), `git add`
then writes only what the project has not committed, and the snapshot packs
everything it references into the shadow (`git repack -a -d`) and removes the
alternates file before it returns. A shadow is therefore self-contained after
each snapshot: a `git gc` in the project never breaks a checkpoint. If the
repack fails (a damaged object in the project), the file stays and the next
snapshot tries again; until then the shadow reads those blobs from the project.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

__all__ = ["alternates_file", "borrow_objects", "stop_borrowing"]


def alternates_file(git_dir: Path) -> Path:
    """Where git looks for the object directories a repository borrows from."""
    return git_dir / "objects" / "info" / "alternates"


def borrow_objects(git_dir: Path, project_git_dir: Path | None) -> bool:
    """Make the shadow `git_dir` borrow `project_git_dir`'s objects; False when it
    cannot (no repository, other object format, a path git cannot list)."""
    if project_git_dir is None:
        return False
    objects = project_git_dir / "objects"
    if not objects.is_dir() or "\n" in str(objects) or not objects.is_absolute():
        return False
    try:
        config = (project_git_dir / "config").read_text(encoding="utf-8", errors="replace").lower()
    except OSError:
        return False
    if "objectformat" in config.replace(" ", ""):  # sha256 objects mean nothing to a sha1 shadow
        return False
    target = alternates_file(git_dir)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"{objects}\n", encoding="utf-8")
    return True


def stop_borrowing(git_dir: Path) -> None:
    """Forget the borrowed objects (after a repack copied what the shadow uses)."""
    with contextlib.suppress(FileNotFoundError):
        alternates_file(git_dir).unlink()
