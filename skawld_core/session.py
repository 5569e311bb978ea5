"""`Session` (one conversation) and `Run` (one `session.run()` call).

A `Run` drives the loop in its own task and hands events to the consumer one at
a time: the loop waits until the consumer asks for the next event, so
`steer()` / `interrupt()` / `abort()` called while handling an event take
effect at the right boundary. Use `async with session.run(...) as run:`; a bare
`async for` works too, and the session is freed as soon as `result` is yielded.
"""

from __future__ import annotations

import asyncio
import datetime
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Protocol

from .compaction import MANUAL_KEEP_TURNS, CompactionStrategy, UsageReport, takes_focus, takes_keyword
from .direct_tool import run_tool_call
from .errors import AbortError, ConfigError
from .events import CompactionEvent, Event, HookErrorEvent, ResultEvent
from .hooks import HookContext, PreCompactInput
from .host import RunHost
from .instructions import NestedInstructions
from .loop import RunLoop
from .messages import ImageBlock, InvokedSkillRecord, Message, TextBlock, ToolResultBlock, Usage
from .providers.base import Effort, SystemBlock, ThinkingConfig
from .run_options import ImageSpec, RunOptions, SteerEntry, image_block
from .sessions.claims import RunGuardStore
from .sessions.meta import meta_title, title_from_prompt, usage_from_meta
from .sessions.store import SessionRecord, SessionStore
from .system_prompt import system_reminder
from .tools.base import ToolContext
from .tools.file_tracker import FileReadTracker
from .tools.registry import ToolRegistry

if TYPE_CHECKING:
    from .checkpoints import CheckpointEngine
    from .tools.base import AnyTool

__all__ = ["ImageSpec", "Run", "RunOptions", "Session", "SessionHost"]


class SessionHost(RunHost, Protocol):
    """The Agent as its sessions see it (`Agent` satisfies it): what a run needs,
    plus the store, model, tools, system prompt, compaction, checkpoints and forks."""

    model: str
    tools: ToolRegistry
    compaction: CompactionStrategy
    nested_instructions: bool

    @property
    def store(self) -> SessionStore: ...
    @property
    def checkpoints(self) -> CheckpointEngine | None: ...

    def system_blocks(self) -> list[SystemBlock]: ...
    async def fork_session(self, source_id: str, *, upto: int | None = None) -> Session: ...


