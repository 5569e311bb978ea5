"""`ListedView`: the files the search tools and `@` completion list, from a `DirTree`.

The filtering is ripgrep's default, as `tools/ignore.py` implements it for the
Python walker: `.rgignore`, `.ignore`, `.gitignore` (in the tree and above it up
to the repository root) and `.git/info/exclude`, no hidden entries, no symlinks.
It runs in memory over the tree (ignore files are read only where the listing
shows them), once, then only for directories that changed; a change to any
ignore file it read recomputes the whole view (in memory, no walk).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..gc_pause import gc_paused
from ..tools.ignore import EXCLUDE_RANK, IGNORE_FILES, RuleSet, is_ignored, load_rules, parent_rules
from .registry import shared_tree, warm_tree
from .tree import DirNode, DirTree, child_path

__all__ = ["ListedView", "shared_listing", "warm_listing"]


@dataclass(frozen=True)
class _Listed:
    """One reachable directory: the rules its entries are judged by (the first
    `inherited` of them come from above), its listed files (relative to the tree
    root) and the names of its listed subdirectories."""

    stack: tuple[RuleSet, ...]
    inherited: int
    rel: str
    names: list[str]
    files: list[str]
    subdirs: frozenset[str]


def _own_rules(path: str, node: DirNode) -> tuple[list[RuleSet], list[str]]:
    """`ignore._dir_rules`, asking the file system only for files the listing has;
    also the ignore files present (their changes are checked on every use)."""
    present = {*node.files, *node.others}
    found: list[RuleSet] = []
    files: list[str] = []
    for rank, name in enumerate(IGNORE_FILES):
        if name in present:
            files.append(os.path.join(path, name))
            rs = load_rules(files[-1], path, rank)
            if rs:
                found.append(rs)
    if ".git" in node.subdirs:
        files.append(os.path.join(path, ".git", "info", "exclude"))
        rs = load_rules(files[-1], path, EXCLUDE_RANK)
        if rs:
            found.append(rs)
    return found, files


def _candidates(stack: tuple[RuleSet, ...], directory: str, names: Iterable[str]) -> set[str]:
    """Names that some rule of `stack` may match (a superset of the ignored and
    whitelisted ones), found with one combined regex per rule set."""
    picked: set[str] = set()
    names = list(names)
    for rs in stack:
        base_rx, path_rx = _combined(rs)
        if base_rx is not None:
            picked.update(n for n in names if base_rx.match(n))
        if path_rx is not None:
            if not (directory + "/").startswith(rs.base.rstrip("/") + "/"):
                continue
            rel = directory[len(rs.base) :].strip("/")
            prefix = rel + "/" if rel else ""
            picked.update(n for n in names if path_rx.match(prefix + n))
    return picked


_combined_cache: dict[int, tuple[re.Pattern[str] | None, re.Pattern[str] | None, RuleSet]] = {}


def _combined(rs: RuleSet) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    cached = _combined_cache.get(id(rs))
    if cached is not None and cached[2] is rs:
        return cached[0], cached[1]
    base = [r.regex.pattern for r in rs.rules if r.basename]
    path = [r.regex.pattern for r in rs.rules if not r.basename]
    base_rx = re.compile("|".join(f"(?:{p})" for p in base)) if base else None
    path_rx = re.compile("|".join(f"(?:{p})" for p in path)) if path else None
    if len(_combined_cache) > 4096:
        _combined_cache.clear()
    _combined_cache[id(rs)] = (base_rx, path_rx, rs)
    return base_rx, path_rx


class ListedView:
    """The listed files of one tree, kept current as the tree refreshes."""

    def __init__(self, tree: DirTree) -> None:
        self.tree = tree
        self._dirs: dict[str, _Listed] = {}
        self._dirty: set[str] | None = None
        self._flat: list[str] | None = None
        self._rule_files: dict[str, tuple[int, int]] = {}
        tree.listen(self._changed)

    def _changed(self, dirs: set[str] | None) -> None:
        self._flat = None
        if dirs is None or self._dirty is None:
            self._dirty = None
        else:
            self._dirty |= dirs

    def close(self) -> None:
        """Stop following the tree."""
        self.tree.unlisten(self._changed)

    def files(self) -> list[str]:
        """Every listed file, `/`-separated and relative to the tree root (in
        directory order, not sorted). Refreshes the tree first."""
        with self.tree.lock:
            self.tree.refresh()
            if self._rules_changed():
                self._changed(None)
            if self._flat is None:
                self._recompute()
                self._flat = [f for listed in self._dirs.values() for f in listed.files]
            return self._flat

    def select(
        self,
        under: str = "",
        *,
        name: Callable[[str], object] | None = None,
        path: Callable[[str], object] | None = None,
    ) -> list[str]:
        """Listed files inside the relative folder `under` ("" for all), relative
        to it, whose file name passes `name` and whose relative path passes `path`
        (each test a compiled regex's `match`, applied in C over whole lists)."""
        head = under.rstrip("/") + "/" if under else ""
        cut = len(head)
        with self.tree.lock:
            flat = self.files()
            if name is None:
                out = [f[cut:] for f in flat if f.startswith(head)] if head else list(flat)
            else:
                out = []
                for listed in self._dirs.values():
                    if head and listed.rel != under and not listed.rel.startswith(head):
                        continue
                    hits = list(filter(name, listed.names))
                    inner = listed.rel[cut:]
                    out.extend([f"{inner}/{n}" for n in hits] if inner else hits)
        return list(filter(path, out)) if path is not None else out

    def lists_dir(self, path: str) -> bool:
        """True when the directory `path` (absolute) is listed (not ignored or hidden)."""
        with self.tree.lock:
            return os.path.abspath(path) in self._dirs

    def _recompute(self) -> None:
        root = self.tree.root
        if self._dirty is None or root not in self._dirs:
            self._dirs = {}
            self._rule_files = {}
            with gc_paused():  # a listing per directory, none in a cycle
                self._list_subtree(root, tuple(parent_rules(root)), "")
        else:
            for path in sorted(self._dirty, key=len):  # parents first
                listed = self._dirs.get(path)
                if listed is not None:  # else not reachable, or gone with its parent
                    self._relist(path, listed)
        self._dirty = set()

    def _relist(self, path: str, old: _Listed) -> None:
        node = self.tree.nodes.get(path)
        if node is None:
            self._drop(path)
            return
        inherited = old.stack[: old.inherited]
        rel = path[len(self.tree.root) :].strip("/")
        own, _ = _own_rules(path, node)
        if tuple(own) != old.stack[old.inherited :]:  # its ignore files changed: the subtree again
            self._drop(path)
            self._list_subtree(path, inherited, rel)
            return
        listed = self._list_one(path, node, inherited, rel)
        for name in old.subdirs - listed.subdirs:
            self._drop(child_path(path, name))
        prefix = f"{rel}/" if rel else ""
        for name in listed.subdirs - old.subdirs:
            self._list_subtree(child_path(path, name), listed.stack, prefix + name)

    def _drop(self, top: str) -> None:
        work = [top]
        while work:
            path = work.pop()
            listed = self._dirs.pop(path, None)
            if listed is not None:
                work.extend(child_path(path, name) for name in listed.subdirs)

    def _list_subtree(self, top: str, inherited: tuple[RuleSet, ...], top_rel: str) -> None:
        nodes = self.tree.nodes
        work = [(top, inherited, top_rel)]
        while work:
            path, stack_in, rel = work.pop()
            node = nodes.get(path)
            if node is None:
                continue
            listed = self._list_one(path, node, stack_in, rel)
            prefix = f"{rel}/" if rel else ""
            work.extend((child_path(path, name), listed.stack, prefix + name) for name in listed.subdirs)

    def _list_one(self, path: str, node: DirNode, inherited: tuple[RuleSet, ...], rel: str) -> _Listed:
        own, rule_files = _own_rules(path, node)
        for file in rule_files:
            self._note_rule_file(file)
        stack = inherited + tuple(own)
        files = [n for n in node.files if n[0] != "."]
        subdirs = [n for n in node.subdirs if n[0] != "."]
        if stack:
            maybe = _candidates(stack, path, files + subdirs)
            if maybe:
                rules = list(stack)
                files = [n for n in files if n not in maybe or not is_ignored(rules, child_path(path, n), n, False)]
                subdirs = [n for n in subdirs if n not in maybe or not is_ignored(rules, child_path(path, n), n, True)]
        prefix = f"{rel}/" if rel else ""
        listed = _Listed(stack, len(inherited), rel, files, [prefix + n for n in files], frozenset(subdirs))
        self._dirs[path] = listed
        return listed

    def _note_rule_file(self, path: str) -> None:
        try:
            st = os.stat(path)
        except OSError:
            self._rule_files[path] = (-1, -1)
        else:
            self._rule_files[path] = (st.st_mtime_ns, st.st_size)

    def _rules_changed(self) -> bool:
        for path, seen in self._rule_files.items():
            try:
                st = os.stat(path)
                now = (st.st_mtime_ns, st.st_size)
            except OSError:
                now = (-1, -1)
            if now != seen:
                return True
        return False


_views: dict[int, ListedView] = {}
_views_lock = threading.Lock()


def shared_listing(root: str | os.PathLike[str]) -> ListedView:
    """The listed view over the shared tree of `root`."""
    tree = shared_tree(root)
    with _views_lock:
        view = _views.get(id(tree))
        if view is None or view.tree is not tree:
            for key in [k for k, v in _views.items() if v.tree.closed]:
                _views.pop(key).close()
            view = _views[id(tree)] = ListedView(tree)
        return view


def warm_listing(root: str | os.PathLike[str]) -> threading.Thread | None:
    """Walk `root` and compute its listed view in a background thread (see
    `registry.warm_tree`), unless its tree is walked or being walked."""
    return warm_tree(root, lambda tree: shared_listing(tree.root).files())
