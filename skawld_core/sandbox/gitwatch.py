"""While a session's background shells run, the git check runs when git metadata changes.

`GitGuard.check` normally runs when a call ends; a background shell can plant a
config and keep running, and a `git status` on the host meanwhile would read it.
So while any background shell of the session runs, a `LiveGitCheck` task watches
the reachable git dirs (and their `hooks/`, rebase and sequencer folders) with
inotify and runs the check as soon as one changes; a short poll (`POLL_S`) catches
what inotify cannot see: new git dirs (a nested repository, a new `.git` file),
git dirs it cannot watch, or no inotify at all. The window is "until the check
notices", not "until the shell ends". The task stops when no shell runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable

from ..file_index.inotify import DirWatcher
from .gitguard import GitGuard, GitSnapshot

__all__ = ["POLL_S", "LiveGitCheck"]

POLL_S = 0.25
_SUBDIRS = ("hooks", "rebase-merge", "rebase-apply", "sequencer")


class LiveGitCheck:
    """Runs `guard.check` against the session's baseline (`get_baseline`, updated with
    `set_baseline`) whenever git metadata changes, while `running()` is true; the
    check's lines go to `report`."""

    def __init__(
        self,
        guard: GitGuard,
        running: Callable[[], bool],
        get_baseline: Callable[[], GitSnapshot | None],
        set_baseline: Callable[[GitSnapshot], None],
        report: Callable[[list[str]], None],
    ) -> None:
        self.guard = guard
        self._running = running
        self._get_baseline = get_baseline
        self._set_baseline = set_baseline
        self._report = report
        self.checks = 0  # how many checks ran (tests, diagnostics)
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start watching in the running event loop (no-op while already watching)."""
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self._watch())

    def stop(self) -> None:
        """Stop watching (safe when the loop is gone)."""
        if self.task is not None and not self.task.done():
            with contextlib.suppress(RuntimeError):  # the loop already closed
                self.task.cancel()
        self.task = None

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        watcher = DirWatcher()
        if watcher.active:
            loop.add_reader(watcher.fileno(), wake.set)
        try:
            self._watch_dirs(watcher, self._get_baseline())
            while self._running():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), POLL_S)
                wake.clear()
                watcher.drain()
                if not self._running():
                    return  # the shell's own end-of-call check runs now
                if self._watch_dirs(watcher, self._check()):
                    wake.set()  # a change between the snapshot and the new watch is seen now
        finally:
            if watcher.active:
                loop.remove_reader(watcher.fileno())
            watcher.close()

    def _check(self) -> GitSnapshot | None:
        """Snapshot first, then check against the baseline: a change between the two is
        checked now and again next time, never absorbed unchecked."""
        try:
            now = self.guard.snapshot()
        except (OSError, RuntimeError):
            return None  # the next tick (or the call's end) tries again
        before = self._get_baseline()
        if before is not None:
            self.checks += 1
            notes = self.guard.check(before)
            if notes:
                self._report(notes)
        self._set_baseline(now)
        return now

    @staticmethod
    def _watch_dirs(watcher: DirWatcher, snap: GitSnapshot | None) -> bool:
        """Watch every git dir of `snap` and the folders in it that hold what the check
        reads; True when a folder was newly watched."""
        added = False
        if snap is None or not watcher.active:
            return added
        for git_dir in snap.dirs:
            for path in (git_dir, *(os.path.join(git_dir, sub) for sub in _SUBDIRS)):
                if not watcher.watches(path) and os.path.isdir(path):
                    added = watcher.add(path) or added
        return added
