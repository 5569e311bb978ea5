"""A Bash call's processes: what to execute (`Launch`), starting it (`spawn`) and
ending it with everything it started (`terminate_call`, `end_leftovers`).

Foreground calls and background shells share these; unsandboxed, the processes
that left the call's process group are found by the call's token (`procs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .gitdirs import sweep_created
from .procs import call_processes, end_processes, signal_all

if TYPE_CHECKING:
    from .proxy import DomainProxy

__all__ = [
    "KILL_GRACE_S",
    "AfterCall",
    "Launch",
    "Spawned",
    "end_leftovers",
    "exit_trailer",
    "shielded_kill",
    "spawn",
    "sweep_note",
    "terminate_call",
    "terminate_group",
]

KILL_GRACE_S = 2.0
_ACTIVE_GROUPS: set[int] = set()


class AfterCall:
    """What to do once a call has ended, run at most once (a foreground call's result and
    its process's clean-up both ask); returns lines for the call's result."""

    def __init__(self, work: Callable[[], list[str]]) -> None:
        self._work: Callable[[], list[str]] | None = work

    def __call__(self) -> list[str]:
        work, self._work = self._work, None
        return [] if work is None else work()


@dataclass(frozen=True)
class Launch:
    """What to execute for one Bash call. `token` marks the call's processes.

    `fds` are handed to the child (the script, bwrap's arguments, the seccomp
    program) and closed in this process once it started (`release`);
    `watched` are paths the call must not create (`gitdirs.sweep_created`);
    `after` runs once when the call has ended (`AfterCall`: the git dirs it changed are
    checked) and returns lines for its result;
    `proxy` is the session's domain proxy when the call reaches the network through it;
    `history_hidden` says why git's object store is hidden in the call (`git_history`).
    """

    argv: list[str]
    env: dict[str, str]
    sandboxed: bool
    token: str
    network: bool = False
    unix_sockets: bool = True
    fds: list[int] = field(default_factory=list)
    watched: tuple[str, ...] = ()
    after: AfterCall | None = None
    proxy: DomainProxy | None = None
    history_hidden: str | None = None

    def release(self) -> None:
        """Close the descriptors meant for the child (idempotent)."""
        while self.fds:
            with contextlib.suppress(OSError):
                os.close(self.fds.pop())


def _signal_group(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def terminate_group(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the process group, then SIGKILL it after a grace period."""
    _signal_group(proc.pid, signal.SIGTERM)
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), KILL_GRACE_S)
    # Grandchildren may outlive the shell or ignore SIGTERM: always finish the group.
    _signal_group(proc.pid, signal.SIGKILL)
    await proc.wait()


async def terminate_call(proc: asyncio.subprocess.Process, launch: Launch) -> None:
    """End the call: its process group, and (unsandboxed) every process that left
    the group; in the sandbox, ending bwrap ends its PID namespace."""
    if launch.sandboxed:
        await terminate_group(proc)
        return
    escaped = call_processes(proc.pid, launch.token)
    signal_all(escaped, signal.SIGTERM)
    await terminate_group(proc)
    await end_processes(launch.token, 0.0, root=None, known=escaped)


def exit_trailer(returncode: int) -> str:
    """`exit: N`, or `exit: signal NAME` when the shell was killed by a signal."""
    if returncode < 0:
        try:
            return f"exit: signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"exit: signal {-returncode}"
    return f"exit: {returncode}"


@dataclass
class Spawned:
    """A started shell and the read ends of its pipes."""

    proc: asyncio.subprocess.Process
    out: asyncio.StreamReader
    err: asyncio.StreamReader
    transports: list[asyncio.BaseTransport]
    watched: tuple[str, ...] = ()
    after: AfterCall | None = None

    def close(self) -> None:
        """Forget the process group, close the pipes, remove the watched paths the call made
        and run its after-call checks (their lines are lost here: a background shell's)."""
        _ACTIVE_GROUPS.discard(self.proc.pid)
        for transport in self.transports:
            transport.close()
        sweep_created(self.watched)
        if self.after is not None:
            self.after()


def sweep_note(launch: Launch) -> str | None:
    """Remove what the call created of `launch.watched` and run its after-call checks;
    lines saying what they did, or None."""
    removed = sweep_created(launch.watched)
    lines = (
        [
            f"Bash: the sandbox removed {', '.join(removed)}: the command created it, and git outside the "
            "sandbox would read it (it can point git at another config)."
        ]
        if removed
        else []
    )
    if launch.after is not None:
        lines += launch.after()
    return "\n".join(lines) or None


async def spawn(launch: Launch, cwd: Path) -> Spawned:
    """Start `launch` in its own session with stdin closed; raises `OSError`."""
    # Our own pipes, not asyncio's PIPE: with asyncio's, `wait()` also waits for
    # the pipes to close, which a background grandchild can delay forever.
    try:
        out_r, out_w = os.pipe()
    except BaseException:
        launch.release()
        raise
    err_r, err_w = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *launch.argv,
            cwd=cwd,
            env=launch.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=out_w,
            stderr=err_w,
            start_new_session=True,
            pass_fds=tuple(launch.fds),
        )
    except BaseException:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
        launch.release()
    _ACTIVE_GROUPS.add(proc.pid)
    transports: list[asyncio.BaseTransport] = []
    try:
        try:
            out_stream = await _reader(out_r, transports)
        except BaseException:
            os.close(err_r)
            raise
        err_stream = await _reader(err_r, transports)
    except BaseException:
        await shielded_kill(proc, launch, [])
        _ACTIVE_GROUPS.discard(proc.pid)
        for transport in transports:
            transport.close()
        raise
    return Spawned(proc, out_stream, err_stream, transports, launch.watched, launch.after)


async def _reader(fd: int, transports: list[asyncio.BaseTransport]) -> asyncio.StreamReader:
    """An asyncio stream over the read end of a pipe (the fd is owned by the transport)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0)
        )
    except BaseException:
        with contextlib.suppress(OSError):
            os.close(fd)
        raise
    transports.append(transport)
    return reader


def end_leftovers(pgid: int, launch: Launch) -> None:
    """Background processes the command left behind are ended too (SIGTERM now,
    SIGKILL after the grace period); `run_in_background` is the way to keep one.
    In the sandbox the PID namespace already ended with the shell."""
    if launch.sandboxed:
        return
    _spawn_cleanup(end_processes(launch.token, KILL_GRACE_S, root=None))
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    asyncio.get_running_loop().call_later(KILL_GRACE_S, _late_kill, pgid)


_CLEANUPS: set[asyncio.Task[None]] = set()


def _spawn_cleanup(work: Coroutine[Any, Any, None]) -> None:
    task = asyncio.get_running_loop().create_task(work)
    _CLEANUPS.add(task)
    task.add_done_callback(_CLEANUPS.discard)


def _late_kill(pgid: int) -> None:
    # The shell was reaped, so its pid (= pgid) could in principle be reused by a
    # new Bash call's shell; never signal a group that a running call owns.
    if pgid not in _ACTIVE_GROUPS:
        _signal_group(pgid, signal.SIGKILL)


async def shielded_kill(proc: asyncio.subprocess.Process, launch: Launch, pumps: list[asyncio.Task[None]]) -> None:
    async def kill() -> None:
        await terminate_call(proc, launch)
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)

    task = asyncio.create_task(kill())
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.shield(task)
