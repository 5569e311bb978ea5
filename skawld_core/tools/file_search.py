"""Listing the files a Glob or Grep covers: via `rg --files`, or the Python walker.

Both backends apply the same filters (ignore files, no hidden entries, no symlinks,
an optional glob and rg file type) and return `/`-separated paths relative to the
search root, sorted, so their results can be compared for equality.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..file_index.listed import shared_listing
from ..globs import compile_glob
from . import native_mtimes
from .base import ToolContext, _allow_every_path
from .globmatch import PathGlob
from .ignore import walk_files
from .ripgrep import BASE_FLAGS, find_rg, run_rg

# ripgrep's definitions (`rg --type-list`) of the types the fallback understands.
FILE_TYPES: dict[str, tuple[str, ...]] = {
    "c": ("*.[chH]", "*.[chH].in", "*.cats"),
    "cpp": (
        "*.[ChH]",
        "*.[ChH].in",
        "*.[ch]pp",
        "*.[ch]pp.in",
        "*.[ch]xx",
        "*.[ch]xx.in",
        "*.cc",
        "*.cc.in",
        "*.hh",
        "*.hh.in",
        "*.inl",
    ),
    "css": ("*.css", "*.scss"),
    "go": ("*.go",),
    "html": ("*.ejs", "*.htm", "*.html"),
    "java": ("*.java", "*.jsp", "*.jspx", "*.properties"),
    "js": ("*.js", "*.jsx", "*.vue"),
    "json": ("*.json", "composer.lock"),
    "kotlin": ("*.kt", "*.kts"),
    "markdown": ("*.markdown", "*.md", "*.mdown", "*.mkdn"),
    "md": ("*.markdown", "*.md", "*.mdown", "*.mkdn"),
    "php": ("*.php", "*.php3", "*.php4", "*.php5", "*.phtml"),
    "py": ("*.py",),
    "ruby": ("*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"),
    "rust": ("*.rs",),
    "sh": ("*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh"),
    "swift": ("*.swift",),
    "toml": ("*.toml", "Cargo.lock"),
    "ts": ("*.ts", "*.tsx"),
    "txt": ("*.txt",),
    "yaml": ("*.yaml", "*.yml"),
}
FILE_TYPES["rs"] = FILE_TYPES["rust"]
FILE_TYPES["rb"] = FILE_TYPES["ruby"]
FILE_TYPES["kt"] = FILE_TYPES["kotlin"]

TYPE_ALIASES = {"rs": "rust", "rb": "ruby", "kt": "kotlin"}
GLOB_TYPE = "skawldglob"


class SearchError(Exception):
    """A search could not run (unknown type, bad pattern, rg failure)."""


@dataclass(frozen=True)
class FileQuery:
    """Which files to search: everything under `root` passing the filters."""

    root: Path
    glob: PathGlob | None = None
    file_type: str | None = None

    def rg_filter_args(self) -> list[str]:
        """rg flags for the filters. A basename glob becomes an rg *type*, which,
        unlike `--glob`, cannot re-include a gitignored file."""
        args = ["--glob", "!.*"]
        if self.file_type:
            args += ["--type", TYPE_ALIASES.get(self.file_type, self.file_type)]
        elif self.glob is not None and self.glob.last_segment:
            args += ["--type-add", f"{GLOB_TYPE}:{self.glob.last_segment}", "--type", GLOB_TYPE]
        return args

    def type_matcher(self) -> tuple[str, ...] | None:
        """The fallback's name globs for `file_type`, or raise for an unknown type."""
        if not self.file_type:
            return None
        globs = FILE_TYPES.get(self.file_type)
        if globs is None:
            raise SearchError(f"unrecognized file type: {self.file_type}")
        return globs

    @property
    def uses_glob_type(self) -> bool:
        """True when rg's type filter expresses the whole glob (a file-name glob)."""
        return self.glob is not None and not self.file_type and self.glob.basename_only

    def keep(self, rel: str) -> bool:
        """The glob filter, applied to every listed path by both backends."""
        return self.glob is None or self.glob.matcher(rel)

    def rg_post_filter(self, rels: list[str]) -> list[str]:
        """Apply the glob to rg's output unless rg's type filter already did exactly that."""
        if self.glob is None or self.uses_glob_type:
            return rels
        match = self.glob.matcher
        return [r for r in rels if match(r)]


def strip_root(raw: str, root: str) -> str:
    """`raw` (as printed by rg for the search root `root`) relative to that root."""
    if raw.startswith(root):
        raw = raw[len(root) :]
    return raw.lstrip("/")


class _MtimeCollector:
    """Stats each NUL-terminated path as rg prints it (runs in rg's reader thread)."""

    def __init__(self) -> None:
        self.partial = b""
        self.items: list[tuple[bytes, int]] = []

    def __call__(self, chunk: bytes) -> None:
        parts = (self.partial + chunk).split(b"\0")
        self.partial = parts.pop()
        append, stat = self.items.append, os.stat
        for raw in parts:
            try:
                append((raw, stat(raw).st_mtime_ns))
            except OSError:
                append((raw, 0))


