"""The Bash tool: a shell command in its own process group, capped and killable."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import signal
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

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


def _with_newline(text: str) -> str:
    return text if text == "" or text.endswith("\n") else text + "\n"


def render_output(out: _Capture, err: _Capture, trailer: str) -> str:
    """stdout, then `---` and stderr, the cut note, then the trailer.

    The combined text is capped at `OUTPUT_CAP`; when both streams are long each
    keeps at least half of the budget, so stderr is never crowded out entirely.
    """
    stdout, stderr = out.text(), err.text()
    dropped = out.dropped + err.dropped
    sep = "---\n"
    if stderr:
        stdout = _with_newline(stdout)
        budget = OUTPUT_CAP - len(sep)
        if len(stdout) + len(stderr) > budget:
            keep_err = min(len(stderr), max(budget // 2, budget - len(stdout)))
            keep_out = budget - keep_err
            dropped += len(stdout) - min(len(stdout), keep_out) + len(stderr) - keep_err
            stdout, stderr = stdout[:keep_out], stderr[:keep_err]
        body = _with_newline(stdout) + sep + stderr if stdout else sep + stderr
    else:
        body = stdout
        if len(body) > OUTPUT_CAP:
            dropped += len(body) - OUTPUT_CAP
            body = body[:OUTPUT_CAP]
    if dropped:
        body = _with_newline(body) + truncation_marker(dropped)
    return _with_newline(body) + trailer


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
        "last line is 'exit: <code>'. A non-zero exit is not an error. The command is killed (with its "
        f"whole process group) after timeout_ms (default {DEFAULT_TIMEOUT_MS} ms). No interactive input."
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
        """Spawn, stream both pipes, and kill the group on timeout or cancellation."""
        summary = self.summarize(value)
        shell = os.environ.get("SHELL") or "/bin/sh"
        # Our own pipes, not asyncio's PIPE: with asyncio's, `wait()` also waits for
        # the pipes to close, which a background grandchild can delay forever.
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                shell,
                "-c",
                value.command,
                cwd=ctx.cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=out_w,
                stderr=err_w,
                start_new_session=True,
            )
        except OSError as exc:
            for fd in (out_r, err_r):
                os.close(fd)
            return ToolResult(content=f"Bash: spawn error: {exc}", summary=summary, is_error=True)
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
            await _shielded_kill(proc, [])
            _ACTIVE_GROUPS.discard(proc.pid)
            for transport in transports:
                transport.close()
            raise
        try:
            return await self._supervise(proc, out_stream, err_stream, value, summary)
        finally:
            _ACTIVE_GROUPS.discard(proc.pid)
            for transport in transports:
                transport.close()

    async def _supervise(
        self,
        proc: asyncio.subprocess.Process,
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
                _end_leftovers(proc.pid)
                await _drain(pumps, progress)
        except TimeoutError:
            await terminate_group(proc)
            await _drain(pumps, progress)
            text = render_output(out, err, f"Bash: timed out after {value.timeout_ms} ms.")
            return ToolResult(content=text, summary=summary, is_error=True)
        except asyncio.CancelledError:
            await _shielded_kill(proc, pumps)
            raise
        return ToolResult(content=render_output(out, err, exit_trailer(returncode)), summary=summary)


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


def _end_leftovers(pgid: int) -> None:
    """Background processes the command left in its group are ended too (SIGTERM
    now, SIGKILL after the grace period): there is no background-run option."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return
    asyncio.get_running_loop().call_later(KILL_GRACE_S, _late_kill, pgid)


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


async def _shielded_kill(proc: asyncio.subprocess.Process, pumps: list[asyncio.Task[None]]) -> None:
    async def kill() -> None:
        await terminate_group(proc)
        for task in pumps:
            task.cancel()
        await asyncio.gather(*pumps, return_exceptions=True)

    task = asyncio.create_task(kill())
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.shield(task)
