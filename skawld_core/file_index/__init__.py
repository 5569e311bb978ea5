"""The file index: one listing of a directory tree, walked once and kept current.

`DirTree` (tree.py) lists every entry under a root with one `os.scandir` per
directory and follows changes with inotify (or directory mtimes where inotify
cannot watch), re-listing only the directories that changed. Two views read it:

- `DenyView` (deny.py): the entries Read deny patterns cover, for the sandbox;
  every entry counts, hidden and ignored ones included.
- `ListedView` (listed.py): the files the search tools and `@` completion list,
  with ripgrep's default filtering (ignore files, no hidden entries, no symlinks).

`shared_tree` (registry.py) keeps one tree per directory for the whole process.
"""

from __future__ import annotations

from .deny import DenyPattern, DenyView, Hidden
from .registry import close_trees, shared_tree
from .tree import DirNode, DirTree

__all__ = ["DenyPattern", "DenyView", "DirNode", "DirTree", "Hidden", "close_trees", "shared_tree"]
