"""Finding and ending every process a Bash call started, without a sandbox.

`setsid` and `set -m; cmd &` leave the shell's process group, so `killpg`
misses them. Two things find them anyway:

- skawld makes itself a child subreaper (`prctl(PR_SET_CHILD_SUBREAPER)`), so
  a descendant whose parent died becomes skawld's child instead of init's;
- every Bash call exports a unique `SKAWLD_BASH_CALL` token, so such an
  adopted orphan can be told apart from skawld's other children.

A call's processes are the shell's descendants plus the adopted children that
carry its token, plus their descendants. A process that both cleared its
environment and lost its parent is out of reach (the sandbox's PID namespace
has no such gap). Zombies count as dead (PID 1 here does not reap, and `kill(pid,
0)` succeeds on a zombie); adopted ones are reaped by us.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Iterable

__all__ = [
    "CALL_TOKEN_VAR",
    "call_processes",
    "enable_subreaper",
    "end_processes",
    "is_alive",
    "process_table",
    "signal_all",
]

CALL_TOKEN_VAR = "SKAWLD_BASH_CALL"
_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None
_QUIET_SCANS = 3


def enable_subreaper() -> bool:
    """Make this process a child subreaper (Linux; once per process). True when on."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            import ctypes

            try:
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper = False
    return _subreaper


def _stat(pid: int) -> tuple[int, str] | None:
    """(ppid, state) from /proc/<pid>/stat, or None when the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    fields = data.rsplit(b")", 1)[-1].split()
    try:
        return int(fields[1]), fields[0].decode()
    except (IndexError, ValueError):
        return None


def is_alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    st = _stat(pid)
    return st is not None and st[1] not in ("Z", "X")


def process_table() -> dict[int, tuple[int, str]]:
    """pid -> (ppid, state) for every process visible in /proc."""
    table: dict[int, tuple[int, str]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                table[int(name)] = st
    return table


def _has_token(pid: int, token: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return token in fh.read().split(b"\0")
    except OSError:
        return False


def _children(pid: int) -> list[int] | None:
    """Direct children from /proc/<pid>/task/*/children; None when the kernel
    does not offer that file (then the caller scans the whole table)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    out: list[int] = []
    seen_file = False
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                out.extend(int(x) for x in fh.read().split())
            seen_file = True
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            seen_file = True
    return out if seen_file or not tasks else None


def call_processes(root: int | None, token: str) -> set[int]:
    """Live processes of one Bash call: `root` (the shell, while asyncio has not
    reaped it) and adopted orphans carrying `token`, with their descendants.

    Reads only this process's and the call's entries of /proc (a full scan of
    /proc is slow on some kernels), unless the `children` files are missing.
    """
    marker = f"{CALL_TOKEN_VAR}={token}".encode()
    me = os.getpid()
    mine = _children(me) if enable_subreaper() else None
    if mine is None:
        return _call_processes_by_table(root, marker)
    roots = {p for p in mine if p != root and _has_token(p, marker)}
    if root is not None:
        roots.add(root)
    found: set[int] = set()
    stack = list(roots)
    while stack:
        pid = stack.pop()
        if pid in found or pid == me:
            continue
        kids = _children(pid)
        if kids is None:
            return _call_processes_by_table(root, marker)
        found.add(pid)
        stack.extend(kids)
    return {p for p in found if is_alive(p)}


def _call_processes_by_table(root: int | None, marker: bytes) -> set[int]:
    table = process_table()
    me = os.getpid()
    # Without the subreaper, orphans go to init: look at every process then.
    candidates = [p for p, (pp, _) in table.items() if pp == me] if enable_subreaper() else list(table)
    roots = {p for p in candidates if p != root and _has_token(p, marker)}
    if root is not None:
        roots.add(root)
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    stack = [r for r in roots if r in table]
    while stack:
        pid = stack.pop()
        if pid in found or pid == me:
            continue
        found.add(pid)
        stack.extend(children.get(pid, ()))
    return {p for p in found if table[p][1] not in ("Z", "X")}


def signal_all(pids: Iterable[int], sig: signal.Signals) -> None:
    """Send `sig` to every pid as if at once: all are stopped first, so a shell
    cannot see its child die and run the script's next command before its own
    signal arrives (we may be preempted between two `kill` calls)."""
    pids = list(pids)
    if sig != signal.SIGKILL:
        _signal(pids, signal.SIGSTOP)
    _signal(pids, sig)
    if sig != signal.SIGKILL:
        _signal(pids, signal.SIGCONT)


def _signal(pids: Iterable[int], sig: signal.Signals) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _reap(pids: Iterable[int]) -> None:
    """Collect adopted children that have died (never the ones asyncio waits for)."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


async def end_processes(token: str, grace_s: float, *, root: int | None = None, known: Iterable[int] = ()) -> None:
    """SIGTERM the call's processes (and `known` ones found earlier), SIGKILL
    what is left after `grace_s`, and reap the adopted ones.

    /proc is scanned until several scans in a row find nothing new: a process
    caught between fork and exit can be missed by a single scan. `root` is
    never reaped here (asyncio owns the shell). Cancelled while waiting (the
    event loop is shutting down), it SIGKILLs at once.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    pids = {p for p in known if is_alive(p)}
    signal_all(pids, signal.SIGTERM)
    quiet, delay = 0, 0.005
    try:
        while True:
            fresh = call_processes(root, token) - pids
            if fresh:
                signal_all(fresh, signal.SIGTERM)
                pids |= fresh
                quiet = 0
            else:
                quiet += 1
            settled = quiet >= _QUIET_SCANS
            if (settled and not any(is_alive(p) for p in pids)) or (loop.time() >= deadline and quiet):
                break
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)
    finally:
        for _ in range(_QUIET_SCANS):
            pids |= call_processes(root, token)
            _signal([p for p in pids if is_alive(p)], signal.SIGKILL)
    adopted = [p for p in pids if p != root]
    for _ in range(100):
        _reap(adopted)
        if not any(_pending(p) for p in adopted):
            return
        await asyncio.sleep(0.01)


def _pending(pid: int) -> bool:
    """Still running, or a zombie of ours that has not been reaped yet."""
    st = _stat(pid)
    return st is not None and (st[1] not in ("Z", "X") or st[0] == os.getpid())
