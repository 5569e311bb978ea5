"""What both headless dialects share (``skawld -p``): the options of one invocation,
the exit codes, the runner's prompt queue, signals and stop logic (`RunnerBase`), which
session it opens, the fail-closed permission answer and ``--tools``.

`HeadlessOptions` is built once, by `skawld_tui.cli.command`, from the parsed command line, and
`skawld_tui.headless.run.run_headless` runs it; its `dialect` picks the runner: ``"skawld"``
(`skawld_tui.headless.skawld_runner`: ``--json`` events or text) or ``"claude"``
(`skawld_tui.headless.claude_runner`: ``--output-format json|stream-json`` and
``--input-format stream-json``, Claude Code's dialect).
"""

from __future__ import annotations

import asyncio
import signal
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Generic, Literal, TypeVar

from ..exit_codes import EXIT_ABORT, EXIT_OK, EXIT_TERM, EXIT_USAGE
from .control import EventWriter, StdinReader, warn

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.permissions import CanUseToolRequest
    from skawld_core.session import Session
    from skawld_core.sessions.store import SessionStore
    from skawld_core.settings import Settings

    from ..file_commands import PromptCommands

P = TypeVar("P")


Dialect = Literal["skawld", "claude"]


class UsageError(Exception):
    """Bad command-line input discovered while starting (exit 2)."""


@dataclass
class HeadlessOptions:
    """How one headless invocation runs, in either dialect.

    `schema` (``--json-schema``) and `sdk_mcp_servers` (``type: "sdk"`` MCP servers)
    exist only in Claude Code's dialect; the command line refuses them with the other.
    """

    dialect: Dialect = "skawld"
    prompt: str | None = None
    """The first prompt (``-p PROMPT`` or stdin); None: prompts come from stdin messages."""
    output_format: str = "stream-json"
    stream_input: bool = False
    """``--input-format stream-json``: keep reading prompts from stdin until it ends."""
    use_stdin: bool = False
    """Read control messages (and prompts) from stdin while running."""
    session_id: str | None = None
    """``--session ID`` (opened or created) or ``--resume ID-PREFIX`` (with `resume_strict`)."""
    resume_strict: bool = False
    continue_last: bool = False
    fork: bool = False
    """``--fork-session``: run on a copy of the resumed or continued session."""
    new_session_id: str | None = None
    """``--session-id``: the id of a new session (an existing one is a usage error)."""
    partial: bool = False
    host_permissions: bool = False
    """Permission asks go to the host over stdin (``--canusetool``, ``--permission-prompt-tool stdio``)."""
    tools: str | None = None
    pretty: bool = False
    verbose: bool = False
    schema: dict[str, Any] | None = None
    sdk_mcp_servers: tuple[str, ...] = ()
    await_initialize: bool = False
    """``--await-initialize``: the host sends its configuration in ``initialize``; wait for it."""
    disallowed_tools: tuple[str, ...] = ()
    """``--disallowedTools``: a bare built-in tool name is also taken off the model's list."""
    no_session_persistence: bool = False
    """``--no-session-persistence``: no Claude Code transcript copy (`claude_transcript`)."""
    resolve_again: Callable[[dict[str, Any]], Settings] | None = None
    """The settings resolved again with one more config layer under the flags (the host's
    ``initialize`` settings and plugins); `ConfigError` for a bad one."""


