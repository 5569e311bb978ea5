"""`CheckpointEngine`: snapshots of a project's working tree in a shadow git
repository, and restoring them.

The shadow repository lives under ``~/.skawld/checkpoints/<project-key>/``
(outside the project) and has its own index. A snapshot lists what changed
since the last one (``git ls-files -m -o -d --exclude-standard``, which honours
``.gitignore``, the project's ``.git/info/exclude`` and the global excludes),
stages only those paths, writes a tree and a commit, and moves
``refs/skawld/latest``. Files over the size cap and nested repositories are
skipped and reported. A restore first snapshots the current state (so it can
be undone), then rewrites only the files that differ and deletes the ones
created since. Ignored and skipped files are never touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import stat
import time
import zlib
from collections.abc import AsyncIterator, Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .borrow import alternates_file, borrow_objects, stop_borrowing
from .git import CheckpointError, git_env, run_git

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_FILES_OUTSIDE_GIT = 50_000
LATEST_REF = "refs/skawld/latest"
_SHA = re.compile(r"^[0-9a-f]{40}$")
_ALWAYS_EXCLUDED = ("/.skawld/sessions.db", "/.skawld/sessions.db-*", "/.skawld/logs/", "/.skawld/*.lock")
_CONFIG = """\
[core]
\tbare = false
\tautocrlf = false
\tsafecrlf = false
\tsymlinks = true
\tuntrackedCache = true
\tfsmonitor = false
\tquotePath = false
[gc]
\tauto = 0
[commit]
\tgpgsign = false
[index]
\tthreads = true
"""


@dataclass(frozen=True)
class Snapshot:
    """One snapshot: its commit, how many paths changed since the previous one,
    and what was left out (paths relative to the project)."""

    commit: str
    changed: int
    skipped_large: list[str] = field(default_factory=list)
    skipped_nested: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RestoreResult:
    """What a restore did; `backup` is a snapshot of the state before it."""

    commit: str
    backup: str
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    """Paths that differed but were left as they were (`restore(keep=...)`)."""


def project_root(cwd: str | os.PathLike[str]) -> Path:
    """The top of the git work tree holding `cwd`, else `cwd` itself."""
    start = Path(cwd).resolve()
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return start


def project_key(root: Path) -> str:
    """A stable, readable directory name for a project path."""
    name = re.sub(r"[^A-Za-z0-9._-]", "-", root.name)[:40] or "root"
    return f"{name}-{hashlib.sha256(str(root).encode()).hexdigest()[:12]}"


def default_checkpoint_root(env: Mapping[str, str] | None = None) -> Path:
    """``~/.skawld/checkpoints`` (``HOME`` first, like the config loader)."""
    e = os.environ if env is None else env
    home = e.get("HOME") or e.get("USERPROFILE")
    return (Path(home) if home else Path.home()) / ".skawld" / "checkpoints"


class CheckpointEngine:
    """Snapshots and restores of one project's working tree.

    `project` is resolved to its git work tree's top (or kept when it is not in
    a repository). `root` holds one shadow repository per project (default
    ``~/.skawld/checkpoints``). Files larger than `max_file_bytes` are skipped.
    `exclude` returns absolute paths (files or folders) never stored: the
    paths Read deny rules cover (the Agent sets it from its permission rules).
    """

    def __init__(
        self,
        project: str | os.PathLike[str],
        *,
        root: str | os.PathLike[str] | None = None,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        env: Mapping[str, str] | None = None,
        max_files_outside_git: int = DEFAULT_MAX_FILES_OUTSIDE_GIT,
        exclude: Callable[[], Iterable[str]] | None = None,
    ) -> None:
        self.project = project_root(project)
        base = Path(root) if root is not None else default_checkpoint_root(env)
        self.git_dir = base / project_key(self.project)
        self.max_file_bytes = max_file_bytes
        self.max_files_outside_git = max_files_outside_git
        self._size_checked = False
        self._env = git_env(self.git_dir, self.project, env)
        self._lock = asyncio.Lock()
        self._ready = False
        self._exclude_text: str | None = None
        self._large: set[str] = set()
        self.exclude = exclude
        self._excluded: tuple[str, ...] = ()

    # -- public API ------------------------------------------------------------

    async def snapshot(self, message: str = "checkpoint") -> Snapshot:
        """Record the working tree now; returns the snapshot (its commit id)."""
        self._check_project()
        async with self._lock, self._process_lock():
            return await self._snapshot(message)

    async def restore(self, commit: str, *, keep: Collection[str] = ()) -> RestoreResult:
        """Make the working tree match snapshot `commit` (tracked-by-snapshot
        files only: ignored and skipped files are left alone). Paths in `keep`
        (relative to the project) are left as they are now."""
        self._check_project()
        async with self._lock, self._process_lock():
            target = await self._verify(commit)
            backup = await self._snapshot(f"before restoring {target[:12]}")
            return await self._apply(backup.commit, target, keep)

    async def changed_since(self, commit: str) -> list[str]:
        """Paths that differ between snapshot `commit` and the working tree now
        (takes a snapshot to compare)."""
        return [path for _, path in await self.changes_since(commit)]

    async def changes_since(self, commit: str) -> list[tuple[str, str]]:
        """(status, path) from the working tree now to snapshot `commit`, as a restore
        would apply them: ``M`` rewrites, ``D`` deletes (created since), ``A``
        recreates (deleted since). Takes a snapshot to compare."""
        self._check_project()
        async with self._lock, self._process_lock():
            target = await self._verify(commit)
            now = await self._snapshot("compare")
            return await self._diff(now.commit, target)

    async def file_at(self, commit: str, path: str) -> bytes | None:
        """The content of `path` (relative to the project) in snapshot `commit`;
        None when the snapshot has no such file."""
        self._check_project()
        async with self._lock:
            target = await self._verify(commit)
            code, out, _ = await self._git("cat-file", "blob", f"{target}:{path}", check=False)
        return out if code == 0 else None

    # -- internals -------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _process_lock(self) -> AsyncIterator[None]:
        """An exclusive `flock` on the shadow repository, so two skawld processes
        on one project take turns; holding it, a leftover ``index.lock`` (a git
        killed mid-snapshot) is known to be stale and is removed."""
        self.git_dir.mkdir(parents=True, exist_ok=True)
        try:
            import fcntl
        except ImportError:  # not POSIX: git's own index.lock still guards the index
            yield
            return
        fd = os.open(self.git_dir / "skawld.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            while True:  # polled, so a cancelled caller never leaves a thread waiting on the lock
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    await asyncio.sleep(0.02)
            with contextlib.suppress(FileNotFoundError):
                (self.git_dir / "index.lock").unlink()
            yield
        finally:
            os.close(fd)  # closing the descriptor releases the lock

    def _check_project(self) -> None:
        home = Path(self._env.get("HOME") or Path.home()).resolve()
        if self.project in (Path(self.project.anchor), home):
            raise CheckpointError(f"refusing to checkpoint {self.project} (the home or root directory)")
        if not self.project.is_dir():
            raise CheckpointError(f"project directory {self.project} does not exist")
        if not self._size_checked and not (self.project / ".git").exists():
            # Outside git nothing says what to leave out: refuse a huge tree rather
            # than hash it all before the first prompt.
            if _more_files_than(self.project, self.max_files_outside_git):
                raise CheckpointError(
                    f"refusing to checkpoint {self.project}: more than {self.max_files_outside_git:,} files "
                    "outside a git repository"
                )
            self._size_checked = True

    async def _git(self, *args: str, stdin: bytes | None = None, check: bool = True) -> tuple[int, bytes, bytes]:
        return await run_git(args, env=self._env, cwd=self.project, stdin=stdin, check=check)

    async def _init(self) -> None:
        if self._ready:
            return
        if not (self.git_dir / "HEAD").is_file():
            self.git_dir.mkdir(parents=True, exist_ok=True)
            env = {k: v for k, v in self._env.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
            await run_git(
                ["init", "-q", "--bare", "--object-format=sha1", str(self.git_dir)], env=env, cwd=self.git_dir
            )
            (self.git_dir / "config").write_text(
                "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n" + _CONFIG.removeprefix("[core]\n"),
                encoding="utf-8",
            )
            (self.git_dir / "skawld-project").write_text(f"{self.project}\n", encoding="utf-8")
            borrow_objects(self.git_dir, self._user_git_dir())
        large = self.git_dir / "skawld-large"
        if large.is_file():
            self._large = {p for p in large.read_text(encoding="utf-8").split("\0") if p}
        self._ready = True

    def _user_git_dir(self) -> Path | None:
        dot_git = self.project / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():
            try:
                line = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                git_dir = (self.project / line[7:].strip()).resolve()
                common = git_dir / "commondir"
                if common.is_file():
                    return (git_dir / common.read_text(encoding="utf-8").strip()).resolve()
                return git_dir
        return None

    def _sync_excludes(self) -> None:
        """The shadow's info/exclude: the project's own, skawld's files, and the
        files skipped for size (written only when it changed)."""
        user = ""
        user_dir = self._user_git_dir()
        if user_dir is not None:
            try:
                user = (user_dir / "info" / "exclude").read_text(encoding="utf-8", errors="replace")
            except OSError:
                user = ""
        still_large = set()
        for path in self._large:
            try:
                if (self.project / path).stat().st_size > self.max_file_bytes:
                    still_large.add(path)
            except OSError:
                continue
        if still_large != self._large:
            self._large = still_large
            (self.git_dir / "skawld-large").write_text("\0".join(sorted(still_large)), encoding="utf-8")
        lines = [user.rstrip("\n"), "# skawld", *_ALWAYS_EXCLUDED, *("/" + _escape(p) for p in sorted(still_large))]
        lines += ["# Read deny rules", *("/" + _escape(p) for p in self._excluded)]
        text = "\n".join(lines) + "\n"
        if text != self._exclude_text:
            info = self.git_dir / "info"
            info.mkdir(exist_ok=True)
            target = info / "exclude"
            try:
                current = target.read_text(encoding="utf-8")
            except OSError:
                current = None
            if current != text:
                target.write_text(text, encoding="utf-8")
            self._exclude_text = text

    def _latest(self) -> str | None:
        try:
            value = (self.git_dir / LATEST_REF).read_text(encoding="ascii").strip()
        except OSError:
            return None
        return value if _SHA.match(value) else None

    def _set_latest(self, commit: str) -> None:
        target = self.git_dir / LATEST_REF
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".latest.{os.getpid()}.tmp")
        tmp.write_text(commit + "\n", encoding="ascii")
        os.replace(tmp, target)

    def _denied_paths(self) -> tuple[str, ...]:
        """The `exclude` paths inside the project, relative to it and sorted."""
        if self.exclude is None:
            return ()
        found: set[str] = set()
        for path in self.exclude():
            try:
                rel = Path(path).relative_to(self.project)
            except ValueError:
                continue
            if rel.parts:
                found.add(rel.as_posix())
        return tuple(sorted(found))

    async def _untrack_denied(self) -> None:
        """Never store a path under a Read deny rule: exclude it from `git add` (so its
        content is never hashed into the store), and drop it from the shadow index when
        an earlier snapshot, taken before the rule, had it."""
        denied = self._denied_paths()
        if denied == self._excluded:
            return
        self._excluded = denied
        self._exclude_text = None
        if denied:
            data = "\0".join(denied).encode("utf-8", "surrogateescape") + b"\0"
            args = ("--literal-pathspecs", "rm", "-r", "-q", "--cached", "--ignore-unmatch")
            await self._git(*args, "--pathspec-from-file=-", "--pathspec-file-nul", stdin=data)

    async def _snapshot(self, message: str) -> Snapshot:
        await self._init()
        await self._untrack_denied()
        self._sync_excludes()
        code, out, err = await self._git(
            "-c", "advice.addEmbeddedRepo=false", "add", "-A", "-v", "--ignore-errors", check=False
        )
        if code != 0 and b"fatal:" in err:
            raise CheckpointError(f"git add failed: {err.decode('utf-8', 'replace').strip()}")
        touched = _verbose_paths(out)
        nested = _embedded_repos(err)
        project = str(self.project)  # plain strings: a first snapshot checks every file
        large = [path for path in touched if _too_large(os.path.join(project, path), self.max_file_bytes)]
        if large:
            await self._drop_large(large)
        latest = self._latest()
        if not touched and latest is not None:
            return Snapshot(commit=latest, changed=0, skipped_large=sorted(self._large), skipped_nested=nested)
        _, tree_out, _ = await self._git("write-tree")
        commit = self._write_commit(tree_out.decode().strip(), latest, message or "checkpoint")
        self._set_latest(commit)
        if alternates_file(self.git_dir).is_file():  # copy what it borrowed, then stand alone (borrow.py)
            code, _, _ = await self._git("repack", "-a", "-d", "-q", check=False)
            if code == 0:
                stop_borrowing(self.git_dir)
        return Snapshot(
            commit=commit, changed=len(touched) - len(large), skipped_large=sorted(self._large), skipped_nested=nested
        )

    async def _drop_large(self, paths: list[str]) -> None:
        """Take files over the cap out of the index and the object store, and
        exclude them from later snapshots."""
        data = "\0".join(paths).encode("utf-8", "surrogateescape") + b"\0"
        _, staged, _ = await self._git("ls-files", "-s", "-z", "--", *(f":(literal){p}" for p in paths))
        await self._git("update-index", "-z", "--force-remove", "--stdin", stdin=data)
        for entry in staged.decode("utf-8", "surrogateescape").split("\0"):
            parts = entry.split(" ")
            if len(parts) >= 2 and _SHA.match(parts[1]):
                with contextlib.suppress(OSError):
                    (self.git_dir / "objects" / parts[1][:2] / parts[1][2:]).unlink()
        self._large.update(paths)
        (self.git_dir / "skawld-large").write_text("\0".join(sorted(self._large)), encoding="utf-8")
        self._exclude_text = None

    def _write_commit(self, tree: str, parent: str | None, message: str) -> str:
        """Write a commit as a loose object (saves a `git commit-tree` process)."""
        stamp = f"{int(time.time())} +0000"
        ident = f"skawld <skawld@localhost> {stamp}"
        lines = [f"tree {tree}", *([f"parent {parent}"] if parent else []), f"author {ident}", f"committer {ident}"]
        body = ("\n".join(lines) + "\n\n" + message.rstrip("\n") + "\n").encode("utf-8")
        raw = b"commit " + str(len(body)).encode() + b"\0" + body
        sha = hashlib.sha1(raw, usedforsecurity=False).hexdigest()
        folder = self.git_dir / "objects" / sha[:2]
        target = folder / sha[2:]
        if not target.exists():
            folder.mkdir(parents=True, exist_ok=True)
            tmp = folder / f".tmp-{os.getpid()}-{sha[2:]}"
            tmp.write_bytes(zlib.compress(raw, 1))
            os.replace(tmp, target)
        return sha

    async def _verify(self, commit: str) -> str:
        await self._init()
        if not re.fullmatch(r"[0-9a-fA-F]{4,40}", commit):
            raise CheckpointError(f"not a checkpoint id: {commit!r}")
        code, out, _ = await self._git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}", check=False)
        if code != 0:
            raise CheckpointError(f"no checkpoint {commit} for {self.project}")
        return out.decode().strip()

    async def _diff(self, current: str, target: str) -> list[tuple[str, str]]:
        """(status, path) from `current` to `target`; nested repositories (gitlinks) left out."""
        _, out, _ = await self._git("diff-tree", "-r", "-z", "--no-renames", current, target)
        fields = out.decode("utf-8", "surrogateescape").split("\0")
        pairs: list[tuple[str, str]] = []
        for i in range(0, len(fields) - 1, 2):
            header, path = fields[i], fields[i + 1]
            parts = header.lstrip(":").split(" ")
            if len(parts) < 5 or "160000" in (parts[0], parts[1]):
                continue
            pairs.append((parts[4][:1], path))
        return pairs

    async def _apply(self, current: str, target: str, keep: Collection[str] = ()) -> RestoreResult:
        changes = await self._diff(current, target)
        kept = [path for _, path in changes if path in keep]
        changes = [(status, path) for status, path in changes if path not in keep]
        write = [path for status, path in changes if status != "D"]
        delete = [path for status, path in changes if status == "D"]
        if write:
            data = "\0".join(write).encode("utf-8", "surrogateescape") + b"\0"
            await self._git(
                "--literal-pathspecs",
                "restore",
                f"--source={target}",
                "--worktree",
                "--pathspec-from-file=-",
                "--pathspec-file-nul",
                stdin=data,
            )
        if delete:
            # A file the restored ignore rules ignore was not part of that state: keep it.
            data = "\0".join(delete).encode("utf-8", "surrogateescape") + b"\0"
            _, out, _ = await self._git("check-ignore", "--no-index", "-z", "--stdin", stdin=data, check=False)
            ignored = set(out.decode("utf-8", "surrogateescape").split("\0"))
            delete = [path for path in delete if path not in ignored]
        for path in delete:
            full = self.project / path
            try:
                full.unlink()
            except FileNotFoundError:
                pass
            _prune_empty_dirs(full.parent, self.project)
        return RestoreResult(commit=target, backup=current, written=write, deleted=delete, kept=kept)


def _more_files_than(root: Path, limit: int) -> bool:
    count = 0
    for _, _, files in os.walk(root):
        count += len(files)
        if count > limit:
            return True
    return False


def _too_large(path: str | Path, limit: int) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size > limit


def _verbose_paths(out: bytes) -> list[str]:
    """Paths from ``git add -v`` lines (``add 'p'`` / ``remove 'p'``)."""
    paths = []
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        for prefix in ("add '", "remove '"):
            if line.startswith(prefix) and line.endswith("'"):
                paths.append(line[len(prefix) : -1])
    return paths


def _embedded_repos(err: bytes) -> list[str]:
    marker = "adding embedded git repository: "
    text = err.decode("utf-8", "surrogateescape")
    return [line.split(marker, 1)[1].strip() for line in text.splitlines() if marker in line]


def _escape(path: str) -> str:
    """A path as a literal gitignore pattern."""
    return re.sub(r"([\\*?\[\]!# ])", r"\\\1", path)


def _prune_empty_dirs(directory: Path, stop: Path) -> None:
    while directory != stop and stop in directory.parents:
        try:
            directory.rmdir()
        except OSError:
            return
        directory = directory.parent


def now_iso() -> str:
    """The current UTC time (for checkpoint records)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