class Session:
    """One conversation: history, file-read tracker, steering queue, active run."""

    def __init__(
        self,
        agent: SessionHost,
        record: SessionRecord,
        history: list[Message],
        *,
        tools: ToolRegistry | None = None,
        system: list[SystemBlock] | None = None,
        is_child: bool = False,
        model: str | None = None,
    ) -> None:
        self.agent = agent
        self._model = model
        self._record = record
        self.provider_view: list[Message] = list(history)
        self.full_history: list[Message] = list(history)
        self.file_read_tracker = FileReadTracker()
        self.nested_instructions = (
            NestedInstructions(agent.cwd, home=Path.home()) if agent.nested_instructions else None
        )
        self.last_usage: Usage | None = None
        self.skills_announced = False
        self.session_started = False  # SessionStart hooks ran (once per session and process)
        self.start_source: Literal["clear", "compact"] | None = None
        """Set after `/clear` and a compaction: the next run runs SessionStart hooks again with it."""
        self.invoked_skills: list[InvokedSkillRecord] = list(record.invoked_skills)
        self.replay_invoked_skills = bool(self.invoked_skills)
        self.is_child = is_child
        self._tools_override = tools
        self._system_override = system
        self._run: Run | None = None
        self._steers: deque[SteerEntry] = deque()
        self.interrupt_requested = False
        self._overlay_model: str | None = None
        self._overlay_tools: frozenset[str] = frozenset()
        self._pending_overlay_tools: frozenset[str] = frozenset()
        self._run_model: str | None = None
        # (id, command) of the background shells the last run's end had to kill.
        self.background_ended: list[tuple[str, str]] = []

    # -- identity ---------------------------------------------------------

    @property
    def id(self) -> str:
        return self._record.id

    @property
    def created_at(self) -> str:
        return self._record.created_at

    @property
    def updated_at(self) -> str:
        """When the session was last written (as loaded or last updated here)."""
        return self._record.updated_at

    @property
    def meta(self) -> dict[str, Any]:
        return dict(self._record.meta)

    @property
    def message_count(self) -> int:
        """Length of the provider view (which compaction may shorten)."""
        return len(self.provider_view)

    @property
    def model(self) -> str:
        """The model this session talks to (a subagent's own, or the agent's)."""
        return self._model or self.agent.model

    @property
    def run_options(self) -> RunOptions | None:
        """The active run's options (`None` when idle)."""
        return self._run.options if self._run is not None else None

    @property
    def store(self) -> SessionStore:
        return self.agent.store

    @property
    def tools(self) -> ToolRegistry:
        return self._tools_override if self._tools_override is not None else self.agent.tools

    @property
    def is_running(self) -> bool:
        return self._run is not None

    def system_blocks(self) -> list[SystemBlock]:
        return self._system_override if self._system_override is not None else self.agent.system_blocks()

    # -- running ----------------------------------------------------------

    def run(
        self,
        prompt: str,
        *,
        images: Sequence[ImageSpec] = (),
        max_output_tokens: int | None = None,
        temperature: float | None = None,
        thinking: ThinkingConfig | None = None,
        effort: Effort | None = None,
        context: Sequence[str] = (),
    ) -> Run:
        """Start a run. Raises `ConfigError` at once if one is already active.

        `context` texts become their own text blocks in the prompt message, before
        the prompt (attached files, `!cmd` output): the model reads them, hooks and
        the session title see only `prompt`.
        """
        if self._run is not None:
            raise ConfigError("Session already has an active run")
        if max_output_tokens is not None and max_output_tokens <= 0:
            raise ConfigError("max_output_tokens must be a positive integer")
        options = RunOptions(
            images=tuple(images),
            max_output_tokens=max_output_tokens,
            temperature=temperature,
            thinking=thinking,
            effort=effort,
            context=tuple(context),
        )
        self.interrupt_requested = False
        self._run = Run(self, prompt, options)
        return self._run

    def abort(self, reason: str | None = None) -> None:
        """End the active run with `result(aborted)`. Idempotent; no-op when idle."""
        if self._run is not None:
            self._run.abort()

    def interrupt(self) -> None:
        """Stop at the next turn boundary (`result(interrupted)`). No-op when idle."""
        if self._run is not None:
            self.interrupt_requested = True

    def steer(
        self, prompt: str, *, images: Sequence[ImageSpec] = (), context: Sequence[str] = ()
    ) -> asyncio.Future[None]:
        """Queue a user message for the next turn boundary of the active run.

        `images` and `context` are as for `run`. Returns a future that resolves
        once the message is in the conversation, fails with `HookError` if a
        UserPromptSubmit hook blocks it, or with `AbortError` if the run ends
        first. Raises `ConfigError` when idle.
        """
        if self._run is None:
            raise ConfigError("Cannot steer: the session has no active run")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        future.add_done_callback(_consume_exception)
        extra: list[TextBlock | ImageBlock] = [TextBlock(text=t) for t in context]
        extra.extend(image_block(i) for i in images)
        self._steers.append((prompt, extra, future))
        return future

    async def run_tool(
        self,
        name: str,
        input: dict[str, Any],
        *,
        on_event: Callable[[Event], Awaitable[None]] | None = None,
        tool: AnyTool | None = None,
    ) -> ToolResultBlock:
        """Run one tool call between runs, through hooks, permissions and sandbox
        (see `skawld_core.direct_tool.run_tool_call`). Nothing enters the history."""
        return await run_tool_call(self, name, input, on_event=on_event, tool=tool)

    async def compact(self, focus: str | None = None) -> CompactionEvent | None:
        """Summarize older history now, between runs (the app's `/compact [focus]`).

        `focus` tells the summary what to keep above all (passed to strategies
        that take it). Returns the compaction event, or `None` when there was
        nothing to compact. Raises `ConfigError` while a run is active.
        """
        if self._run is not None:
            raise ConfigError("Cannot compact while a run is active")
        context = HookContext(session_id=self.id, run_id="", cwd=str(self.agent.cwd))
        event, _ = await self.compact_view("manual", context, focus=focus)
        return event

    async def compact_view(
        self,
        trigger: Literal["threshold", "forced", "manual"],
        hook_context: HookContext,
        *,
        focus: str | None = None,
    ) -> tuple[CompactionEvent | None, list[HookErrorEvent]]:
        """Run PreCompact hooks and the compaction strategy over the provider
        view, replacing it in place (the full history and the store are not
        touched), then re-inject skill context. Returns the event (`None` for
        a no-op) and any hook errors."""
        agent = self.agent
        view = self.provider_view
        tokens_before = self.last_usage.input_tokens if self.last_usage else 0
        errors: list[HookErrorEvent] = []
        hooks = agent.hooks
        if hooks is not None and hooks.has("pre_compact"):
            errors = await hooks.pre_compact(
                PreCompactInput(trigger=trigger, messages_before=len(view), tokens_before=tokens_before),
                hook_context,
            )
        report = UsageReport()
        extra: dict[str, Any] = {"focus": focus} if focus and takes_focus(agent.compaction) else {}
        if trigger == "manual" and takes_keyword(agent.compaction, "keep_turns"):
            extra["keep_turns"] = MANUAL_KEEP_TURNS  # asked for: compact even a short conversation
        compacted = await agent.compaction.compact(
            list(view), provider=agent.provider, model=self.model, usage_report=report, **extra
        )
        if len(compacted) == len(view) and (not view or compacted[0] is view[0]):
            return None, errors
        before = len(view)
        view[:] = compacted
        view.extend(self._skill_context_messages())
        if not self.is_child:
            self.start_source = "compact"  # SessionStart (source compact) runs with the next prompt
        event = CompactionEvent(
            messages_before=before,
            messages_after=len(compacted),
            tokens_before=tokens_before,
            tokens_after=0,
            strategy=agent.compaction.id,
            summary_usage=report.usage,
        )
        return event, errors

    def _skill_context_messages(self) -> list[Message]:
        """The skill listing and invoked skills' bodies, re-injected after compaction."""
        out: list[Message] = []
        listing = self.agent.skill_listing()
        if listing:
            out.append(Message(role="user", content=[TextBlock(text=system_reminder(listing))]))
        for rec in self.invoked_skills:
            if rec.body:
                out.append(Message(role="user", content=[TextBlock(text=system_reminder(rec.body))]))
        return out

    async def update_meta(self, patch: dict[str, Any]) -> dict[str, Any]:
        """Shallow-merge `patch` into the stored meta."""
        self._record = await self.store.update_meta(self.id, patch)
        return self.meta

    # -- titles, usage, prompts, fork (see sessions.meta) -------------------

    @property
    def title(self) -> str | None:
        """The session's title (its first prompt, shortened, or `rename`'s)."""
        return meta_title(self._record.meta)

    async def rename(self, title: str) -> None:
        """Set the title (stored in meta). Raises `ConfigError` when empty."""
        title = " ".join(title.split())
        if not title:
            raise ConfigError("a session title cannot be empty")
        await self.update_meta({"title": title})

    @property
    def usage(self) -> Usage:
        """Token usage of every finished run of this session (kept in meta)."""
        return usage_from_meta(self._record.meta)

    @property
    def prompt_records(self) -> list[dict[str, Any]]:
        """One entry per prompt run in this session: ``index`` (the prompt's
        message index), ``prompt`` (shortened), ``at`` and ``commit`` (the
        checkpoint taken before it, or `None`)."""
        raw = self._record.meta.get("prompts")
        return [dict(c) for c in raw if isinstance(c, dict)] if isinstance(raw, list) else []

    async def fork(self, upto: int | None = None) -> Session:
        """A new session holding this one's first `upto` messages (all when
        `None`); this session is untouched. Raises `ConfigError` while running."""
        if self._run is not None:
            raise ConfigError("Cannot fork while a run is active")
        return await self.agent.fork_session(self.id, upto=upto)

    async def child_session(
        self,
        *,
        meta: Mapping[str, Any],
        model: str | None = None,
        tools: ToolRegistry | None = None,
        system: list[SystemBlock] | None = None,
    ) -> Session:
        """A new child session of this one (a subagent's): the same agent and store,
        its own empty history, and `model`, `tools` and `system` prompt when given.
        Its meta is `meta` plus `parent_session_id` (this session's id); the agent
        does not list it among its sessions."""
        record = await self.store.create(meta={"parent_session_id": self.id, **meta})
        return Session(self.agent, record, [], model=model, tools=tools, system=system, is_child=True)

    async def take_checkpoint(self, prompt: str) -> dict[str, Any] | None:
        """Snapshot the project before `prompt` runs (when the agent has
        checkpoints); a failure is recorded, never raised."""
        engine = self.agent.checkpoints
        if engine is None or self.is_child:
            return None
        try:
            snap = await asyncio.shield(engine.snapshot(f"before: {title_from_prompt(prompt, 72)}"))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return {"commit": None, "error": str(exc)}
        out: dict[str, Any] = {"commit": snap.commit}
        if snap.skipped_large:
            out["skipped_large"] = snap.skipped_large[:50]
        return out

    async def record_prompt(self, index: int, prompt: str, checkpoint: dict[str, Any] | None) -> None:
        """Remember a prompt (title on the first one, and its checkpoint entry)."""
        if self.is_child:
            return
        entry: dict[str, Any] = {
            "index": index,
            "prompt": title_from_prompt(prompt, 80),
            "at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
            "commit": None,
            **(checkpoint or {}),
        }
        patch: dict[str, Any] = {"prompts": [*self.prompt_records, entry]}
        if self.title is None:
            patch["title"] = title_from_prompt(prompt)
        await self.update_meta(patch)

    # -- used by the loop and tools ---------------------------------------

    def has_steers(self) -> bool:
        return bool(self._steers)

    def pop_steer(self) -> SteerEntry | None:
        return self._steers.popleft() if self._steers else None

    def reject_steers(self) -> None:
        while self._steers:
            _, _, future = self._steers.popleft()
            if not future.done():
                future.set_exception(AbortError("run ended before the steering message was used"))

    def extend_history(self, messages: Sequence[Message]) -> None:
        self.provider_view.extend(messages)
        self.full_history.extend(messages)

    def set_overlay(self, *, model: str | None = None, allowed_tools: Sequence[str] = ()) -> None:
        """Skill overlay for the next turn: a model override and extra allowed tools."""
        self._overlay_model = model
        self._pending_overlay_tools = self._pending_overlay_tools | frozenset(allowed_tools)

    def use_model_for_run(self, model: str | None) -> None:
        """Run every turn of the next run (or of the one going) on `model` (a command
        file's `model:`); the session's own model again once that run ends."""
        self._run_model = model

    def take_overlay(self) -> tuple[str | None, frozenset[str]]:
        model, self._overlay_model = self._overlay_model or self._run_model, None
        self._overlay_tools, self._pending_overlay_tools = self._pending_overlay_tools, frozenset()
        return model, self._overlay_tools

    def clear_overlay_tools(self) -> None:
        self._overlay_tools = frozenset()

    async def record_invoked_skill(self, record: InvokedSkillRecord) -> None:
        """Remember (and persist) an invoked skill for resume and compaction."""
        self.invoked_skills.append(record)
        await self.store.set_invoked_skills(self.id, self.invoked_skills)

    def tool_context(self, run_id: str, tool_use_id: str, emit: Callable[[Event], None]) -> ToolContext:
        permissions = self.agent.permissions
        context = ToolContext(
            cwd=self.agent.cwd,
            session_id=self.id,
            run_id=run_id,
            tool_use_id=tool_use_id,
            file_read_tracker=self.file_read_tracker,
            session_store=self.store,
            emit=emit,
            extras={"session": self},
        )
        # Without Read path rules every file is readable: Glob and Grep skip the per-file check.
        return replace(context, can_read=permissions.can_read) if permissions.restricts_reads else context

    def _release(self, run: Run) -> None:
        if self._run is run:
            self._run = None
            self._run_model = None
            self.interrupt_requested = False
            self.reject_steers()


