"""`DirTree`: every entry under a root, listed once and kept current.

The first walk is one `os.scandir` per directory (entry types come from the
directory itself, never a `stat` per file). Hidden, ignored and vendored entries
are all listed: views decide what to keep. Each directory is watched with
inotify before it is listed, so no change falls between the two; a directory
that cannot be watched (no inotify, or its limit reached) has its mtime polled
on every `refresh` instead. Only directories that changed are listed again. A
lost event queue re-walks everything. A directory that cannot be listed is
recorded in `unreadable` with the reason, never silently left out.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..gc_pause import gc_paused
from .inotify import DirWatcher

__all__ = ["DirNode", "DirTree", "Listener", "child_path"]

# A polled directory whose mtime is this close to the time it was listed may
# change again within the same clock tick: it is listed again at the next refresh.
_RACY_NS = 100_000_000

# Called with the directories whose listing changed (added, removed or listed
# again), or None when everything was listed again.
Listener = Callable[[set[str] | None], None]


@dataclass(frozen=True)
class DirNode:
    """One directory's entries by kind; `mtime_ns` is set for polled directories."""

    files: tuple[str, ...]
    others: tuple[str, ...]  # symlinks, sockets, fifos, devices
    subdirs: tuple[str, ...]
    mtime_ns: int | None = None
    racy: bool = False


