"""Git's history may hold what Read deny rules hide: a `.env` committed before the rule.

Hiding part of a pack is impossible, so the choice is the object store whole
(`sandbox.gitHistory`): `"visible"`, `"hidden"` (sealed in every call: an empty
read-only folder over each git dir's `objects/`, so git inside refuses cleanly),
or `"auto"` (the default): sealed when a path the sandbox hides is tracked, in
the index or in `HEAD`'s tree, by a repository of the writable roots. A file
that only older commits hold is not detected by `"auto"`.

The question is answered by git on the host (`ls-files`, `ls-tree` with
literal pathspecs for the hidden paths), and the answer is kept until the
index, `HEAD` or the hidden set change.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from .gitdirs import git_dir_of, work_tree_of

__all__ = ["object_dirs", "tracked_hidden"]

_cache: dict[tuple[object, ...], str | None] = {}
_MAX_CACHE = 64


def _stamp(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _git_lines(git: str, work_tree: Path, args: list[str], paths: list[str]) -> list[str] | None:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_LITERAL_PATHSPECS": "1"}
    try:
        done = subprocess.run(
            [git, "-c", "core.fsmonitor=false", "-C", str(work_tree), *args, "--", *paths],
            env=env,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [p.decode("utf-8", "surrogateescape") for p in done.stdout.split(b"\0") if p]


def _tracked(git: str, work_tree: Path, rel: list[str]) -> str | None:
    for args in (["ls-files", "-z", "--cached"], ["ls-tree", "-r", "-z", "--name-only", "HEAD"]):
        lines = _git_lines(git, work_tree, args, rel)
        if lines:
            return str(work_tree / lines[0])
    return None


def tracked_hidden(roots: Sequence[Path], hidden: Sequence[str]) -> str | None:
    """A hidden path (file, or one inside a hidden folder) that a repository of `roots`
    tracks (index or `HEAD`), or None. Ask git only when something changed."""
    git = shutil.which("git")
    if git is None or not hidden:
        return None
    for work_tree in dict.fromkeys(w for w in (work_tree_of(r) for r in roots) if w is not None):
        prefix = str(work_tree).rstrip("/") + "/"
        rel = sorted(p[len(prefix) :] for p in hidden if p.startswith(prefix))
        if not rel:
            continue
        git_dir = str(git_dir_of(work_tree / ".git"))
        state = tuple(_stamp(os.path.join(git_dir, n)) for n in ("index", "HEAD", "logs/HEAD", "packed-refs"))
        key = (str(work_tree), state, tuple(rel))
        if key not in _cache:
            if len(_cache) >= _MAX_CACHE:
                _cache.clear()
            _cache[key] = _tracked(git, work_tree, rel)
        if _cache[key] is not None:
            return _cache[key]
    return None


def object_dirs(git_dirs: Sequence[str]) -> list[str]:
    """The object stores of `git_dirs` (each one's `objects/`, where it has one)."""
    return [d + "/objects" for d in git_dirs if os.path.isdir(d + "/objects") and not os.path.islink(d + "/objects")]