async def list_files_with_mtime_rg(query: FileQuery) -> list[tuple[str, int]]:
    """Files via `rg --files` with their mtimes, stat-ed while rg is still walking
    (by `find` in a pipeline when it can, else in Python as rg's output arrives)."""
    root = str(query.root)
    cut = len(root.rstrip("/")) + 1
    found: list[tuple[str, int]] = []
    if native_mtimes.available():  # stat-ed by `find`, natively, while rg walks; paths relative to root
        found = await native_mtimes.list_with_mtimes(query.rg_filter_args(), root)
    else:
        collect = _MtimeCollector()
        await run_rg(["--files", "--null", *query.rg_filter_args(), "--", root], query.root, on_stdout=collect)
        for raw, mtime in collect.items:
            p = raw.decode("utf-8", errors="surrogateescape")
            found.append((p[cut:] if p.startswith(root) else strip_root(p, root), mtime))
    if query.glob is not None and not query.uses_glob_type:
        match = query.glob.matcher
        found = [item for item in found if match(item[0])]
    return found


async def newest_files_rg(query: FileQuery, limit: int) -> tuple[list[tuple[str, int]], int] | None:
    """The newest `limit` files `list_files_with_mtime_rg` would list (with every
    other file as new as the last of them, in no order) and how many it lists;
    None when that takes the whole listing (no `find` to stat natively, or a glob
    that rg's file type does not express and Python filters)."""
    if not native_mtimes.available() or (query.glob is not None and not query.uses_glob_type):
        return None
    return await native_mtimes.newest_with_mtimes(query.rg_filter_args(), str(query.root), limit)


def list_files_with_mtime_py(query: FileQuery) -> list[tuple[str, int]]:
    """The fallback's listing with mtimes."""
    fd = os.open(query.root, os.O_RDONLY)
    try:
        found = []
        for rel in list_files_py(query):
            try:
                found.append((rel, os.stat(rel, dir_fd=fd).st_mtime_ns))
            except OSError:
                found.append((rel, 0))
        return found
    finally:
        os.close(fd)


async def list_files_with_mtime(query: FileQuery, use_rg: bool) -> list[tuple[str, int]]:
    """(path, mtime_ns) of every listed file, from rg or the fallback."""
    if use_rg:
        return await list_files_with_mtime_rg(query)
    return await asyncio.to_thread(list_files_with_mtime_py, query)


def list_indexed_with_mtime(query: FileQuery, index_root: Path) -> list[tuple[str, int]] | None:
    """(path, mtime_ns) of every listed file from the shared file index of
    `index_root`, when the query's root is that directory or a listed one inside
    it; None otherwise (the caller lists the old way). Only the files that pass
    the glob are stat-ed, and those in watched directories only once."""
    if query.file_type:
        return None
    base = os.path.abspath(index_root)
    root = os.path.abspath(query.root)
    if not (root + "/").startswith(base.rstrip("/") + "/"):
        return None
    view = shared_listing(base)
    rel = root[len(base) :].strip("/")
    glob = query.glob
    with view.tree.lock:
        view.files()
        if rel and not view.lists_dir(root):
            return None
        if glob is None:
            files = view.select(rel)
        elif glob.basename_only:
            files = view.select(rel, name=compile_glob(glob.stripped).match)
        else:
            files = view.select(rel, path=compile_glob(glob.pattern.lstrip("/")).match)
        in_tree = [f"{rel}/{f}" for f in files] if rel else files
        return list(zip(files, view.tree.mtimes(in_tree), strict=True))


def list_all_files_rg(root: Path) -> list[str] | None:
    """Every file `rg --files` lists under `root` (the listed view's filters),
    relative to it and unsorted, with no output cap; None when rg is missing or fails."""
    rg = find_rg()
    if rg is None:
        return None
    try:
        out = subprocess.run(
            [rg, *BASE_FLAGS, "--files", "--null", *FileQuery(root=root).rg_filter_args()],
            cwd=root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    except OSError:
        return None
    if out.returncode not in (0, 1):
        return None
    text = out.stdout.decode("utf-8", errors="surrogateescape")
    files = text.split("\0")
    files.pop()  # after the last NUL
    return files


def list_files_py(query: FileQuery) -> list[str]:
    """Files via the pure-Python walker, with the same filters as rg."""
    type_globs = query.type_matcher()
    type_res = [compile_glob(g) for g in type_globs] if type_globs else None
    picked = []
    for rel in walk_files(str(query.root)):
        if type_res is not None:
            name = rel.rsplit("/", 1)[-1]
            if not any(r.match(name) for r in type_res):
                continue
        if query.keep(rel):
            picked.append(rel)
    return sorted(picked)


def real_root(root: Path) -> Path:
    """The symlink-resolved root; listed files are never symlinks, so
    `real_root / rel` is a file's real path (what `can_read` expects)."""
    return Path(os.path.realpath(root))


def filter_readable(ctx: ToolContext, real: Path, rels: list[str]) -> list[str]:
    """Drop files a Read deny rule covers (`ctx.can_read` on the real path)."""
    if ctx.can_read is _allow_every_path:
        return rels
    return [r for r in rels if ctx.can_read(real / r)]


def readable_checker(ctx: ToolContext, real: Path) -> Callable[[str], bool] | None:
    """A `rel -> bool` check for `ctx.can_read`, or None when every path is readable."""
    if ctx.can_read is _allow_every_path:
        return None
    can_read = ctx.can_read
    return lambda rel: can_read(real / rel)


def printable(text: str) -> str:
    """Make a filesystem string safe to show (undecodable bytes become U+FFFD)."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
