"""Git's history may hold what Read deny rules hide: a `.env` committed before the rule.

Hiding part of a pack is impossible, so the choice is the object store whole
(`sandbox.gitHistory`): `"visible"`, `"hidden"` (sealed in every call: an empty
read-only folder over each git dir's `objects/`, so git inside refuses cleanly),
or `"auto"` (the default): sealed when a path the sandbox hides is tracked, in
the index or in the tree of `HEAD`, of any ref (branches, tags, remotes) or of
any stash entry (with its index and untracked-files commits), by any git dir
reachable from the writable roots (nested repositories, submodules, linked
worktrees). A file that only older commits, a dropped stash or a dangling blob
hold is not detected by `"auto"`. The caller keeps a "sealed" answer for the rest of the
session, so a command cannot untrack a file to unhide history.

The question is answered by git on the host (`ls-files` with literal
pathspecs, `cat-file --batch-check` on `<tip>:<path>`), and the answers are
kept per index state and per set of tips.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

__all__ = ["object_dirs", "tracked_hidden"]

_cache: dict[tuple[object, ...], str | None] = {}
_MAX_CACHE = 64


def _stamp(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _git(git: str, git_dir: str, args: list[str], stdin: bytes | None = None) -> bytes | None:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_LITERAL_PATHSPECS": "1"}
    try:
        done = subprocess.run(
            [git, "-c", "core.fsmonitor=false", f"--git-dir={git_dir}", "--work-tree=/", *args],
            cwd="/",
            env=env,
            input=stdin,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def _in_index(git: str, git_dir: str, rel: list[str]) -> str | None:
    key = ("index", git_dir, _stamp(os.path.join(git_dir, "index")), tuple(rel))
    if key not in _cache:
        out = _git(git, git_dir, ["ls-files", "-z", "--cached", "--", *rel]) or b""
        _cache[key] = next((p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p), None)
    return _cache[key]


def _at_tips(git: str, git_dir: str, rel: list[str]) -> str | None:
    """A path of `rel` that HEAD's or any ref's tree holds, or any stash entry's (its
    index commit `^2` and untracked-files commit `^3` too); one `cat-file --batch-check`
    for every tip and path, the answer kept per set of tips."""
    refs = (_git(git, git_dir, ["for-each-ref", "--format=%(objectname) %(refname)"]) or b"").decode("ascii", "replace")
    found_tips = {"HEAD", *(line.split(" ", 1)[0] for line in refs.splitlines())}
    if any(line.endswith(" refs/stash") for line in refs.splitlines()):
        entries = (_git(git, git_dir, ["log", "-g", "--format=%H", "refs/stash"]) or b"").decode("ascii", "replace")
        found_tips.update(f"{entry}{parent}" for entry in entries.split() for parent in ("", "^2", "^3"))
    tips = sorted(found_tips)
    key = ("tips", git_dir, tuple(tips), tuple(rel))
    if key not in _cache:
        queries = [f"{tip}:{path}" for tip in tips for path in rel]
        out = _git(
            git, git_dir, ["cat-file", "--batch-check"], "\n".join(queries).encode("utf-8", "surrogateescape") + b"\n"
        )
        lines = [] if out is None else out.decode("utf-8", "replace").splitlines()
        found = [q for q, line in zip(queries, lines, strict=False) if not line.endswith(" missing")]
        _cache[key] = found[0].split(":", 1)[1] if found else None
    return _cache[key]


def tracked_hidden(
    git_dirs: Sequence[str], work_trees: Sequence[Path], hidden: Sequence[str]
) -> tuple[str, str] | None:
    """A hidden path (file, or one inside a hidden folder; relative to its work tree) that
    one of `git_dirs` tracks, and that git dir, in its index or in the tree of `HEAD` or any ref, or None. The paths asked are the
    hidden ones relative to each of `work_trees` (the folders holding a `.git`), so a
    nested repository's, a submodule's and a linked worktree's count too."""
    git = shutil.which("git")
    if git is None or not hidden:
        return None
    rel: set[str] = set()
    for work_tree in work_trees:
        prefix = str(work_tree).rstrip("/") + "/"
        rel.update(p[len(prefix) :] for p in hidden if p.startswith(prefix))
    if not rel:
        return None
    if len(_cache) >= _MAX_CACHE:
        _cache.clear()
    paths = sorted(rel)
    for git_dir in git_dirs:
        found = _in_index(git, git_dir, paths) or _at_tips(git, git_dir, paths)
        if found is not None:
            return found, git_dir
    return None


def object_dirs(git_dirs: Sequence[str]) -> list[str]:
    """The object stores of `git_dirs` (each one's `objects/`, where it has one)."""
    return [d + "/objects" for d in git_dirs if os.path.isdir(d + "/objects") and not os.path.islink(d + "/objects")]
