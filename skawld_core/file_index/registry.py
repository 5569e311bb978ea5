"""The trees of this process, shared: one walk per directory serves the sandbox and the tools."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable

from .tree import DirTree

__all__ = ["MAX_TREES", "close_trees", "ready_tree", "shared_tree", "warm_tree"]

MAX_TREES = 16  # each holds an inotify instance (128 per user by default)

_trees: OrderedDict[str, DirTree] = OrderedDict()
_walking: dict[str, threading.Event] = {}  # roots being walked, set when the walk ends
_lock = threading.Lock()


def shared_tree(root: str | os.PathLike[str]) -> DirTree:
    """The tree of `root` (walked on first use, then refreshed by its users).

    A caller asking while another thread walks the same root waits for that
    walk rather than starting a second one. The least recently used tree beyond
    `MAX_TREES` is closed: a view still holding it re-walks on every refresh,
    slower but never stale.
    """
    key = os.path.abspath(root)
    while True:
        with _lock:
            tree = _trees.get(key)
            if tree is not None:
                _trees.move_to_end(key)
                return tree
            walking = _walking.get(key)
            if walking is None:
                walking = _walking[key] = threading.Event()
                break
        walking.wait()  # then look again: the walk may have failed
    return _walk(key, walking)


def _walk(key: str, walking: threading.Event) -> DirTree:
    """Walk `key`, whose walk the caller claimed with `walking`, and keep the tree."""
    try:
        built = DirTree(key)  # walked outside the lock: other roots need not wait
        with _lock:
            _trees[key] = built
            while len(_trees) > MAX_TREES:
                _, old = _trees.popitem(last=False)
                old.close()
        return built
    finally:
        with _lock:
            _walking.pop(key, None)
        walking.set()


def ready_tree(root: str | os.PathLike[str], *, wait: bool = False) -> DirTree | None:
    """The tree of `root` if it is walked already, else None; never walks. With
    `wait`, a walk under way (say, `warm_tree`'s) is waited for first."""
    key = os.path.abspath(root)
    with _lock:
        walking = _walking.get(key) if wait else None
    if walking is not None:
        walking.wait()
    with _lock:
        return _trees.get(key)


def warm_tree(root: str | os.PathLike[str], then: Callable[[DirTree], object] | None = None) -> threading.Thread | None:
    """Walk `root` in a background thread unless it is walked or being walked,
    then call `then` with the tree there; returns the thread started, if any
    (`shared_tree` callers meanwhile wait for the walk)."""
    key = os.path.abspath(root)
    with _lock:
        if key in _trees or key in _walking:
            return None
        walking = _walking[key] = threading.Event()  # claimed now: callers from here on wait for it

    def walk() -> None:
        try:
            tree = _walk(key, walking)
            if then is not None:
                then(tree)
        except Exception:  # best effort: the next caller does the work again and sees the error
            pass

    thread = threading.Thread(target=walk, name="skawld-file-index-warm", daemon=True)
    thread.start()
    return thread


def close_trees() -> None:
    """Close every shared tree, after any walk under way ends (tests, benches,
    and processes that are done with the project)."""
    with _lock:
        walking = list(_walking.values())
    for event in walking:
        event.wait()
    with _lock:
        trees = list(_trees.values())
        _trees.clear()
    for tree in trees:
        tree.close()
