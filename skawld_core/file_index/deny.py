"""`DenyView`: the entries of a `DirTree` that Read deny patterns cover.

Every entry counts here (hidden, gitignored, vendored: a `.env` is usually all
three). A pattern only proposes a candidate; the `denied` callback (the
permission engine's own answer, so rule order and allow rules count) decides.
Results are kept per directory and recomputed only for directories the tree
reports as changed. A directory the tree could not list is hidden whole when a
pattern could match inside it: what cannot be known is not left visible.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from ..globs import PATH_RULE, compile_glob, has_magic
from .tree import DirNode, DirTree, child_path

__all__ = ["DenyPattern", "DenyView", "Hidden", "under"]

Denied = Callable[[str], bool]


@dataclass(frozen=True)
class DenyPattern:
    """One absolute glob, its literal base directory, and a cheap test on entry names."""

    glob: str
    base: str

    @property
    def full(self) -> re.Pattern[str]:
        """The whole pattern, matched against absolute paths."""
        return compile_glob(self.glob, PATH_RULE)

    @property
    def quick(self) -> re.Pattern[str] | None:
        """The last segment matched against names alone (None when `**` can match any name)."""
        last = self.glob.rsplit("/", 1)[-1]
        return None if "**" in last else compile_glob(last, PATH_RULE)

    @property
    def literal_name(self) -> str | None:
        """The last segment when it is a plain name (no glob syntax, no escapes)."""
        last = self.glob.rsplit("/", 1)[-1]
        return None if has_magic(last) or not last else last

    def may_match_in(self, directory: str) -> bool:
        """True when an entry of `directory` (or below it) can match."""
        base = self.base.rstrip("/") + "/"
        return (directory.rstrip("/") + "/").startswith(base) or base.startswith(directory.rstrip("/") + "/")


@dataclass
class Hidden:
    """What to cover: files (with an empty file) and folders (with an empty tmpfs),
    and the folders among them hidden because they could not be listed."""

    files: list[str] = field(default_factory=list)
    dirs: list[str] = field(default_factory=list)
    unreadable: dict[str, str] = field(default_factory=dict)


class DenyView:
    """The denied entries of one tree, kept current as the tree refreshes."""

    def __init__(self, tree: DirTree, patterns: Sequence[DenyPattern], denied: Denied) -> None:
        self.tree = tree
        self.patterns = tuple(patterns)
        self.denied = denied
        self._tests = [(p, p.literal_name, p.quick, p.full) for p in self.patterns]
        self._per_dir: dict[str, tuple[list[str], list[str]]] = {}
        self._dirty: set[str] | None = None
        self._result: Hidden | None = None
        tree.listen(self._changed)

    def _changed(self, dirs: set[str] | None) -> None:
        self._result = None
        if dirs is None or self._dirty is None:
            self._dirty = None
        else:
            self._dirty |= dirs

    def reset(self, denied: Denied) -> None:
        """Ask `denied` again about every candidate (the rules changed)."""
        with self.tree.lock:
            self.denied = denied
            self._changed(None)

    def close(self) -> None:
        """Stop following the tree."""
        self.tree.unlisten(self._changed)

    def hidden(self) -> Hidden:
        """Refresh the tree and return what is denied now."""
        with self.tree.lock:
            self.tree.refresh()
            if self._result is None:
                self._recompute()
            assert self._result is not None
            return self._result

    def _recompute(self) -> None:
        nodes = self.tree.nodes
        if self._dirty is None:
            self._per_dir = {}
            todo: Iterable[str] = list(nodes)
        else:
            todo = self._dirty
        for path in todo:
            node = nodes.get(path)
            if node is None:
                self._per_dir.pop(path, None)
            else:
                found = self._scan(path, node)
                if found[0] or found[1]:
                    self._per_dir[path] = found
                else:
                    self._per_dir.pop(path, None)
        self._dirty = set()
        self._result = self._compose()

    def _scan(self, path: str, node: DirNode) -> tuple[list[str], list[str]]:
        files: list[str] = []
        dirs: list[str] = []
        for pattern, literal, quick, full in self._tests:
            if not pattern.may_match_in(path):
                continue
            for names, out in ((node.files, files), (node.others, files), (node.subdirs, dirs)):
                if literal is not None:
                    picked: Iterable[str] = (literal,) if literal in names else ()
                else:
                    picked = names if quick is None else [n for n in names if quick.match(n)]
                for name in picked:
                    entry = child_path(path, name)
                    if full.match(entry) and entry not in out and self.denied(entry):
                        out.append(entry)
        return files, dirs

    def _compose(self) -> Hidden:
        out = Hidden()
        root = self.tree.root
        if any(full.match(root) for *_, full in self._tests) and self.denied(root):
            out.dirs.append(root)
            return out
        for path, reason in self.tree.unreadable.items():
            if any(p.may_match_in(path) for p in self.patterns):
                out.unreadable[path] = reason
        dirs = sorted({*out.unreadable, *(d for _, ds in self._per_dir.values() for d in ds)})
        covered: set[str] = set()
        for d in sorted(dirs, key=len):  # a parent before its children
            if not under(d, covered):
                covered.add(d)
        out.dirs = sorted(covered)
        out.files = sorted(f for fs, _ in self._per_dir.values() for f in fs if not under(f, covered))
        return out


def under(path: str, dirs: set[str]) -> bool:
    """True when a proper ancestor of `path` is in `dirs`."""
    if not dirs:
        return False
    parent = os.path.dirname(path)
    while True:
        if parent in dirs:
            return True
        up = os.path.dirname(parent)
        if up == parent:
            return False
        parent = up