class DirTree:
    """The complete, incrementally maintained listing of one directory tree."""

    def __init__(self, root: str | os.PathLike[str], *, watch: bool = True) -> None:
        self.root = os.path.abspath(root)
        self.nodes: dict[str, DirNode] = {}
        self.unreadable: dict[str, str] = {}
        self.lock = threading.RLock()
        self._watcher = DirWatcher() if watch else None
        self._listeners: list[Listener] = []
        self._mtimes: dict[str, int] = {}
        self._polled: set[str] = set()  # directories whose mtime is checked on each refresh
        self.closed = False
        self.walks = 0
        self._watched = threading.Event()
        self._watched.set()
        self._adopt_dirty: list[str] = []
        self._just_walked = False
        with self.lock:
            self._walk_all()

    # -- listening -------------------------------------------------------------

    def listen(self, listener: Listener) -> None:
        """Call `listener` with the changed directories after every refresh that changed some."""
        with self.lock:
            self._listeners.append(listener)

    def unlisten(self, listener: Listener) -> None:
        """Stop calling `listener`."""
        with self.lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    @property
    def polled(self) -> int:
        """How many directories are polled (not watched)."""
        return len(self._polled)

    @property
    def watch_note(self) -> str | None:
        """Why some directories are polled instead of watched, if they are."""
        return self._watcher.limit_reason if self._watcher is not None else "watching is off"

    # -- walking ---------------------------------------------------------------

    def _list(self, path: str, *, first_walk: bool = False) -> DirNode | None:
        """List one directory; None when it no longer exists.

        The directory is watched first, so no change falls between the two, or
        when it cannot be watched its mtime is read first and polled later. In
        the first walk of a watched tree neither happens: the directory is
        watched and listed again afterwards, in a thread (`_watch_walked`).
        """
        mtime: int | None = None
        watcher = self._watcher
        deferred = first_walk and watcher is not None and watcher.active
        if not deferred and not (watcher is not None and watcher.add(path)):
            try:
                mtime = os.stat(path, follow_symlinks=False).st_mtime_ns
            except OSError:
                mtime = -1
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except (FileNotFoundError, NotADirectoryError):
            if watcher is not None:
                watcher.remove(path)
            return None
        except OSError as exc:
            self.unreadable[path] = exc.strerror or type(exc).__name__
            entries = []
        else:
            self.unreadable.pop(path, None)
        files, others, subdirs = _split(entries)
        racy = mtime is not None and time.time_ns() - mtime < _RACY_NS
        return DirNode(tuple(files), tuple(others), tuple(subdirs), mtime, racy)

    def _set(self, path: str, node: DirNode) -> None:
        self.nodes[path] = node
        if node.mtime_ns is None:
            self._polled.discard(path)
        else:
            self._polled.add(path)

    def _walk(self, top: str, changed: set[str], *, first_walk: bool = False) -> None:
        stack = [top]
        while stack:
            path = stack.pop()
            node = self._list(path, first_walk=first_walk)
            if node is None:
                continue
            self._set(path, node)
            changed.add(path)
            stack.extend(child_path(path, name) for name in node.subdirs)

    def _walk_all(self) -> None:
        self._watched.wait()  # a thread still watching the last walk's directories finishes first
        self.nodes.clear()
        self._polled.clear()
        self.unreadable.clear()
        self._mtimes.clear()
        self.walks += 1
        # One thread: each entry a listing reads releases and takes the GIL again,
        # so a second listing thread only adds handoffs (1.6x slower measured).
        with gc_paused():  # tens of thousands of acyclic listings
            self._walk(self.root, set(), first_walk=True)
        self._just_walked = True
        self._start_watching()

    # -- watching after the first walk -----------------------------------------

    def _start_watching(self) -> None:
        """Watch the walked directories in a thread, so the first walk does not
        wait for inotify. `refresh` waits for that thread before it trusts the watches."""
        if self._watcher is None or not self._watcher.active:
            return
        self._watched.clear()
        threading.Thread(
            target=self._watch_walked,
            args=(self._watcher, list(self.nodes.items())),
            name="skawld-file-index",
            daemon=True,
        ).start()

    def _watch_walked(self, watcher: DirWatcher, walked: list[tuple[str, DirNode]]) -> None:
        """Watch each walked directory, then list it again: a directory that changed
        between the walk and its watch (or that cannot be watched) is listed anew
        by the next refresh. Takes no lock: `refresh` waits for it to end."""
        try:
            for path, node in walked:
                if self.closed:
                    return
                if not watcher.add(path):
                    self._adopt_dirty.append(path)
                    continue
                try:
                    with os.scandir(path) as it:
                        files, others, subdirs = _split(list(it))
                except OSError:
                    self._adopt_dirty.append(path)
                    continue
                if (set(files), set(others), set(subdirs)) != (set(node.files), set(node.others), set(node.subdirs)):
                    self._adopt_dirty.append(path)
        finally:
            self._watched.set()

    def wait_watching(self, timeout: float | None = None) -> bool:
        """Wait until the directories of the last walk are watched (or found unwatchable)."""
        return self._watched.wait(timeout)

    def _drop(self, top: str, changed: set[str]) -> None:
        stack = [top]
        while stack:
            path = stack.pop()
            node = self.nodes.pop(path, None)
            self._polled.discard(path)
            self.unreadable.pop(path, None)
            if self._watcher is not None:
                self._watcher.remove(path)
            changed.add(path)
            if node is not None:
                stack.extend(child_path(path, name) for name in node.subdirs)

    def _relist(self, path: str, changed: set[str]) -> None:
        old = self.nodes.get(path)
        if old is None:
            return  # not in the tree (its parent's listing adds it)
        node = self._list(path)
        if node is None:
            self._drop(path, changed)
            return
        self._set(path, node)
        changed.add(path)
        for name in old.files + old.others:
            self._mtimes.pop(self.relative(child_path(path, name)), None)
        for name in set(old.subdirs) - set(node.subdirs):
            self._drop(child_path(path, name), changed)
        for name in set(node.subdirs) - set(old.subdirs):
            self._walk(child_path(path, name), changed)

    # -- refreshing --------------------------------------------------------------

    def refresh(self) -> None:
        """Bring the listing up to date with the file system (cheap when nothing changed)."""
        with self.lock:
            if self.closed:  # nothing watches any more: only a new walk is sure
                self._walk_all()
                self._notify(None)
                return
            if self._just_walked:  # nothing to poll yet; a change now is seen by the next refresh
                self._just_walked = False
                return
            self._watched.wait()  # the thread watching the first walk's directories
            dirty = set(self._adopt_dirty)
            self._adopt_dirty.clear()
            if self._watcher is not None:
                drained = self._watcher.drain()
                if drained.overflow:
                    self._walk_all()
                    self._notify(None)
                    return
                dirty |= drained.dirs
                for path in drained.files:
                    self._mtimes.pop(self.relative(path), None)
            for path in self._polled:
                node = self.nodes[path]
                try:
                    mtime = os.stat(path, follow_symlinks=False).st_mtime_ns
                except OSError:
                    mtime = -1
                if node.racy or mtime != node.mtime_ns:
                    dirty.add(path)
            if not self.nodes and os.path.isdir(self.root):
                self._walk_all()
                self._notify(None)
                return
            changed: set[str] = set()
            # Parents first: a parent's listing may drop a whole dirty subtree.
            for path in sorted(dirty, key=len):
                self._relist(path, changed)
            if changed:
                self._notify(changed)

    def _notify(self, changed: set[str] | None) -> None:
        for listener in list(self._listeners):
            listener(changed)

    # -- modification times ------------------------------------------------------

    def relative(self, path: str) -> str:
        """`path` (absolute, inside the tree) relative to the root, `/`-separated."""
        return path[len(self.root) :].lstrip("/")

    def mtimes(self, rels: list[str]) -> list[int]:
        """The mtime (ns) of each file, given relative to the root; 0 when it cannot
        be read. Cached for files in watched directories (an event on the file or
        its directory drops the entry)."""
        get = self._mtimes.get
        with self.lock:
            out = [get(rel, _MISSING) for rel in rels]
            missing = [i for i, mtime in enumerate(out) if mtime == _MISSING]
            if not missing:
                return out
            head = child_path(self.root, "")
            stat = os.stat
            for i in missing:
                try:
                    out[i] = stat(head + rels[i], follow_symlinks=False).st_mtime_ns
                except OSError:
                    out[i] = 0
            if self._watcher is not None and self._watcher.active and self._watched.is_set():
                polled = self._polled
                for i in missing:
                    rel = rels[i]
                    if not polled or (head + rel).rpartition("/")[0] not in polled:
                        self._mtimes[rel] = out[i]
        return out

    def close(self) -> None:
        """Stop watching; later refreshes walk everything again."""
        with self.lock:
            self.closed = True
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None


_MISSING = -(1 << 70)  # below any real mtime


def child_path(directory: str, name: str) -> str:
    """`directory/name` (one `/` also when the directory is the file system root)."""
    return directory + name if directory.endswith("/") else f"{directory}/{name}"


def _split(entries: list[os.DirEntry[str]]) -> tuple[list[str], list[str], list[str]]:
    """(regular files, other entries, directories) by the types the directory listing gave."""
    try:
        subdirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        files = [e.name for e in entries if e.is_file(follow_symlinks=False)]
    except OSError:  # a type the listing did not give, and the entry is gone
        subdirs, files = [], []
        for e in entries:
            try:
                (
                    subdirs if e.is_dir(follow_symlinks=False) else files if e.is_file(follow_symlinks=False) else []
                ).append(e.name)
            except OSError:
                pass
    if len(subdirs) + len(files) == len(entries):
        return files, [], subdirs
    known = {*subdirs, *files}
    return files, [e.name for e in entries if e.name not in known], subdirs
