"""Git's history may hold what Read deny rules hide: a `.env` committed before the rule.

Hiding part of a pack is impossible, so the choice is the object store whole
(`sandbox.gitHistory`): `"visible"`, `"hidden"` (sealed in every call: an empty
read-only folder over each git dir's `objects/`, so git inside refuses cleanly),
or `"auto"` (the default): sealed when a path the sandbox hides is tracked, in
the index or in the tree of `HEAD`, of any ref (branches, tags, remotes) or of
any stash entry (with its index and untracked-files commits), by any git dir
reachable from the writable roots (nested repositories, submodules, linked
worktrees), or when a commit reachable from those tips, the pseudo-refs
(`ORIG_HEAD`, `FETCH_HEAD` …) or the reflogs added, changed or removed the path
(an older content is in the objects; `--full-history`, so a merged side branch
counts; replace refs and a `shallow` boundary are looked past), or when a hidden
file's current content is an object there (a dropped stash, a dangling blob). An
older content that only unreachable objects hold, or only under another name (a
tag or note on the blob), is not detected by `"auto"`. The
caller keeps a "sealed" answer for the rest of the session, so a command cannot
untrack a file to unhide history.

The question is answered by git on the host (`ls-files` with literal
pathspecs, `cat-file --batch-check` on `<tip>:<path>` and on the hidden files'
blob ids from `hash-object`, a path-limited `git log` over the tips' history),
and the answers are kept per index state, per set of tips and per file stat,
and each git dir's whole answer until its index, HEAD, refs, reflogs or object
folders change (their mtimes). History found clean stays clean: a new commit
walks only the commits it adds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .gitdirs import common_dir

__all__ = ["HeldPath", "object_dirs", "tracked_hidden"]

_cache: dict[tuple[object, ...], str | None] = {}
_answers: dict[tuple[object, ...], HeldPath | None] = {}
_clean_tips: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}
_MAX_CACHE = 64
_blob_cache: dict[str, tuple[tuple[int, int, int] | None, str]] = {}
_MAX_BLOB_CACHE = 100_000
_MAX_BLOB = 1 << 20


def _stamp(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _dir_stamps(top: str) -> list[tuple[str, int]]:
    """Every folder under `top` with its mtime: a ref or loose object written (by renaming a
    lock file, or into a new fan-out folder) changes its folder's."""
    found: list[tuple[str, int]] = []
    pending = [top]
    while pending:
        folder = pending.pop()
        try:
            found.append((folder, os.stat(folder).st_mtime_ns))
            with os.scandir(folder) as entries:
                pending += [e.path for e in entries if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
    return found


def _state(git_dir: str) -> tuple[object, ...]:
    """What the answer for `git_dir` depends on: its index and HEAD, and the refs, reflogs
    and objects of it and its common dir. Unchanged: the last answer stands."""
    common = common_dir(Path(git_dir))
    bases = dict.fromkeys([git_dir, *([] if common is None else [str(common)])])
    stamps: list[object] = [_stamp(os.path.join(git_dir, n)) for n in ("index", "HEAD")]
    for base in bases:
        stamps.append(_stamp(os.path.join(base, "packed-refs")))
        for sub in ("refs", "logs", "objects"):
            stamps += _dir_stamps(os.path.join(base, sub))
    return tuple(stamps)


def _git(
    git: str, git_dir: str | None, args: list[str], stdin: bytes | None = None, env_extra: dict[str, str] | None = None
) -> bytes | None:
    """Git's output (None: it failed), run on `git_dir` (None: outside any repository).
    Replace refs are ignored: a graft must not hide commits the store still holds."""
    where = [] if git_dir is None else [f"--git-dir={git_dir}", "--work-tree=/"]
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_LITERAL_PATHSPECS": "1", "GIT_NO_REPLACE_OBJECTS": "1"}
    env.update(env_extra or {})
    try:
        done = subprocess.run(
            [git, "-c", "core.fsmonitor=false", *where, *args],
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


_PSEUDO_REFS = (
    "ORIG_HEAD",
    "FETCH_HEAD",
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "REBASE_HEAD",
    "BISECT_HEAD",
    "AUTO_MERGE",
)


def _object_id(word: str) -> bool:
    return len(word) in (40, 64) and not word.strip("0123456789abcdef") and bool(word.strip("0"))


def _logged_ids(git_dir: str) -> set[str]:
    """The commit ids the pseudo-refs (``ORIG_HEAD`` after a reset, ``FETCH_HEAD`` …) and
    the reflogs (an amended or reset commit) of `git_dir` and its common dir name."""
    common = common_dir(Path(git_dir))
    ids: set[str] = set()
    for base in dict.fromkeys([git_dir, *([] if common is None else [str(common)])]):
        files = [os.path.join(base, name) for name in _PSEUDO_REFS]
        for folder, _, names in os.walk(os.path.join(base, "logs")):
            files += [os.path.join(folder, name) for name in names]
        for path in files:
            try:
                with open(path, encoding="ascii", errors="replace") as handle:
                    ids.update(w for line in handle for w in line.split()[:2] if _object_id(w))
            except OSError:
                continue
    return ids


def _tips(git: str, git_dir: str) -> list[str]:
    """HEAD and every ref, and every stash entry with its index commit `^2` and
    untracked-files commit `^3`."""
    refs = (_git(git, git_dir, ["for-each-ref", "--format=%(objectname) %(refname)"]) or b"").decode("ascii", "replace")
    found_tips = {"HEAD", *(line.split(" ", 1)[0] for line in refs.splitlines())}
    if any(line.endswith(" refs/stash") for line in refs.splitlines()):
        entries = (_git(git, git_dir, ["log", "-g", "--format=%H", "refs/stash"]) or b"").decode("ascii", "replace")
        found_tips.update(f"{entry}{parent}" for entry in entries.split() for parent in ("", "^2", "^3"))
    return sorted(found_tips)


def _in_history(git: str, git_dir: str, tips: list[str], rel: list[str]) -> str | None:
    """A path of `rel` that a commit reachable from `tips` added, changed or removed (so
    an older content of it is in the objects), or None. Tips whose history was found
    clean for these paths are not walked again: after a new commit, only the new
    commits are (`git log <new tips> --not <clean tips>`)."""
    key = (git_dir, tuple(rel))
    clean = _clean_tips.get(key, frozenset())
    out = _git(
        git, git_dir, ["cat-file", "--batch-check=%(objectname)"], "".join(f"{t}^{{commit}}\n" for t in tips).encode()
    )
    ids = [line for line in (out or b"").decode("ascii", "replace").splitlines() if not line.endswith(" missing")]
    new = sorted(set(ids) - clean)
    if not new:
        return None
    walk = [
        "log",
        "-1",
        "--format=",
        "--name-only",
        "--no-renames",
        "--full-history",
        *new,
        "--not",
        *clean,
        "--",
        *rel,
    ]
    # past a `shallow` file's boundary too, where the commits are there (else git fails: walk as git does)
    out = _git(git, git_dir, walk, env_extra={"GIT_SHALLOW_FILE": os.devnull}) or _git(git, git_dir, walk)
    if out is None:  # git failed: nothing is known (and nothing marked clean)
        return None
    found = next((p.decode("utf-8", "surrogateescape") for p in out.split(b"\n") if p), None)
    if found is None:
        if len(_clean_tips) >= _MAX_CACHE:
            _clean_tips.clear()
        _clean_tips[key] = clean | set(ids)
    return found


def _at_tips(git: str, git_dir: str, tips: list[str], rel: list[str]) -> str | None:
    """A path of `rel` that the tree of one of `tips` holds; one `cat-file --batch-check`
    for every tip and path, the answer kept per set of tips."""
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


def _blob_ids(git: str, files: Sequence[str]) -> dict[str, str]:
    """The blob id each hidden file's content has now (`hash-object`, no filters; kept
    per file stat), for the small non-empty files only: a secret is small, and an empty
    blob is in most repositories."""
    todo: list[str] = []
    ids: dict[str, str] = {}
    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if not 0 < st.st_size <= _MAX_BLOB or "\n" in path:
            continue
        known = _blob_cache.get(path)
        if known is not None and known[0] == _stamp(path):
            ids[known[1]] = path
        else:
            todo.append(path)
    if todo:
        if len(_blob_cache) >= _MAX_BLOB_CACHE:
            _blob_cache.clear()
        out = _git(
            git,
            None,
            ["hash-object", "--no-filters", "--stdin-paths"],
            "\n".join(todo).encode("utf-8", "surrogateescape") + b"\n",
        )
        for path, oid in zip(todo, (out or b"").decode("ascii", "replace").split(), strict=False):
            _blob_cache[path] = (_stamp(path), oid)
            ids[oid] = path
    return ids


def _holds_blob(git: str, git_dir: str, ids: dict[str, str]) -> str | None:
    """The hidden file whose current content is an object of `git_dir` (committed, stashed,
    or staged once and left dangling), or None."""
    oids = sorted(ids)
    out = _git(git, git_dir, ["cat-file", "--batch-check"], "".join(f"{o}\n" for o in oids).encode())
    lines = [] if out is None else out.decode("utf-8", "replace").splitlines()
    return next((ids[o] for o, line in zip(oids, lines, strict=False) if not line.endswith(" missing")), None)


@dataclass(frozen=True)
class HeldPath:
    """A hidden path that a git dir holds: `how` it holds it (``tracked``: in the index or a
    tip's tree; ``history``: a reachable commit added, changed or removed it; ``content``: a
    hidden file's current content is an object, and `path` is absolute)."""

    path: str
    git_dir: str
    how: Literal["tracked", "history", "content"]

    def describe(self) -> str:
        """Why history is hidden, in words."""
        held = {
            "tracked": f"{self.path} is tracked by git",
            "history": f"{self.path} is in git's history",
            "content": f"{self.path}'s content is in git's objects",
        }[self.how]
        return f"{held} (in {self.git_dir})"


def _held_by(git: str, git_dir: str, paths: list[str], ids: dict[str, str]) -> HeldPath | None:
    if paths:
        if found := _in_index(git, git_dir, paths):
            return HeldPath(found, git_dir, "tracked")
        tips = _tips(git, git_dir)
        if found := _at_tips(git, git_dir, tips, paths):
            return HeldPath(found, git_dir, "tracked")
        if found := _in_history(git, git_dir, [*tips, *sorted(_logged_ids(git_dir))], paths):
            return HeldPath(found, git_dir, "history")
    if ids and (found := _holds_blob(git, git_dir, ids)):
        return HeldPath(found, git_dir, "content")
    return None


def tracked_hidden(
    git_dirs: Sequence[str], work_trees: Sequence[Path], hidden_files: Sequence[str], hidden_dirs: Sequence[str]
) -> HeldPath | None:
    """The first hidden path (file, or one inside a hidden folder; relative to its work
    tree) that one of `git_dirs` holds: in its index or in the tree of `HEAD`, any ref or
    stash entry, in the history of those (the paths asked are the hidden ones relative to
    each of `work_trees`, the folders holding a `.git`, so a nested repository's, a
    submodule's and a linked worktree's count too), or as an object with a hidden file's
    current content. None: none found."""
    git = shutil.which("git")
    hidden = [*hidden_files, *hidden_dirs]
    if git is None or not hidden:
        return None
    rel: set[str] = set()
    for work_tree in work_trees:
        prefix = str(work_tree).rstrip("/") + "/"
        rel.update(p[len(prefix) :] for p in hidden if p.startswith(prefix))
    if len(_answers) >= _MAX_CACHE:
        _answers.clear()
    if len(_cache) >= _MAX_CACHE:
        _cache.clear()
    paths = sorted(rel)
    ids = _blob_ids(git, hidden_files)
    for git_dir in git_dirs:
        key = (git_dir, _state(git_dir), tuple(paths), tuple(sorted(ids)))
        if key not in _answers:
            _answers[key] = _held_by(git, git_dir, paths, ids)
        if (held := _answers[key]) is not None:
            return held
    return None


def object_dirs(git_dirs: Sequence[str]) -> list[str]:
    """The object stores of `git_dirs` (each one's `objects/`, where it has one)."""
    return [d + "/objects" for d in git_dirs if os.path.isdir(d + "/objects") and not os.path.islink(d + "/objects")]
