"""Git is data, never code, from inside the sandbox.

Git on the host reads files in every git directory that can make it run a
program (`config` with `core.fsmonitor` or `core.hooksPath`, `hooks/`,
`commondir` pointing at another config, a worktree's `.git` file pointing at
another git dir). For the writable roots of a sandboxed call this module finds
every git directory (the repository a root belongs to, its common dir, its
linked worktrees and its submodules' dirs under `modules/`, recursively) and
plans the mounts that keep those files read-only while git's data stays
writable:

- each git dir is bound onto itself, so it is a mount point and cannot be
  renamed or replaced (`mv .git x` fails with EBUSY);
- `config`, `config.worktree`, `hooks/`, `info/`, `commondir` and a `.git`
  file are bound read-only over themselves; a missing `hooks/` or `info/` is
  created empty first (what `git init` makes), so it cannot be planted;
- what the config points at (`core.hooksPath`, `include.path`) is read-only too;
- the names that cannot be created harmlessly (`commondir`,
  `config.worktree`) are watched instead: `sweep_created` removes them after
  the call when the command made them.

Git's own files in the git dir (index, HEAD, ORIG_HEAD, packed-refs and their
`.lock` files) are written by renaming a lock file over them, which needs the
git dir itself writable; that is why it is not mounted read-only whole.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "GitMounts",
    "common_dir",
    "git_dir_of",
    "git_mounts",
    "reachable_git_dirs",
    "repository_git_dirs",
    "sweep_created",
    "work_tree_of",
]

_READ_ONLY = ("config", "config.worktree", "hooks", "info", "commondir")
_CREATED_EMPTY = ("hooks", "info")
_WATCHED = ("commondir", "config.worktree")


@dataclass(frozen=True)
class GitMounts:
    """`mount_points`: git dirs bound onto themselves (writable); `read_only`: bound
    read-only over themselves, after the mount points; `watched`: paths that did
    not exist at launch and must not exist after the call."""

    mount_points: tuple[str, ...] = ()
    read_only: tuple[str, ...] = ()
    watched: tuple[str, ...] = ()


def _read_gitdir_file(dot_git: Path) -> Path | None:
    """The git dir a `.git` file (`gitdir: <path>`) points at."""
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    line = text.strip().splitlines()[0] if text.strip() else ""
    if not line.startswith("gitdir:"):
        return None
    return Path(os.path.realpath(dot_git.parent / line[len("gitdir:") :].strip()))


def common_dir(git_dir: Path) -> Path | None:
    """The common dir a linked worktree's or submodule's git dir names (`commondir`), or None."""
    try:
        text = (git_dir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return Path(os.path.realpath(git_dir / text)) if text else None


def _is_git_dir(path: Path) -> bool:
    return (path / "HEAD").is_file() and ((path / "objects").is_dir() or (path / "commondir").is_file())


def _repository_of(root: Path) -> tuple[Path | None, Path | None]:
    """(the `.git` file, the git dir) of the repository `root` is in."""
    found = work_tree_of(root)
    if found is None:
        return None, None
    dot_git = found / ".git"
    if dot_git.is_dir():  # a symlink to a git dir counts (the link itself can be replaced)
        return None, Path(os.path.realpath(dot_git))
    return Path(os.path.realpath(dot_git)), _read_gitdir_file(dot_git)


def work_tree_of(root: Path) -> Path | None:
    """The work tree of the repository `root` is in: itself or an ancestor below the home
    directory (a dotfiles repository in `~` is not made writable for a project that merely
    lies inside it)."""
    home = Path(os.path.realpath(os.path.expanduser("~")))
    for directory in (root, *root.parents):
        if directory != root and (directory == home or directory in home.parents):
            break
        dot_git = directory / ".git"
        if dot_git.is_dir() or dot_git.is_file():
            return directory
    return None


def _submodule_dirs(git_dir: Path) -> Iterable[Path]:
    """Git dirs under `modules/` (a submodule's name may hold slashes)."""
    modules = git_dir / "modules"
    if not modules.is_dir():
        return
    for dirpath, dirnames, _ in os.walk(modules):
        here = Path(dirpath)
        if here != modules and _is_git_dir(here):
            dirnames.clear()  # its own modules/ is reached through it
            yield here


def _worktree_dirs(git_dir: Path) -> Iterable[Path]:
    worktrees = git_dir / "worktrees"
    if worktrees.is_dir():
        for entry in sorted(worktrees.iterdir()):
            if entry.is_dir() and not entry.is_symlink():
                yield entry


def _submodule_dot_git(module_dir: Path) -> Path | None:
    """The `.git` file of a submodule's work tree (from `core.worktree` in its config)."""
    try:
        lines = (module_dir / "config").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for line in lines:
        key, _, value = line.partition("=")
        if key.strip().lower() == "worktree" and value.strip():
            dot_git = Path(os.path.realpath(module_dir / value.strip())) / ".git"
            return dot_git if dot_git.is_file() else None
    return None


def _config_references(git_dir: Path) -> list[Path]:
    """Files git's config makes code or config: `core.hooksPath` and `include.path` /
    `includeIf.*.path` (a project may keep its hooks or an included config in the work tree,
    where a command could rewrite them), and a hooks path's parent when the path is named
    `_` (husky's layout, whose hooks run the scripts beside it). A simple reading of git's
    syntax: one key per line."""
    found: list[Path] = []
    for name in ("config", "config.worktree"):
        config = git_dir / name
        try:
            lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        section = ""
        for raw in lines:
            line = raw.strip()
            if line.startswith("["):
                section = line[1:].split("]", 1)[0].split(" ", 1)[0].split(".", 1)[0].strip().lower()
                continue
            key, sep, value = line.partition("=")
            key, value = key.strip().lower(), value.strip().strip('"')
            wanted = (section == "core" and key == "hookspath") or (section.startswith("include") and key == "path")
            if not (sep and value and wanted):
                continue
            target = Path(os.path.expanduser(value))
            if not target.is_absolute():
                base = git_dir.parent if key == "hookspath" else config.parent
                target = base / target
            target = Path(os.path.realpath(target))
            found.append(target)
            if key == "hookspath" and target.name == "_" and not git_dir.parent.is_relative_to(target.parent):
                # husky 9: the hooks in `.husky/_` run the user's scripts one folder up (`.husky/pre-commit`)
                found.append(target.parent)
    return found


def _all_git_dirs(roots: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """Every git dir reachable from `roots`, and the `.git` files found on the way."""
    files: list[Path] = []
    for root in roots:
        dot_git, _ = _repository_of(root)
        if dot_git is not None:
            files.append(dot_git)
    return reachable_git_dirs(repository_git_dirs(roots), files)


def repository_git_dirs(roots: Sequence[Path]) -> list[Path]:
    """The git dirs of the repositories `roots` are in."""
    return [git_dir for git_dir in (_repository_of(root)[1] for root in roots) if git_dir is not None]


def git_dir_of(dot_git: Path) -> Path | None:
    """The git dir a `.git` entry stands for: the folder itself (through a symlink too),
    or the target of a `.git` file."""
    try:
        if dot_git.is_dir():
            return Path(os.path.realpath(dot_git))
        return _read_gitdir_file(dot_git) if dot_git.is_file() else None
    except OSError:
        return None


def reachable_git_dirs(starts: Iterable[Path], files: list[Path] | None = None) -> tuple[list[Path], list[Path]]:
    """`starts` and every git dir they lead to (common dirs, submodules' dirs under
    `modules/`, linked worktrees' dirs), and the submodules' `.git` files found on the way
    (appended to `files`)."""
    pending = list(starts)
    files = [] if files is None else files
    seen: dict[Path, None] = {}
    while pending:
        git_dir = pending.pop()
        try:
            if git_dir in seen or not git_dir.is_dir():
                continue
            seen[git_dir] = None
            common = common_dir(git_dir)
            if common is not None:
                pending.append(common)
            for module in _submodule_dirs(git_dir):
                pending.append(module)
                dot_git = _submodule_dot_git(module)
                if dot_git is not None:
                    files.append(dot_git)
            pending.extend(_worktree_dirs(git_dir))
        except OSError:  # a folder we cannot read: git, run by the same user, cannot either
            continue
    return list(seen), files


def git_mounts(roots: Sequence[Path]) -> GitMounts:
    """The mounts that keep the git dirs of `roots` data (see the module doc)."""
    git_dirs, dot_git_files = _all_git_dirs(roots)
    read_only: list[str] = [str(f) for f in dot_git_files]
    watched: list[str] = []
    for git_dir in git_dirs:
        read_only += [str(p) for p in _config_references(git_dir) if p.exists()]
        for name in _CREATED_EMPTY:
            target = git_dir / name
            if not os.path.lexists(target):
                try:
                    target.mkdir()
                except OSError:
                    continue
        for name in _READ_ONLY:
            target = git_dir / name
            if target.is_symlink():
                # a link git follows: keep the link itself from being replaced by binding its target
                target = Path(os.path.realpath(target))
            if target.exists():
                read_only.append(str(target))
            elif name in _WATCHED:
                watched.append(str(git_dir / name))
    by_depth = sorted(git_dirs, key=lambda p: len(p.parts))
    return GitMounts(
        mount_points=tuple(str(p) for p in by_depth),
        read_only=tuple(dict.fromkeys(read_only)),
        watched=tuple(watched),
    )


def sweep_created(watched: Iterable[str]) -> list[str]:
    """Remove the watched paths a command created (they did not exist at its launch); returns them."""
    removed: list[str] = []
    for path in watched:
        if not os.path.lexists(path):
            continue
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        except OSError:
            continue
        removed.append(path)
    return removed
