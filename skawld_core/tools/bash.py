"""The Bash tool: a shell command, sandboxed when it can be, capped and killable with all it started."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..sandbox.policy import Launch, ShellPolicy, sandbox_denial_note
from ..sandbox.procs import call_processes, end_processes, signal_all
from .base import Tool, ToolContext, ToolResult
from .text_format import truncation_marker

DEFAULT_TIMEOUT_MS = 120_000
MIN_TIMEOUT_MS = 100
MAX_TIMEOUT_MS = 1_800_000
STREAM_CAP = 30_000
OUTPUT_CAP = 30_000
KILL_GRACE_S = 2.0
DRAIN_IDLE_S = 0.25
_ACTIVE_GROUPS: set[int] = set()


class BashInput(BaseModel):
    """Input of the Bash tool."""

    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, description="The shell command to run.")
    timeout_ms: int = Field(
        default=DEFAULT_TIMEOUT_MS,
        ge=MIN_TIMEOUT_MS,
        le=MAX_TIMEOUT_MS,
        description=f"Timeout in milliseconds (default {DEFAULT_TIMEOUT_MS}, max {MAX_TIMEOUT_MS}).",
    )
    description: str | None = Field(default=None, description="A short description of what the command does.")
    run_in_background: bool | None = Field(
        default=None,
        description="Start the command in the background and return at once with a shell id "
        "(read its output with BashOutput, end it with KillShell). For servers and watchers.",
    )


@dataclass
class _Capture:
    """Decoded text of one stream, kept up to `STREAM_CAP` chars; the rest is counted."""

    kept: list[str] = field(default_factory=list)
    kept_chars: int = 0
    dropped: int = 0
    decoder: codecs.IncrementalDecoder = field(
        default_factory=lambda: codecs.getincrementaldecoder("utf-8")(errors="replace")
    )

    def feed(self, data: bytes, final: bool = False) -> None:
        text = self.decoder.decode(data, final)
        room = STREAM_CAP - self.kept_chars
        if len(text) <= room:
            self.kept.append(text)
            self.kept_chars += len(text)
        else:
            self.kept.append(text[:room])
            self.kept_chars = STREAM_CAP
            self.dropped += len(text) - room

    def text(self) -> str:
        return "".join(self.kept)


async def _pump(stream: asyncio.StreamReader, capture: _Capture, progress: list[int]) -> None:
    while chunk := await stream.read(65536):
        progress[0] += 1
        capture.feed(chunk)
    capture.feed(b"", final=True)


def render_output(out: _Capture, err: _Capture, trailer: str, note: str | None = None) -> str:
    """The reference's shape: stdout, then `\n---\n` and stderr when stderr is not
    empty, then `\n` and the cut note, then `\n`, the optional `note` line and `\n`,
    then the trailer (`exit: N` or the timeout/abort line).

    The combined text is capped at `OUTPUT_CAP`; when both streams are long each
    keeps at least half of the budget, so stderr is never crowded out entirely.
    """
    stdout, stderr = out.text(), err.text()
    dropped = out.dropped + err.dropped
    sep = "\n---\n"
    if stderr:
        budget = OUTPUT_CAP - len(sep)
        if len(stdout) + len(stderr) > budget:
            keep_err = min(len(stderr), max(budget // 2, budget - len(stdout)))
            keep_out = budget - keep_err
            dropped += len(stdout) - min(len(stdout), keep_out) + len(stderr) - keep_err
            stdout, stderr = stdout[:keep_out], stderr[:keep_err]
        body = stdout + sep + stderr
    else:
        body = stdout
        if len(body) > OUTPUT_CAP:
            dropped += len(body) - OUTPUT_CAP
            body = body[:OUTPUT_CAP]
    if dropped:
        body += "\n" + truncation_marker(dropped)
    return "\n".join([body, note, trailer] if note else [body, trailer])


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


class BashTool(Tool[BashInput]):
    """Run a shell command; a non-zero exit is a normal result ending in `exit: N`."""

    name = "Bash"
    description = (
        "Run a shell command ($SHELL -c, else /bin/sh) in the working directory with stdin closed. "
        f"Output is stdout, then '---' and stderr; each is capped at {STREAM_CAP} characters, and the "
        "last line is 'exit: <code>'. A non-zero exit is not an error. The command is killed (with every "
        f"process it started) after timeout_ms (default {DEFAULT_TIMEOUT_MS} ms). No interactive input. "
        "For servers and watchers set run_in_background. It may run in a sandbox: writes outside the "
        "project and /tmp, and network access, can then fail (the result says so)."
    )
    scope = "exec"
    parallel_safe = False
    input_model = BashInput

    def summarize(self, value: BashInput) -> str:
        """The description, or `Bash: <first 60 chars>…`."""
        if value.description:
            return value.description
        cmd = value.command
        return f"Bash: {cmd[:60]}…" if len(cmd) > 60 else f"Bash: {cmd}"

    async def execute(self, value: BashInput, ctx: ToolContext) -> ToolResult:
        """Spawn, stream both pipes, and end every process of the call on exit,
        timeout or cancellation (or hand it to the session's background shells)."""
        summary = self.summarize(value)
        policy = shell_policy(ctx)
        launch = policy.launch(value.command, ctx.cwd, ctx.session_id)
        if isinstance(launch, str):
            return ToolResult(content=launch, summary=summary, is_error=True)
        if value.run_in_background:
            from .background import start_background

            return await start_background(policy, launch, value.command, ctx, summary)
        try:
            spawned = await spawn(launch, ctx.cwd)
        except OSError as exc:
            return ToolResult(content=f"Bash: spawn error: {exc}", summary=summary, is_error=True)
        try:
            return await self._supervise(spawned.proc, launch, spawned.out, spawned.err, value, summary)
        finally:
            spawned.close()

    async def _supervise(
        self,
        proc: asyncio.subprocess.Process,
        launch: Launch,
        out_stream: asyncio.StreamReader,
        err_stream: asyncio.StreamReader,
        value: BashInput,
        summary: str,
    ) -> ToolResult:
        out, err, progress = _Capture(), _Capture(), [0]
        pumps = [
            asyncio.create_task(_pump(out_stream, out, progress)),
            asyncio.create_task(_pump(err_stream, err, progress)),
        ]
        try:
            async with asyncio.timeout(value.timeout_ms / 1000):
                returncode = await proc.wait()
                _end_leftovers(proc.pid, launch)
                await _drain(pumps, progress)
        except TimeoutError:
            await terminate_call(proc, launch)
            await _drain(pumps, progress)
            text = render_output(out, err, f"Bash: timed out after {value.timeout_ms} ms.")
            return ToolResult(content=text, summary=summary, is_error=True)
        except asyncio.CancelledError:
            await _shielded_kill(proc, launch, pumps)
            raise
        note = None
        if launch.sandboxed and returncode != 0:
            note = sandbox_denial_note(err.text(), network=launch.network)
        return ToolResult(content=render_output(out, err, exit_trailer(returncode), note), summary=summary)


@dataclass
class Spawned:
    """A started shell and the read ends of its pipes."""

    proc: asyncio.subprocess.Process
    out: asyncio.StreamReader
    err: asyncio.StreamReader
    transports: list[asyncio.BaseTransport]

    def close(self) -> None:
        """Forget the process group and close the pipes."""
        _ACTIVE_GROUPS.discard(self.proc.pid)
        for transport in self.transports:
            transport.close()


async def spawn(launch: Launch, cwd: Path) -> Spawned:
    """Start `launch` in its own session with stdin closed; raises `OSError`."""
    # Our own pipes, not asyncio's PIPE: with asyncio's, `wait()` also waits for
    # the pipes to close, which a background grandchild can delay forever.
    out_r, out_w = os.pipe()
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
        )
    except BaseException:
        for fd in (out_r, err_r):
            os.close(fd)
        raise
    finally:
        os.close(out_w)
        os.close(err_w)
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
        await _shielded_kill(proc, launch, [])
        _ACTIVE_GROUPS.discard(proc.pid)
        for transport in transports:
            transport.close()
        raise
    return Spawned(proc, out_stream, err_stream, transports)


