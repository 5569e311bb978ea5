"""After a sandboxed call: the git dirs it created or changed hold data, never code.

`gitdirs` keeps the git dirs that exist at launch read-only where it matters,
but a command can make new ones that git on the host will enter: a submodule
it registers (a gitlink in the index plus `sub/.git`, or a new
`.git/modules/<name>`), a nested repository, a `.git` file pointing at a git
dir it wrote anywhere writable. And the rebase, cherry-pick and revert state
must stay writable for those commands to work inside.

So around each call a `GitGuard` takes a snapshot of every git dir reachable
from the writable roots (the roots' repositories as in `gitdirs`, plus every
`.git` entry the file index lists under them, followed), and afterwards looks
again. In a git dir whose files changed:

- a `config` or `config.worktree` with an entry outside the allowlist
  (`gitconfig_allow`) is moved aside to `<name>.skawld-quarantine` (when the
  config lies outside the writable places, the `.git` entry that points at it is
  moved aside instead);
- a `hooks/` folder holding anything but git's `*.sample` files is moved aside;
- `exec` lines of a rebase todo (`rebase-merge/git-rebase-todo`,
  `sequencer/todo`) that were not there at the snapshot are commented out;
- a merge strategy that is not one of git's own (`rebase-merge/strategy`,
  `rebase-apply/strategy`, `options.strategy` in `sequencer/opts`, each of which
  makes git run `git-merge-<name>` from `PATH`) is moved aside.

Each action comes back as a line for the call's result.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..file_index.deny import DenyPattern, DenyView
from ..file_index.registry import shared_tree
from .gitconfig_allow import config_entries, config_problems
from .gitdirs import git_dir_of, reachable_git_dirs, repository_git_dirs

__all__ = ["GitGuard", "GitSnapshot", "QUARANTINE_SUFFIX"]

QUARANTINE_SUFFIX = ".skawld-quarantine"
_CONFIGS = ("config", "config.worktree")
_TODOS = ("rebase-merge/git-rebase-todo", "sequencer/todo")
_STRATEGIES = ("rebase-merge/strategy", "rebase-apply/strategy")
_OPTS = "sequencer/opts"
_WATCHED = (*_CONFIGS, "commondir", "hooks", *_TODOS, *_STRATEGIES, _OPTS)
_BUILTIN_STRATEGIES = frozenset({"ort", "recursive", "resolve", "octopus", "ours", "subtree"})
_Stat = tuple[int, int, int, int, int] | None


def _stat(path: str) -> _Stat:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


def _entry_stat(path: str) -> _Stat:
    """A `.git` entry's identity: a folder's inode and mode only (its times move with every
    write inside it), a file's or symlink's full stat (its content is where it points)."""
    st = _stat(path)
    if st is not None and stat.S_ISDIR(st[4]):
        return (st[0], 0, 0, 0, st[4])
    return st


def _is_real_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def _hook_names(hooks: str) -> list[str]:
    try:
        return sorted(n for n in os.listdir(hooks) if not n.endswith(".sample"))
    except OSError:
        return []


def _fingerprint(git_dir: str) -> tuple[object, ...]:
    hooks = os.path.join(git_dir, "hooks")
    names = _hook_names(hooks)
    return (
        *(_stat(os.path.join(git_dir, name)) for name in _WATCHED),
        tuple((n, _stat(os.path.join(hooks, n))) for n in names),
    )


def _exec_lines(todo: str) -> frozenset[str]:
    try:
        with open(todo, encoding="utf-8", errors="surrogateescape") as fh:
            return frozenset(line.strip() for line in fh if _is_exec(line))
    except OSError:
        return frozenset()


def _is_exec(line: str) -> bool:
    """A todo line git runs as a shell command: `exec` or `x`, then a blank (git's parser)."""
    word = line.lstrip(" \t").split(None, 1)
    return bool(word) and word[0] in ("exec", "x") and len(line.lstrip(" \t")) > len(word[0])


@dataclass(frozen=True)
class GitSnapshot:
    """The git dirs reachable at one moment: each one's fingerprint, each `.git`
    entry's, and the `exec` lines of the todo files then."""

    dirs: dict[str, tuple[object, ...]] = field(default_factory=dict)
    entries: dict[str, tuple[_Stat, str | None]] = field(default_factory=dict)
    exec_lines: dict[str, frozenset[str]] = field(default_factory=dict)


class GitGuard:
    """Snapshots and checks of the git dirs reachable from `roots`; `places` are where
    a sandboxed command can write (the roots and the session's `/tmp` folder): only
    files there are moved aside or edited."""

    def __init__(self, roots: Sequence[Path], places: Sequence[Path]) -> None:
        self.roots = tuple(roots)
        self.places = tuple(str(p).rstrip("/") + "/" for p in dict.fromkeys([*roots, *places]))
        self._views: dict[str, DenyView] = {}

    def _dot_gits(self) -> list[str]:
        """Every `.git` entry under the roots, from the file index (kept current by it)."""
        found: list[str] = []
        for root in self.roots:
            key = str(root)
            view = self._views.get(key)
            if view is None or view.tree.closed:
                pattern = DenyPattern(key.rstrip("/") + "/**/.git", key)
                view = self._views[key] = DenyView(shared_tree(key), (pattern,), lambda _path: True)
            hidden = view.hidden()
            # folders the index cannot list come back too: git (the same user) cannot enter them either
            found += [p for p in (*hidden.files, *hidden.dirs) if os.path.basename(p) == ".git"]
        return found

    def reachable(self) -> tuple[list[str], dict[str, str | None]]:
        """Every git dir reachable from the roots now, and each `.git` entry under the
        roots with the git dir it leads to (None: none)."""
        entries: dict[str, str | None] = {}
        for dot_git in self._dot_gits():
            target = git_dir_of(Path(dot_git))
            entries[dot_git] = None if target is None else str(target)
        starts = [Path(t) for t in entries.values() if t is not None]
        dirs, _ = reachable_git_dirs([*repository_git_dirs(self.roots), *starts])
        return [str(d) for d in dirs], entries

    def snapshot(self) -> GitSnapshot:
        """The state now (taken at a call's launch)."""
        dirs, entries = self.reachable()
        snap = GitSnapshot()
        for git_dir in dirs:
            snap.dirs[git_dir] = _fingerprint(git_dir)
            for todo in _TODOS:
                path = os.path.join(git_dir, todo)
                if os.path.lexists(path):
                    snap.exec_lines[path] = _exec_lines(path)
        for dot_git, target in entries.items():
            snap.entries[dot_git] = (_entry_stat(dot_git), target)
        return snap

    def _writable(self, path: str) -> bool:
        real = os.path.realpath(path)
        return any(real.startswith(place) for place in self.places)

    def check(self, before: GitSnapshot) -> list[str]:
        """Look at what changed since `before` and neutralise what could run code on the
        host; one line per action."""
        try:
            dirs, entries = self.reachable()
        except (OSError, RuntimeError) as exc:
            roots = ", ".join(str(r) for r in self.roots)
            return [
                f"Bash: the sandbox could not list the git folders under {roots} after the command ({exc}): look at what it changed before running git there."
            ]
        notes: list[str] = []
        changed_entries = {e: t for e, t in entries.items() if before.entries.get(e) != (_entry_stat(e), t)}
        for git_dir in dirs:
            old, now = before.dirs.get(git_dir), _fingerprint(git_dir)
            # `.git` files and symlinks that now lead here (a `.git` folder is the git dir itself)
            pointing = [e for e, t in changed_entries.items() if t == git_dir and not _is_real_dir(e)]
            if old == now and not pointing:
                continue
            # only what changed is looked at: a config of yours in a git dir whose rebase state moved stays
            changed = {n for i, n in enumerate(_WATCHED) if old is None or old[i] != now[i]}
            if old is None or old[-1] != now[-1]:
                changed.add("hooks")
            in_place = set() if old is None else changed
            try:
                notes += self._check_configs(git_dir, pointing, changed, in_place)
                if "hooks" in changed:
                    notes += self._check_hooks(git_dir)
                notes += self._check_todos(git_dir, before)
                notes += self._check_strategies(git_dir, changed)
            except OSError as exc:
                notes.append(
                    f"Bash: the sandbox could not check {git_dir} after the command ({exc}): look at it before running git there."
                )
        return notes

    def close(self) -> None:
        """Stop following the file index."""
        for view in self._views.values():
            view.close()
        self._views.clear()

    def _quarantine(self, path: str, why: str) -> str:
        target = path + QUARANTINE_SUFFIX
        n = 1
        while os.path.lexists(target):
            n += 1
            target = f"{path}{QUARANTINE_SUFFIX}-{n}"
        try:
            os.rename(path, target)
        except OSError as exc:
            return f"Bash: the sandbox could not move {path} aside ({exc.strerror}): {why}. Check it before running git there."
        return f"Bash: the sandbox moved {path} to {target}: {why}."

    def _check_configs(self, git_dir: str, pointing: list[str], changed: set[str], in_place: set[str]) -> list[str]:
        """A bad config the command wrote in place is moved aside; one that a `.git` file or
        symlink the command wrote now leads to (yours, say) stays, and the pointer is moved."""
        notes: list[str] = []
        for name in _CONFIGS:
            path = os.path.join(git_dir, name)
            if not os.path.isfile(path) or (name not in changed and not pointing):
                continue
            problems = [*config_problems(path), *self._work_tree_problems(git_dir, path)]
            if not problems:
                continue
            why = (
                f"a sandboxed command wrote a git config with {', '.join(problems[:3])}"
                f"{' …' if len(problems) > 3 else ''}, or a .git file leading to one, and git outside the "
                "sandbox could run a program from it (only data keys are kept: see docs/sandbox.md)"
            )
            if self._writable(path) and (name in in_place or not pointing):
                notes.append(self._quarantine(path, why))
                continue
            moved = [self._quarantine(e, why) for e in pointing if self._writable(e)]
            notes += moved or [
                f"Bash: the sandbox found {path} reachable from a git folder that changed during the command, "
                f"with {', '.join(problems[:3])}: look at it before running git there."
            ]
        return notes

    def _work_tree_problems(self, git_dir: str, config: str) -> list[str]:
        """`core.worktree` values leading outside the roots: the checks after a call look
        for `.git` entries under the roots only, so a work tree elsewhere (the session's
        `/tmp`, say) could hold a planted `.git` that the host's git would enter."""
        entries = config_entries(config)
        if isinstance(entries, str):
            return []
        roots = [os.path.realpath(r).rstrip("/") + "/" for r in self.roots]
        return [
            f"core.worktree = {value} (outside the project)"
            for key, value in entries
            if key == "core.worktree"
            and not any((os.path.realpath(os.path.join(git_dir, value or "")) + "/").startswith(r) for r in roots)
        ]

    def _check_hooks(self, git_dir: str) -> list[str]:
        hooks = os.path.join(git_dir, "hooks")
        names = _hook_names(hooks)
        if not names or not self._writable(hooks):
            return []
        why = f"a sandboxed command put {', '.join(names[:3])} in a git hooks folder, which git outside the sandbox would run"
        return [self._quarantine(hooks, why)]

    def _check_todos(self, git_dir: str, before: GitSnapshot) -> list[str]:
        notes: list[str] = []
        for todo in _TODOS:
            path = os.path.join(git_dir, todo)
            if not os.path.isfile(path) or not self._writable(path):
                continue
            known = before.exec_lines.get(path, frozenset())
            with open(path, encoding="utf-8", errors="surrogateescape") as fh:
                lines = fh.readlines()
            new = [i for i, line in enumerate(lines) if _is_exec(line) and line.strip() not in known]
            if not new:
                continue
            for i in new:
                lines[i] = "# skawld: a sandboxed command wrote this line: " + lines[i].lstrip(" \t")
            tmp = path + ".skawld-tmp"
            with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.writelines(lines)
            os.replace(tmp, path)
            notes.append(
                f"Bash: the sandbox commented out {len(new)} exec line(s) in {path}: a sandboxed command wrote "
                "them, and `git rebase --continue` outside the sandbox would run them. Add them back yourself if you want them."
            )
        return notes

    def _check_strategies(self, git_dir: str, changed: set[str]) -> list[str]:
        notes: list[str] = []
        for name in _STRATEGIES:
            path = os.path.join(git_dir, name)
            if name not in changed or not os.path.isfile(path) or not self._writable(path):
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                strategy = fh.read().strip()
            if strategy not in _BUILTIN_STRATEGIES:
                notes.append(
                    self._quarantine(
                        path, f"merge strategy {strategy!r} is not git's own (git would run git-merge-{strategy})"
                    )
                )
        opts = os.path.join(git_dir, _OPTS)
        if _OPTS in changed and os.path.isfile(opts) and self._writable(opts):
            bad = [p for p in _opts_strategies(opts) if p not in _BUILTIN_STRATEGIES]
            if bad:
                notes.append(self._quarantine(opts, f"it names merge strategy {bad[0]!r}, which is not git's own"))
        return notes


def _opts_strategies(opts: str) -> list[str]:
    """The merge strategies `sequencer/opts` (git config syntax) names; one that git
    cannot read counts as unknown."""
    entries = config_entries(opts)
    if isinstance(entries, str):
        return [entries]
    return [(v or "").strip() for k, v in entries if k == "options.strategy"]
