"""Background shells: the commands `Bash(run_in_background=true)` started in a session.

A background shell is started like a foreground Bash call (same permission
decision, sandbox and clean environment) but returns at once with an id. Its
output is buffered up to `BUFFER_CAP` characters per stream; when more arrives
before it is read, the oldest is dropped and the next read says how much. At
most `MAX_SHELLS` run per session. A shell lives for the session, across runs:
it ends when its command exits, by `KillShell` or `/bashes kill`, or when the
session ends (`ShellPolicy.end_background`: `/clear`, another session opened,
the agent closed; headless, the process ending). When one exits on its own,
`take_exits` hands the next request a reminder for the model (id, exit code,
tail of its output), as Claude Code does. The tools that read and end them are in
`skawld_core.tools.background`.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import time
from collections import deque
from dataclasses import dataclass, field

from .spawn import Launch, Spawned, end_leftovers, exit_trailer, terminate_call

__all__ = ["BUFFER_CAP", "MAX_SHELLS", "BackgroundShell", "BackgroundShells"]

MAX_SHELLS = 8
BUFFER_CAP = 100_000
TAIL_CHARS = 1_000  # of each stream, in the reminder that a shell exited


@dataclass
class _Ring:
    """Unread text, at most `BUFFER_CAP` chars; what is pushed out is counted."""

    parts: deque[str] = field(default_factory=deque)
    size: int = 0
    dropped: int = 0
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )

    def feed(self, data: bytes, final: bool = False) -> None:
        text = self.decoder.decode(data, final)
        if not text:
            return
        self.parts.append(text)
        self.size += len(text)
        while self.size > BUFFER_CAP:
            over = self.size - BUFFER_CAP
            head = self.parts[0]
            if len(head) <= over:
                self.parts.popleft()
                self.size -= len(head)
                self.dropped += len(head)
            else:
                self.parts[0] = head[over:]
                self.size -= over
                self.dropped += over

    def tail(self, limit: int) -> str:
        """The last `limit` unread characters, without consuming them."""
        text = "".join(self.parts)
        return text[-limit:]

    def take(self) -> tuple[str, int]:
        text, dropped = "".join(self.parts), self.dropped
        self.parts.clear()
        self.size = self.dropped = 0
        return text, dropped


class BackgroundShell:
    """One background command: its process, buffers and exit status."""

    def __init__(self, shell_id: str, command: str, spawned: Spawned, launch: Launch) -> None:
        self.id = shell_id
        self.command = command
        self.spawned = spawned
        self.launch = launch
        self.out, self.err = _Ring(), _Ring()
        self.returncode: int | None = None
        self.killed = False
        self.reported = False
        self.started = time.monotonic()
        self._pumps = [
            asyncio.create_task(_pump(spawned.out, self.out)),
            asyncio.create_task(_pump(spawned.err, self.err)),
        ]
        self._waiter = asyncio.create_task(self._wait())

    @property
    def running(self) -> bool:
        return self.returncode is None

    async def _wait(self) -> None:
        self.returncode = await self.spawned.proc.wait()
        end_leftovers(self.spawned.proc.pid, self.launch)
        # The pipes close when the last writer ends; a writer left behind is being ended.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._pumps, return_exceptions=True), 5.0)
        self.spawned.close()

    def take(self) -> tuple[str, str, int]:
        """Stdout and stderr text that arrived since the last take, and how many
        characters were dropped unread (the buffers were full)."""
        stdout, out_dropped = self.out.take()
        stderr, err_dropped = self.err.take()
        return stdout, stderr, out_dropped + err_dropped

    def status(self) -> str:
        """`status: running`, `status: killed` or the `exit: N` line."""
        if self.running:
            return "status: running"
        if self.killed:
            return "status: killed"
        return exit_trailer(self.returncode if self.returncode is not None else -1)

    def exit_reminder(self) -> str:
        """What the model is told when the shell exited on its own."""
        tail = (self.out.tail(TAIL_CHARS) + ("\n---\n" + self.err.tail(TAIL_CHARS) if self.err.size else "")).strip()
        lines = [
            f"Background shell {self.id} (command: {self.command}) has exited with exit code {self.returncode}.",
        ]
        if tail:
            lines.append(f"Tail of its unread output:\n{tail}")
        lines.append(f"BashOutput with shell_id {self.id} reads all of its unread output.")
        return "\n".join(lines)

    async def kill(self) -> None:
        """End the shell and every process it started."""
        if self.running:
            self.killed = True
            await terminate_call(self.spawned.proc, self.launch)
        await asyncio.shield(self._waiter)


async def _pump(stream: asyncio.StreamReader, ring: _Ring) -> None:
    while chunk := await stream.read(65536):
        ring.feed(chunk)
    ring.feed(b"", final=True)


class BackgroundShells:
    """The background shells of one session."""

    def __init__(self) -> None:
        self._shells: dict[str, BackgroundShell] = {}
        self._next = 1

    def get(self, shell_id: str) -> BackgroundShell | None:
        return self._shells.get(shell_id)

    def list(self) -> list[BackgroundShell]:
        """Every shell of the session, oldest first (finished ones too, until closed)."""
        return list(self._shells.values())

    @property
    def running(self) -> int:
        return sum(1 for s in self._shells.values() if s.running)

    def add(self, command: str, spawned: Spawned, launch: Launch) -> BackgroundShell:
        shell = BackgroundShell(f"bash_{self._next}", command, spawned, launch)
        self._next += 1
        self._shells[shell.id] = shell
        return shell

    def take_exits(self) -> tuple[str, ...]:
        """Reminders for shells that exited on their own since the last call
        (each is reported once; killed shells are not reported)."""
        exited = [s for s in self._shells.values() if not s.running and not s.killed and not s.reported]
        for shell in exited:
            shell.reported = True
        return tuple(shell.exit_reminder() for shell in exited)

    async def close(self) -> tuple[BackgroundShell, ...]:
        """Kill every shell (concurrently) and forget them; returns those that were still running."""
        shells, self._shells = list(self._shells.values()), {}
        running = tuple(s for s in shells if s.running)
        await asyncio.gather(*(s.kill() for s in shells), return_exceptions=True)
        return running
