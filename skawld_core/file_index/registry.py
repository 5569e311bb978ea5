"""The trees of this process, shared: one walk per directory serves the sandbox and the tools."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

from .tree import DirTree

__all__ = ["MAX_TREES", "close_trees", "shared_tree"]

MAX_TREES = 16  # each holds an inotify instance (128 per user by default)

_trees: OrderedDict[str, DirTree] = OrderedDict()
_lock = threading.Lock()


def shared_tree(root: str | os.PathLike[str]) -> DirTree:
    """The tree of `root` (walked on first use, then refreshed by its users).

    The least recently used tree beyond `MAX_TREES` is closed: a view still
    holding it re-walks on every refresh, slower but never stale.
    """
    key = os.path.abspath(root)
    with _lock:
        tree = _trees.get(key)
        if tree is not None:
            _trees.move_to_end(key)
            return tree
    built = DirTree(key)  # walked outside the lock: other roots need not wait
    with _lock:
        tree = _trees.get(key)
        if tree is not None:
            built.close()
            return tree
        _trees[key] = built
        while len(_trees) > MAX_TREES:
            _, old = _trees.popitem(last=False)
            old.close()
        return built


def close_trees() -> None:
    """Close every shared tree (tests, and processes that are done with the project)."""
    with _lock:
        trees = list(_trees.values())
        _trees.clear()
    for tree in trees:
        tree.close()
