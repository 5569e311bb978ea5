"""One writer per session: who holds a session's writer lock, whether that
process is still alive, and the errors a second writer or a fenced one gets.

A run (and the resume that loads and repairs a session) holds the session's
writer lock (`RunGuardStore.run_guard`). Taking it bumps the session's writer
*epoch*; every append made while it is held carries that epoch, and the store
refuses an append whose epoch is no longer the session's (`SessionFencedError`):
a writer that lost its lock (a dead lock connection, a takeover after it was
judged dead) cannot write.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError, SessionStoreError


@dataclass(frozen=True)
class WriterIdentity:
    """The process holding a session's writer lock: pid, host and the pid's start
    time (so a reused pid is not mistaken for the holder)."""

    pid: int
    host: str
    started: str = ""

    def describe(self) -> str:
        return f"pid {self.pid} on host {self.host}"


def this_process() -> WriterIdentity:
    """The identity of the calling process."""
    return WriterIdentity(pid=os.getpid(), host=socket.gethostname(), started=process_start(os.getpid()))


def process_start(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), or ``""`` when unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # The command name (field 2) may hold spaces and parentheses: split after its last ")".
    fields = stat[stat.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else ""


def is_alive(owner: WriterIdentity) -> bool:
    """Whether `owner` may still be running. A process on another host cannot be
    checked and counts as alive; here a zombie, a missing pid or a pid reused by a
    process started later counts as dead."""
    if owner.host != socket.gethostname():
        return True
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, owned by another user
    try:
        state = Path(f"/proc/{owner.pid}/stat").read_text()
    except OSError:
        return True  # no /proc (not Linux): kill(0) is all we know
    if state[state.rfind(")") + 2 :].startswith("Z"):
        return False
    return not owner.started or process_start(owner.pid) == owner.started


async def release_fully(release: Awaitable[None]) -> None:
    """Run a lock release to its end even when the caller is cancelled meanwhile (then
    re-raise the cancel): a half-finished release must not outlive its run."""
    task = asyncio.ensure_future(release)
    try:
        await asyncio.shield(task)
    except asyncio.CancelledError:
        await task
        raise


class SessionBusyError(ConfigError):
    """Another process holds the session's writer lock (it is running there)."""

    def __init__(self, session_id: str, owner: WriterIdentity | None) -> None:
        where = owner.describe() if owner is not None else "pid unknown"
        super().__init__(f"session {session_id[:8]} is running in another process ({where})")
        self.session_id = session_id
        self.owner = owner


class SessionFencedError(SessionStoreError):
    """This writer no longer holds the session's writer lock; nothing was written."""

    def __init__(self, session_id: str, reason: str = "another process took the session over") -> None:
        super().__init__(
            f"session {session_id[:8]}: this run no longer holds the session's writer lock ({reason}); "
            "stopped without writing"
        )
        self.session_id = session_id