def shell_policy(ctx: ToolContext) -> ShellPolicy:
    """The policy for this call: `ctx.extras["shell_policy"]`, else the session's
    agent's, else the default (no sandbox, secrets scrubbed from the environment)."""
    policy = ctx.extras.get("shell_policy")
    if isinstance(policy, ShellPolicy):
        return policy
    agent = getattr(ctx.extras.get("session"), "agent", None)
    policy = getattr(agent, "shell_policy", None)
    return policy if isinstance(policy, ShellPolicy) else _DEFAULT_POLICY


_DEFAULT_POLICY = ShellPolicy(sandbox="off")


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


def _end_leftovers(pgid: int, launch: Launch) -> None:
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


async def _drain(pumps: list[asyncio.Task[None]], progress: list[int]) -> None:
    """Read the pipes to EOF; stop once they go quiet (a background child may hold them)."""
    while True:
        before = progress[0]
        _, pending = await asyncio.wait(pumps, timeout=DRAIN_IDLE_S)
        if not pending:
            return
        if progress[0] == before:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            return


async def _shielded_kill(proc: asyncio.subprocess.Process, launch: Launch, pumps: list[asyncio.Task[None]]) -> None:
    async def kill() -> None:
        await terminate_call(proc, launch)
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)

    task = asyncio.create_task(kill())
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.shield(task)