def _consume_exception(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()


@dataclass
class _Item:
    event: Event | None
    ack: asyncio.Future[None] | None = None
    error: BaseException | None = None


class Run:
    """One run: an async iterator of events and an async context manager.

    `result` holds the terminal `ResultEvent` once it has been yielded.
    """

    def __init__(self, session: Session, prompt: str, options: RunOptions) -> None:
        self.session = session
        self.run_id = str(uuid.uuid4())
        self.result: ResultEvent | None = None
        self._prompt = prompt
        self.options = options
        self._queue: asyncio.Queue[_Item] | None = None
        self._driver: asyncio.Task[None] | None = None
        self._loop_state: Any = None
        self._ack: asyncio.Future[None] | None = None
        self._aborted = False
        self._closing = False
        self._finished = False
        self._driving = False

    # -- producer side ----------------------------------------------------

    def _start(self) -> None:
        self._queue = asyncio.Queue()
        state = RunLoop(self.session, self._prompt, self.options, self.run_id, self._emit, self._emit_nowait)
        state.aborting = self._aborted
        self._loop_state = state
        self._driver = asyncio.get_running_loop().create_task(self._drive(state), name=f"skawld-run-{self.run_id}")

    async def _drive(self, state: Any) -> None:
        self._driving = True
        try:
            store = self.session.store
            if isinstance(store, RunGuardStore) and not self.session.is_child:
                # A shared store guards the session across processes too (ConfigError if held).
                async with store.run_guard(self.session.id):
                    await state.run()
            else:
                await state.run()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # a bug in the loop itself: surface it to the consumer
            assert self._queue is not None
            self._queue.put_nowait(_Item(None, error=exc))

    async def _emit(self, event: Event) -> None:
        assert self._queue is not None
        if self._closing or isinstance(event, ResultEvent):
            self._queue.put_nowait(_Item(event))
            return
        ack: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.put_nowait(_Item(event, ack))
        await ack

    def _emit_nowait(self, event: Event) -> None:
        assert self._queue is not None
        self._queue.put_nowait(_Item(event))

    def abort(self) -> None:
        if self._aborted or self._finished:
            return
        self._aborted = True
        if self._loop_state is not None:
            self._loop_state.aborting = True
        # A driver that has not started yet sees the flag at its first step;
        # cancelling it then would end it before it could emit `result`.
        if self._driver is not None and self._driving and not self._driver.done():
            self._driver.cancel()

    # -- consumer side ----------------------------------------------------

    def __aiter__(self) -> Run:
        return self

    async def __anext__(self) -> Event:
        if self._finished:
            raise StopAsyncIteration
        if self._driver is None:
            self._start()
        assert self._queue is not None
        if self._ack is not None and not self._ack.done():
            self._ack.set_result(None)
        self._ack = None
        try:
            item = await self._queue.get()
        except asyncio.CancelledError:
            await self._shutdown()
            raise
        if item.error is not None:
            self._finish()
            raise item.error
        assert item.event is not None
        self._ack = item.ack
        if isinstance(item.event, ResultEvent):
            self.result = item.event
            await self._driver_done()
            self._finish()
        return item.event

    async def _driver_done(self) -> None:
        """Wait for the driver to end after `result` (it releases the session's writer lock),
        so the session can be resumed as soon as the run is over."""
        self._closing = True  # whatever it emits after the result needs no ack
        if self._driver is not None and not self._driver.done():
            await asyncio.wait({self._driver})

    def _finish(self) -> None:
        self._finished = True
        self.session._release(self)

    async def _shutdown(self) -> None:
        """Stop the loop (leaving the transcript valid) and free the session."""
        if self._finished:
            return
        driver = self._driver
        self._closing = True
        if self._ack is not None and not self._ack.done():
            self._ack.set_result(None)
        if driver is not None and not driver.done():
            self.abort()
            try:
                await asyncio.shield(driver)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    self._finish()
                    raise
            except Exception:
                pass  # the loop's own failure; nothing left to report on close
        self._finish()

    async def aclose(self) -> None:
        """Cancel in-flight work and free the session."""
        await self._shutdown()

    async def __aenter__(self) -> Run:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._shutdown()

    def __del__(self) -> None:
        driver = self._driver
        if driver is not None and not driver.done() and not self._finished:
            driver.cancel()