class RunnerBase(Generic[P]):
    """The part of a headless runner both dialects share: prompts (of type `P`) queued
    from stdin, the end of stdin, abort, signals and a closed stdout. A dialect
    implements `on_stdin`, `on_sigint` and `main`."""

    def __init__(self, settings: Settings, opts: HeadlessOptions, stdout: IO[str]) -> None:
        self.settings = settings
        self.opts = opts
        self.writer = EventWriter(stdout, pretty=opts.pretty, on_broken=self._on_broken_pipe)
        self.agent: Agent | None = None
        self.session: Session | None = None
        self.prompts: deque[P] = deque()
        self.wakeup = asyncio.Event()
        self.eof = False
        self.aborted = False
        self.terminated = False
        self.fatal: str | None = None  # a protocol error on stdin: the run stops with exit 2
        self.prompt_commands: PromptCommands | None = None  # file commands, loaded for the first /command

    # -- what a dialect implements ------------------------------------------------

    def on_stdin(self, line: str | None) -> None:
        """One line from stdin (None: stdin ended)."""
        raise NotImplementedError

    def on_sigint(self) -> None:
        raise NotImplementedError

    async def build(self) -> Agent:
        """The agent, with the dialect's permission callback."""
        raise NotImplementedError

    def prompt_of(self, text: str) -> P:
        """The prompt given on the command line, as the dialect queues prompts."""
        raise NotImplementedError

    def text_of(self, prompt: P) -> str:
        """A prompt's text (the new session's title comes from the first)."""
        raise NotImplementedError

    async def run_one(self, prompt: P) -> int:
        """Run one prompt; its exit code."""
        raise NotImplementedError

    async def before_build(self) -> None:
        """Wait for what must come before the agent is built (nothing, unless the dialect says)."""

    def session_opened(self, session: Session) -> int | None:
        """The session is open: an exit code to stop with, or None to run the prompts."""
        return None

    # -- the one main ------------------------------------------------------------

    async def main(self) -> int:
        """Build the agent, open the session for the first prompt, run the prompts as they
        come; the exit code (`fatal`: a protocol error on stdin, exit 2)."""
        await self.before_build()
        if self.fatal is not None:
            return EXIT_USAGE
        self.agent = agent = await self.build()
        async with agent:
            session_id = await open_session_id(agent.store, self.opts, self.settings.cwd)
            if self.opts.prompt is not None:
                self.prompts.appendleft(self.prompt_of(self.opts.prompt))
            first = await self.next_prompt()
            if first is None:
                return EXIT_USAGE if self.fatal else (EXIT_ABORT if self.aborted else EXIT_OK)
            stop = self.session_opened(await self.open_session(agent, session_id, self.text_of(first)))
            if stop is not None:
                return stop
            code = EXIT_OK
            prompt: P | None = first
            while prompt is not None:
                code = await self.run_one(prompt)
                if self.fatal is not None:
                    return EXIT_USAGE
                if code in (EXIT_ABORT, EXIT_TERM):
                    return code
                prompt = await self.next_prompt()
            if self.fatal is not None:
                return EXIT_USAGE
            if self.terminated:
                return EXIT_TERM
            return EXIT_ABORT if self.aborted else code

    def without_stdin(self) -> None:
        """No control channel (``opts.use_stdin`` off): as if stdin had already ended."""
        self.eof = True

    async def serve(self) -> int:
        """`main` with the signal handlers and the stdin reader (or `without_stdin`) in place."""
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, self.on_sigint)
            loop.add_signal_handler(signal.SIGTERM, self.on_sigterm)
        except (NotImplementedError, RuntimeError):  # pragma: no cover - non-Unix
            pass
        if self.opts.use_stdin:
            StdinReader(loop, self.on_stdin).start()
        else:
            self.without_stdin()
        return await self.main()

    def abort(self) -> None:
        """Abort the running run (the session is saved) and take no further prompts."""
        self.aborted = True
        if self.session is not None:
            self.session.abort()
        self.wakeup.set()

    def on_sigterm(self) -> None:
        self.terminated = True
        self.abort()

    def _on_broken_pipe(self) -> None:
        warn("stdout was closed; aborting the run (the session is saved)")
        self.abort()

    async def next_prompt(self) -> P | None:
        """The next queued prompt; waits for one only in stream-input mode."""
        while True:
            if self.aborted:
                return None
            if self.prompts:
                return self.prompts.popleft()
            if not self.opts.stream_input or self.eof:
                return None
            self.wakeup.clear()
            await self.wakeup.wait()

    async def expand(self, text: str) -> str | None:
        """`text` with a ``/command`` (a file command or a skill) expanded, else as it is;
        None when the command cannot be expanded (the reason is on stderr: exit 2)."""
        if not text.lstrip().startswith("/"):
            return text
        from ..file_commands import CommandExpansionError, PromptCommands  # lazy: only for a /command

        assert self.agent is not None and self.session is not None
        if self.prompt_commands is None:
            trusted = bool(getattr(self.settings, "project_trusted", False))
            self.prompt_commands = PromptCommands(self.agent, home=Path.home(), trusted=trusted)
        try:
            return await self.prompt_commands.expand_typed(text, self.session, warn)
        except CommandExpansionError as exc:
            warn(str(exc))
            return None

    async def open_session(self, agent: Agent, session_id: str | None, first_prompt: str) -> Session:
        """Open the session to run in (`open_session_id` chose it; None: a new one), then
        apply ``--tools`` (after connecting: the Subagent and Skill tools register then)."""
        from ..bootstrap import session_meta  # lazy: the agent loads once stdin and signals are set up

        self.session = await agent.session(id=session_id, meta=session_meta(self.settings, first_prompt))
        if self.opts.tools is not None:
            restrict_tools(agent, self.opts.tools)
        return self.session


async def open_session_id(store: SessionStore, opts: HeadlessOptions, cwd: Path) -> str | None:
    """The id of the session to run in (None: a new one). Raises `UsageError` for an
    unknown or ambiguous ``--resume`` id, a taken ``--session-id`` or nothing to fork."""
    if opts.new_session_id is not None:
        if await store.load(opts.new_session_id) is not None:
            raise UsageError(f"session {opts.new_session_id!r} already exists (use --resume to continue it)")
        return opts.new_session_id
    resume = opts.session_id if opts.resume_strict else None
    if resume is None and not opts.continue_last:  # --session ID or nothing (--fork-session needs one of them)
        return opts.session_id
    from ..resume import ResumeError, resolve_start  # lazy: the session listing is not on the plain -p path

    try:
        session_id = await resolve_start(
            store, cwd=cwd, resume=resume, continue_last=opts.continue_last, fork=opts.fork
        )
    except ResumeError as exc:
        raise UsageError(str(exc)) from None
    if opts.continue_last and session_id is None:
        warn("no earlier session in this directory; starting a new one")
    return session_id


def deny_ask(hint: str) -> Callable[[CanUseToolRequest], Awaitable[Any]]:
    """`can_use_tool` for a run that cannot ask: every ask is a deny (fail closed);
    `hint` names the flags that would allow the call."""

    async def can_use_tool(req: CanUseToolRequest) -> Any:
        from skawld_core.permissions import PermissionDeny

        return PermissionDeny(message=f"{req.tool_name} needs approval, and this headless run cannot ask ({hint})")

    return can_use_tool


def restrict_tools(agent: Agent, spec: str) -> None:
    """``--tools``: "" = no built-in tools, "default" = all, else a comma/space list of names."""
    from skawld_core.permissions.claude_rules import split_rule_list

    if spec.strip() == "default":
        return
    keep = set(split_rule_list([spec]))
    names = [n for n in agent.tools.names() if n in keep or n.startswith("mcp__")]
    unknown = sorted(keep - set(agent.tools.names()))
    if unknown:
        warn(f"--tools: skawld has no tool named {', '.join(unknown)}")
    agent.tools = agent.tools.filtered(names)
    agent.invalidate_system_prompt()
