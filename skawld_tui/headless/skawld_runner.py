"""Headless mode (``skawld -p``): one or more runs in one session, events on stdout.

Output formats:

- ``--json``: NDJSON, one spec `Event` per line (`to_json`);
- ``text``: the final text of each run.

(``--output-format json|stream-json`` is Claude Code's dialect: `skawld_tui.headless.claude_runner`;
the options, the prompt queue, signals and the session choice both use are in
`skawld_tui.headless.common`; `skawld_tui.headless.run.run_headless` starts either runner.)

Nothing else is written to stdout: `sys.stdout` is pointed at stderr while the
runner is active, so stray prints and library chatter land on stderr.

Exit codes: 0 success (or interrupted), 1 the result was an error, 2 usage error,
3 config error, 4 authentication error, 130 aborted (stdin ``abort``, SIGINT or a
broken stdout pipe), 143 SIGTERM. The session is persisted in every case.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, assert_never

from skawld_core.events import (
    AssistantEvent,
    CompactionEvent,
    ErrorEvent,
    Event,
    HookErrorEvent,
    PartialAssistantEvent,
    PermissionRequestEvent,
    ResultEvent,
    SkillCompletedEvent,
    SkillInvokedEvent,
    SkillsLoadedEvent,
    SubagentEvent,
    SystemEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UsageEvent,
    UserEvent,
    to_json,
)
from skawld_core.messages import TextBlock, ToolResultBlock

from ..exit_codes import EXIT_ABORT, EXIT_AUTH, EXIT_CONFIG, EXIT_ERROR, EXIT_OK, EXIT_TERM, EXIT_USAGE
from .background_report import end_shells, report_ended
from .common import RunnerBase, deny_ask
from .control import PermissionAnswer, note, parse_control, permission_answer, warn

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.permissions import CanUseToolRequest
    from skawld_core.session import Session
    from skawld_core.settings import Settings

    from .common import HeadlessOptions

_CANNOT_ASK = "run with --canusetool, --allowed-tools or --permission-mode to allow it"


@dataclass
class _RunStats:
    started: float = field(default_factory=time.monotonic)
    num_turns: int = 0
    error_name: str | None = None
    errors: list[str] = field(default_factory=list)
    tool_calls: dict[str, tuple[str, dict[str, Any]]] = field(default_factory=dict)
    denials: list[dict[str, Any]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


class HeadlessRunner(RunnerBase[str]):
    """Drives the runs of one invocation and owns the stdin/stdout protocol."""

    def __init__(self, settings: Settings, opts: HeadlessOptions, stdout: IO[str]) -> None:
        super().__init__(settings, opts, stdout)
        self.pending: dict[str, asyncio.Future[PermissionAnswer]] = {}
        self.announced: set[str] = set()
        self.early: dict[str, PermissionAnswer] = {}
        self.running = False
        self._interrupts = 0

    # -- stdin ------------------------------------------------------------

    def on_stdin(self, line: str | None) -> None:
        if line is None:
            self.eof = True
            for future in self.pending.values():
                if not future.done():
                    future.set_result(PermissionAnswer("deny", "stdin closed before a permission_response arrived"))
            self.wakeup.set()
            return
        msg = parse_control(line)
        if msg is None:
            return
        kind = msg.get("type")
        if kind == "permission_response":
            self._on_permission_response(msg)
        elif kind == "abort":
            self.abort()
        elif kind == "prompt":
            text = msg.get("text")
            if not isinstance(text, str) or not text.strip():
                warn("ignoring a prompt control message without a non-empty 'text'")
                return
            self.prompts.append(text)
            self.wakeup.set()

    def _on_permission_response(self, msg: dict[str, Any]) -> None:
        tool_use_id = msg.get("tool_use_id")
        if not isinstance(tool_use_id, str) or tool_use_id not in self.announced:
            warn(f"ignoring permission_response for unknown tool_use_id {tool_use_id!r}")
            return
        answer = permission_answer(msg)
        if answer is None:
            return
        future = self.pending.get(tool_use_id)
        if future is not None and not future.done():
            future.set_result(answer)
        else:
            self.early[tool_use_id] = answer

    # -- permissions ------------------------------------------------------

    async def ask_stdin(self, req: CanUseToolRequest) -> Any:
        """`can_use_tool` for ``--canusetool``: wait for the matching permission_response."""
        from skawld_core.permissions import PermissionAllow, PermissionDeny

        answer = self.early.pop(req.tool_use_id, None)
        if answer is None:
            if self.eof:
                return PermissionDeny(message="stdin closed before a permission_response arrived")
            future: asyncio.Future[PermissionAnswer] = asyncio.get_running_loop().create_future()
            self.pending[req.tool_use_id] = future
            try:
                answer = await future
            finally:
                self.pending.pop(req.tool_use_id, None)
        self.announced.discard(req.tool_use_id)
        if answer.decision == "allow":
            return PermissionAllow(updated_input=answer.updated_input, set_mode=answer.set_mode)
        return PermissionDeny(message=answer.reason or "denied by the user")

    # -- signals ----------------------------------------------------------

    def on_sigint(self) -> None:
        self._interrupts += 1
        if self._interrupts > 1:  # a second Ctrl+C: stop waiting for a clean end
            raise SystemExit(EXIT_ABORT)
        self.abort()

    # -- output -----------------------------------------------------------

    def _track(self, event: Event, stats: _RunStats) -> None:
        match event:
            case AssistantEvent():
                stats.num_turns += 1
                stats.texts = [b.text for b in event.message.content if isinstance(b, TextBlock)]
            case ToolCallStartEvent():
                stats.tool_calls[event.tool_use_id] = (event.tool_name, dict(event.input))
            case ErrorEvent():
                stats.error_name = event.error.name
                stats.errors.append(event.error.message)
            case UserEvent():
                if event.subtype == "tool_result":
                    self._track_denials(event, stats)
            case (
                SystemEvent()
                | SkillsLoadedEvent()
                | PartialAssistantEvent()
                | UsageEvent()
                | PermissionRequestEvent()
                | ToolCallEndEvent()
                | SkillInvokedEvent()
                | SkillCompletedEvent()
                | CompactionEvent()
                | HookErrorEvent()
                | ResultEvent()
                | SubagentEvent()
            ):
                pass  # the result line and the denials need nothing from these
            case _:
                assert_never(event)

    def _track_denials(self, event: UserEvent, stats: _RunStats) -> None:
        for block in event.message.content:
            if not isinstance(block, ToolResultBlock) or not block.is_error:
                continue
            content = block.content if isinstance(block.content, str) else ""
            if content.startswith("Tool call denied:"):
                name, tool_input = stats.tool_calls.get(block.tool_use_id, ("", {}))
                stats.denials.append({"tool_name": name, "tool_use_id": block.tool_use_id, "tool_input": tool_input})
                if self.opts.output_format == "text":
                    warn(f"{name or 'tool'} call denied: {content.removeprefix('Tool call denied:').strip()}")

    def _emit(self, event: Event, stats: _RunStats) -> None:
        inner: Event = event
        while isinstance(inner, SubagentEvent):  # a subagent's calls are answered the same way
            inner = inner.event
        if isinstance(inner, PermissionRequestEvent):
            self.announced.update(r.tool_use_id for r in inner.requests)
        self._track(event, stats)
        if self.opts.output_format == "stream-json":
            self.writer.line(to_json(event))

    def _finish_output(self, result: ResultEvent, stats: _RunStats) -> None:
        assert self.session is not None
        if self.opts.output_format == "json":
            obj: dict[str, Any] = {
                "type": "result",
                "subtype": result.subtype,
                "is_error": result.subtype == "error",
                "result": result.final_text or "",
                "session_id": self.session.id,
                "num_turns": stats.num_turns,
                "duration_ms": result.duration_ms,
                "stop_reason": result.stop_reason,
                "usage": result.total_usage.model_dump(exclude_none=True),
                "permission_denials": stats.denials,
            }
            if stats.errors:
                obj["errors"] = stats.errors
            report_ended(self.session, obj, verbose=False)
            self.writer.line(json.dumps(obj, ensure_ascii=False))
        elif self.opts.output_format == "text":
            text = result.final_text if result.final_text is not None else "\n".join(stats.texts)
            if text:
                self.writer.raw(text if text.endswith("\n") else text + "\n")
            if result.subtype == "error":
                warn(f"run failed: {'; '.join(stats.errors) or 'error'}")

    # -- running ----------------------------------------------------------

    def _exit_code(self, result: ResultEvent | None, stats: _RunStats) -> int:
        if self.terminated:
            return EXIT_TERM
        if self.aborted or (result is not None and result.subtype == "aborted"):
            return EXIT_ABORT
        if result is None or result.subtype == "error":
            if stats.error_name == "AuthError":
                return EXIT_AUTH
            if stats.error_name == "ConfigError":
                return EXIT_CONFIG
            return EXIT_ERROR
        return EXIT_OK

    async def run_one(self, prompt: str) -> int:
        assert self.session is not None and self.agent is not None
        expanded = await self.expand(prompt)
        if expanded is None:
            return EXIT_USAGE
        prompt = expanded
        stats = _RunStats()
        result: ResultEvent | None = None
        async with self.session.run(prompt) as run:
            self.running = True
            try:
                async for event in run:
                    self._emit(event, stats)
                    if isinstance(event, ResultEvent):
                        result = event
            finally:
                self.running = False
        await end_shells(self.agent, self.session)
        if result is not None:
            self._finish_output(result, stats)
        report_ended(self.session, None, verbose=self.opts.verbose)
        return self._exit_code(result, stats)

    # -- the hooks of `RunnerBase.main` ------------------------------------

    async def build(self) -> Agent:
        from ..bootstrap import build_agent  # lazy: the agent loads once stdin and signals are set up

        can_use_tool = self.ask_stdin if self.opts.host_permissions else deny_ask(_CANNOT_ASK)
        return build_agent(self.settings, can_use_tool=can_use_tool, include_partial_messages=self.opts.partial)

    def prompt_of(self, text: str) -> str:
        return text

    def text_of(self, prompt: str) -> str:
        return prompt

    def session_opened(self, session: Session) -> int | None:
        if self.aborted:  # a signal arrived while connecting
            return EXIT_TERM if self.terminated else EXIT_ABORT
        if self.opts.verbose:
            note(f"session {session.id}")
        return None
