"""Where a project's instruction file is: ``AGENTS.md`` (else ``CLAUDE.md``) at the repository root."""

from __future__ import annotations

from pathlib import Path

__all__ = ["INSTRUCTION_FILES", "find_repo_root", "project_instruction_file"]

INSTRUCTION_FILES = ("AGENTS.md", "CLAUDE.md")


def find_repo_root(start: Path) -> Path:
    """The nearest ancestor holding `.git` (file or directory), else `start`."""
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return start


def project_instruction_file(cwd: Path) -> Path | None:
    """``AGENTS.md`` at the repository root, falling back to ``CLAUDE.md``."""
    root = find_repo_root(cwd)
    for name in INSTRUCTION_FILES:
        if (root / name).is_file():
            return root / name
    return None
