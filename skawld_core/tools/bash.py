"""The Bash tool: a shell command, sandboxed when it can be, capped and killable with all it started."""

from __future__ import annotations

import asyncio
import codecs
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import ConfigDict, Field

from ..model_base import SkawldModel
from ..sandbox.policy import ShellPolicy, history_note, proxy_note, sandbox_denial_note
from ..sandbox.shells import MAX_SHELLS
from ..sandbox.spawn import Launch, end_leftovers, exit_trailer, shielded_kill, spawn, sweep_note, terminate_call
from .base import Tool, ToolContext, ToolResult
from .text_format import truncation_marker

DEFAULT_TIMEOUT_MS = 120_000
MIN_TIMEOUT_MS = 100
MAX_TIMEOUT_MS = 1_800_000
STREAM_CAP = 30_000
OUTPUT_CAP = 30_000
DRAIN_IDLE_S = 0.25


class BashInput(SkawldModel):
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

    def feed(self, data: bytes, final: bool = False) -> str:
        """Keep what fits of `data`; the decoded text (all of it, kept or not)."""
        text = self.decoder.decode(data, final)
        room = STREAM_CAP - self.kept_chars
        if len(text) <= room:
            self.kept.append(text)
            self.kept_chars += len(text)
        else:
            self.kept.append(text[:room])
            self.kept_chars = STREAM_CAP
            self.dropped += len(text) - room
        return text

    def text(self) -> str:
        return "".join(self.kept)


async def _pump(
    stream: asyncio.StreamReader, capture: _Capture, progress: list[int], seen: Callable[[str], None]
) -> None:
    while chunk := await stream.read(65536):
        progress[0] += 1
        if text := capture.feed(chunk):
            seen(text)
    if text := capture.feed(b"", final=True):
        seen(text)


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

    def output_seen(self, ctx: ToolContext, text: str) -> None:
        """Called with each piece of a foreground call's stdout and stderr as it arrives (a hook
        for live display; it must not block). The default does nothing."""

    async def execute(self, value: BashInput, ctx: ToolContext) -> ToolResult:
        """Spawn, stream both pipes, and end every process of the call on exit,
        timeout or cancellation (or hand it to the session's background shells)."""
        summary = self.summarize(value)
        policy = shell_policy(ctx)
        launch = policy.launch(value.command, ctx.cwd, ctx.session_id)
        if isinstance(launch, str):
            return ToolResult(content=launch, summary=summary, is_error=True)
        if value.run_in_background:
            return await _start_background(policy, launch, value.command, ctx, summary)
        try:
            spawned = await spawn(launch, ctx.cwd)
        except OSError as exc:
            return ToolResult(content=f"Bash: spawn error: {exc}", summary=summary, is_error=True)
        try:
            seen = functools.partial(self.output_seen, ctx)
            return await self._supervise(spawned.proc, launch, spawned.out, spawned.err, value, summary, seen)
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
        seen: Callable[[str], None],
    ) -> ToolResult:
        out, err, progress = _Capture(), _Capture(), [0]
        pumps = [
            asyncio.create_task(_pump(out_stream, out, progress, seen)),
            asyncio.create_task(_pump(err_stream, err, progress, seen)),
        ]
        try:
            async with asyncio.timeout(value.timeout_ms / 1000):
                returncode = await proc.wait()
                end_leftovers(proc.pid, launch)
                await _drain(pumps, progress)
        except TimeoutError:
            await terminate_call(proc, launch)
            await _drain(pumps, progress)
            text = render_output(out, err, f"Bash: timed out after {value.timeout_ms} ms.")
            return ToolResult(content=text, summary=summary, is_error=True)
        except asyncio.CancelledError:
            await shielded_kill(proc, launch, pumps)
            raise
        note = None
        if launch.sandboxed and returncode != 0:
            note = sandbox_denial_note(err.text(), network=launch.network, unix_sockets=launch.unix_sockets)
            note = note or history_note(launch)
        swept = sweep_note(launch)
        if swept is not None:
            note = swept if note is None else f"{note}\n{swept}"
        refused = proxy_note(launch)
        if refused is not None:
            note = refused if note is None else f"{note}\n{refused}"
        return ToolResult(content=render_output(out, err, exit_trailer(returncode), note), summary=summary)


def shell_policy(ctx: ToolContext) -> ShellPolicy:
    """The policy for this call: `ctx.extras["shell_policy"]`, else the session's
    agent's, else the default (no sandbox, secrets scrubbed from the environment)."""
    policy = ctx.extras.get("shell_policy")
    if isinstance(policy, ShellPolicy):
        return policy
    agent = getattr(ctx.extras.get("session"), "agent", None)
    policy = getattr(agent, "shell_policy", None)
    return policy if isinstance(policy, ShellPolicy) else _default_policy()


@functools.cache
def _default_policy() -> ShellPolicy:
    # built on first use: a policy validates its sandbox settings, which start-up need not pay for
    return ShellPolicy(sandbox="off")


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


async def _start_background(
    policy: ShellPolicy, launch: Launch, command: str, ctx: ToolContext, summary: str
) -> ToolResult:
    """Start `launch` as a background shell of the call's session."""
    shells = policy.background(ctx.session_id)
    if shells.running >= MAX_SHELLS:
        launch.release()
        text = f"Bash: {MAX_SHELLS} background shells are already running; end one with KillShell first."
        return ToolResult(content=text, summary=summary, is_error=True)
    try:
        spawned = await spawn(launch, ctx.cwd)
    except OSError as exc:
        return ToolResult(content=f"Bash: spawn error: {exc}", summary=summary, is_error=True)
    shell = shells.add(command, spawned, launch)
    policy.watch_git(ctx.session_id)
    text = (
        f"Started background shell {shell.id}. Read its output with BashOutput "
        f'(shell_id "{shell.id}"); end it with KillShell. It ends when this run ends.'
    )
    return ToolResult(content=text, summary=summary)
