"""Where writes may land without asking: the project, added directories, never protected paths.

`acceptEdits` auto-approves a write only when every real interpretation of its
target lies inside the project root or an added directory. Protected paths
(files that configure git, skawld, Claude Code, MCP or a shell, and `~/.ssh`)
ask in every mode but yolo, even when an allow rule covers them, unless an
allow rule names that exact path. Both checks run on resolved real paths, so a
symlink inside the project that points out of it is outside.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["PROTECTED_HOME_FILES", "inside_scope", "protected_paths", "protected_reason"]

# Path components that make everything at or below them protected, wherever they are.
_PROTECTED_DIRS = {
    ".git": "git internals (.git/)",
    ".skawld": "skawld configuration (.skawld/)",
    ".claude": "Claude Code configuration (.claude/)",
}
_PROTECTED_NAMES = {".mcp.json": "MCP server configuration (.mcp.json)"}

# Home-relative files that run code or grant access when a shell, git or ssh starts.
PROTECTED_HOME_FILES: tuple[str, ...] = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".zlogout",
    ".kshrc",
    ".cshrc",
    ".tcshrc",
    ".inputrc",
    ".gitconfig",
    ".config/git/config",
    ".config/fish/config.fish",
)
_PROTECTED_HOME_DIRS: tuple[str, ...] = (".ssh", ".config/fish/conf.d", ".config/fish/functions")
_PROTECTED_SYSTEM = ("/etc/profile", "/etc/bash.bashrc", "/etc/zsh", "/etc/profile.d")


def _within(path: str, root: str) -> bool:
    root = root.rstrip("/") or "/"
    return path == root or path.startswith(root + "/") or root == "/"


def inside_scope(real_paths: Iterable[str], roots: Sequence[Path]) -> bool:
    """True when every path lies at or below one of `roots` (compared as real paths)."""
    real_roots = [os.path.realpath(r) for r in roots]
    paths = list(real_paths)
    return bool(paths) and all(any(_within(p, r) for r in real_roots) for p in paths)


def _homes() -> list[str]:
    home = os.path.expanduser("~")
    if home == "~":
        return []
    return list(dict.fromkeys([os.path.normpath(home), os.path.realpath(home)]))


def protected_reason(paths: Iterable[str]) -> str | None:
    """Why one of `paths` (absolute, normalized) is protected, or None when none is."""
    homes = _homes()
    for path in paths:
        parts = path.split("/")
        for part in parts:
            if part in _PROTECTED_DIRS:
                return _PROTECTED_DIRS[part]
        if parts[-1] in _PROTECTED_NAMES:
            return _PROTECTED_NAMES[parts[-1]]
        for home in homes:
            for rel in PROTECTED_HOME_FILES:
                if path == os.path.join(home, rel):
                    return f"a shell, git or login startup file (~/{rel})"
            for rel in _PROTECTED_HOME_DIRS:
                if _within(path, os.path.join(home, rel)):
                    return f"~/{rel}/"
        for system in _PROTECTED_SYSTEM:
            if _within(path, system):
                return f"a system shell startup file ({system})"
    return None


def protected_paths(roots: Sequence[Path]) -> list[Path]:
    """Existing protected paths directly in `roots` and in the home directory.

    For a sandbox that makes writable directories available: these should stay
    read-only inside it (nested `.git` directories deeper in a tree are not listed).
    """
    found: list[Path] = []
    for root in roots:
        for name in (*_PROTECTED_DIRS, *_PROTECTED_NAMES):
            found.append(Path(root) / name)
    for home in _homes():
        found.extend(Path(home) / rel for rel in (*PROTECTED_HOME_FILES, *_PROTECTED_HOME_DIRS))
    return [p for p in dict.fromkeys(found) if os.path.lexists(p)]
