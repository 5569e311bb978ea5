"""Background shells: `Bash(run_in_background=true)`, `BashOutput`, `KillShell`.

A background shell is started like a foreground Bash call (same permission
decision, sandbox and clean environment) but returns at once with an id. Its
output is buffered up to `BUFFER_CAP` characters per stream; when more arrives
before it is read, the oldest is dropped and the next read says how much. At
most `MAX_SHELLS` run per session; all of a session's shells end (with every
process they started) when its run ends, and all of an agent's when it closes.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import re
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from .base import Tool, ToolContext, ToolResult

if TYPE_CHECKING:
    from ..sandbox.policy import Launch, ShellPolicy
    from .bash import Spawned

__all__ = ["BUFFER_CAP", "MAX_SHELLS", "BackgroundShells", "BashOutputTool", "KillShellTool", "start_background"]

MAX_SHELLS = 8
BUFFER_CAP = 100_000


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
        from .bash import _end_leftovers

        self.returncode = await self.spawned.proc.wait()
        _end_leftovers(self.spawned.proc.pid, self.launch)
        # The pipes close when the last writer ends; a writer left behind is being ended.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*self._pumps, return_exceptions=True), 5.0)
        self.spawned.close()

    def read(self, pattern: re.Pattern[str] | None = None) -> str:
        """New output since the last read, then `status: running` or the exit line."""
        from .text_format import truncation_marker

        stdout, out_dropped = self.out.take()
        stderr, err_dropped = self.err.take()
        if pattern is not None:
            stdout, stderr = _grep(stdout, pattern), _grep(stderr, pattern)
        body = stdout + ("\n---\n" + stderr if stderr else "")
        lines = [body]
        if out_dropped or err_dropped:
            lines.append(f"{truncation_marker(out_dropped + err_dropped)} (oldest output dropped)")
        lines.append(self.status())
        return "\n".join(lines)

    def status(self) -> str:
        """`status: running`, `status: killed` or the `exit: N` line."""
        from .bash import exit_trailer

        if self.running:
            return "status: running"
        if self.killed:
            return "status: killed"
        return exit_trailer(self.returncode if self.returncode is not None else -1)

    async def kill(self) -> None:
        """End the shell and every process it started."""
        from .bash import terminate_call

        if self.running:
            self.killed = True
            await terminate_call(self.spawned.proc, self.launch)
        await asyncio.shield(self._waiter)


def _grep(text: str, pattern: re.Pattern[str]) -> str:
    kept = [line for line in text.splitlines(keepends=True) if pattern.search(line)]
    return "".join(kept)


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

    async def close(self) -> tuple[BackgroundShell, ...]:
        """Kill every shell (concurrently) and forget them; returns those that were still running."""
        shells, self._shells = list(self._shells.values()), {}
        running = tuple(s for s in shells if s.running)
        await asyncio.gather(*(s.kill() for s in shells), return_exceptions=True)
        return running


async def start_background(
    policy: ShellPolicy, launch: Launch, command: str, ctx: ToolContext, summary: str
) -> ToolResult:
    """Start `launch` as a background shell of the call's session."""
    from .bash import spawn

    shells = policy.background(ctx.session_id)
    if shells.running >= MAX_SHELLS:
        text = f"Bash: {MAX_SHELLS} background shells are already running; end one with KillShell first."
        return ToolResult(content=text, summary=summary, is_error=True)
    try:
        spawned = await spawn(launch, ctx.cwd)
    except OSError as exc:
        return ToolResult(content=f"Bash: spawn error: {exc}", summary=summary, is_error=True)
    shell = shells.add(command, spawned, launch)
    text = (
        f"Started background shell {shell.id}. Read its output with BashOutput "
        f'(shell_id "{shell.id}"); end it with KillShell. It ends when this run ends.'
    )
    return ToolResult(content=text, summary=summary)


class BashOutputInput(BaseModel):
    """Input of the BashOutput tool."""

    model_config = ConfigDict(extra="forbid")

    shell_id: str = Field(min_length=1, description="The id Bash returned for a background shell.")
    filter: str | None = Field(default=None, description="Only return lines matching this regular expression.")


class BashOutputTool(Tool[BashOutputInput]):
    """The output a background shell produced since the last read."""

    name = "BashOutput"
    description = (
        "Read the new output of a background shell started with Bash(run_in_background=true): stdout, then "
        "'---' and stderr, then 'status: running' or 'exit: <code>'. Optional filter: a regular expression "
        "that lines must match (other lines are discarded)."
    )
    scope = "read"
    parallel_safe = True
    input_model = BashOutputInput

    def summarize(self, value: BashOutputInput) -> str:
        return f"BashOutput {value.shell_id}"

    async def execute(self, value: BashOutputInput, ctx: ToolContext) -> ToolResult:
        from .bash import shell_policy

        summary = self.summarize(value)
        pattern = None
        if value.filter is not None:
            try:
                pattern = re.compile(value.filter)
            except re.error as exc:
                return ToolResult(content=f"BashOutput: invalid filter: {exc}", summary=summary, is_error=True)
        shell = shell_policy(ctx).background(ctx.session_id).get(value.shell_id)
        if shell is None:
            return ToolResult(content=f"BashOutput: no shell {value.shell_id!r}", summary=summary, is_error=True)
        await asyncio.sleep(0)  # let pending pipe reads land
        return ToolResult(content=shell.read(pattern), summary=summary)


class KillShellInput(BaseModel):
    """Input of the KillShell tool."""

    model_config = ConfigDict(extra="forbid")

    shell_id: str = Field(min_length=1, description="The id of the background shell to end.")


class KillShellTool(Tool[KillShellInput]):
    """End a background shell and everything it started."""

    name = "KillShell"
    description = "End a background shell (and every process it started) by its id."
    scope = "read"
    parallel_safe = False
    input_model = KillShellInput

    def summarize(self, value: KillShellInput) -> str:
        return f"KillShell {value.shell_id}"

    async def execute(self, value: KillShellInput, ctx: ToolContext) -> ToolResult:
        from .bash import shell_policy

        summary = self.summarize(value)
        shell = shell_policy(ctx).background(ctx.session_id).get(value.shell_id)
        if shell is None:
            return ToolResult(content=f"KillShell: no shell {value.shell_id!r}", summary=summary, is_error=True)
        if not shell.running:
            return ToolResult(content=f"Shell {shell.id} had already ended ({shell.status()}).", summary=summary)
        await shell.kill()
        return ToolResult(content=f"Killed shell {shell.id}.", summary=summary)
