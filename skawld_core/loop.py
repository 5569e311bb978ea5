"""One run of the agent loop: the 12 steps of a turn, in the spec's event order.

`RunLoop.run()` is a coroutine that drives the turns and hands every event to
`emit`, which returns only when the consumer has asked for the next event, so
the loop never runs ahead of its consumer. An abort cancels the task running
the loop; the loop turns that into `result(aborted)` after leaving the
transcript valid.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

from .assembly import StreamAssembler
from .compaction import should_compact
from .errors import AbortError, BudgetLimitError, ContextLengthError, HookError, SkawldError, TurnLimitError
from .events import (
    AssistantEvent,
    ErrorEvent,
    ErrorInfo,
    Event,
    PartialAssistantEvent,
    ResultEvent,
    ResultSubtype,
    SkillInvokedEvent,
    SkillsLoadedEvent,
    SystemEvent,
    UsageEvent,
    UserEvent,
)
from .hooks import HookContext, HookRunner, SessionStartInput, StopInput, SubagentStopInput, UserPromptSubmitInput
from .messages import ContentBlock, Message, StopReason, TextBlock, ToolResultBlock, Usage, add_usage
from .providers.base import ProviderRequest, usage_estimated
from .run_options import RunOptions
from .scheduler import Scheduler
from .sessions.retry import retrying
from .system_prompt import env_prefix, system_reminder
from .tools.base import ToolContext
from .transcript import INTERRUPTED, NOT_RUN_MAX_TOKENS, dangling_tool_uses, synthetic_results

if TYPE_CHECKING:
    from .host import RunSession
    from .sessions.store import StoredMessage

Emit = Callable[[Event], Awaitable[None]]


class RunLoop:
    """State of one `session.run()` call."""

    def __init__(
        self,
        session: RunSession,
        prompt: str,
        options: RunOptions,
        run_id: str,
        emit: Emit,
        emit_nowait: Callable[[Event], None],
    ) -> None:
        self.session = session
        self.agent = session.agent
        self.prompt = prompt
        self.options = options
        self.run_id = run_id
        self.emit = emit
        self.emit_nowait = emit_nowait
        self.total = Usage()
        self.cost_usd = 0.0
        self.cost_known = False
        self.usage_estimated = False
        self.tree_cost_usd = 0.0  # this run and its subagents' runs, for max_budget_usd
        self.by_model: dict[str, Usage] = {}
        self.started = time.perf_counter()
        self.aborting = False
        self._forced_compaction_used = False
        self._stop_hook_active = False
        self._inflight: tuple[asyncio.Future[Any], list[Message]] | None = None
        self._scheduler: Scheduler | None = None
        self._pending_prompt: tuple[int, asyncio.Future[dict[str, Any] | None]] | None = None

    # -- public entry -----------------------------------------------------

    async def run(self) -> None:
        """Run to a terminal `result` event (or propagate a consumer cancel)."""
        try:
            await self._run()
        except asyncio.CancelledError:
            if not self.aborting:
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            await self._finish_aborted()
        except AbortError:
            await self._finish_aborted()
        except Exception as exc:
            await self._finish_error(exc)

    # -- the turn loop ----------------------------------------------------

    async def _run(self) -> None:
        session = self.session
        await self._announce()
        self._check_abort()

        reminders = await self._session_start()
        hooks = None if session.is_child else self._hooks_for("user_prompt_submit")
        if hooks is not None:
            outcome = await hooks.user_prompt_submit(
                UserPromptSubmitInput(prompt=self.prompt, source="run"), self._hook_context()
            )
            for err in outcome.errors:
                await self.emit(err)
            if outcome.block_reason is not None:
                raise HookError(outcome.block_reason)
            reminders += outcome.additional_context

        await self._repair_transcript()
        prompt_message = self._prompt_message(reminders)
        # The snapshot runs while the first request streams; tools wait for it (`_settle_prompt`).
        checkpoint = asyncio.ensure_future(session.take_checkpoint(self.prompt))
        self._pending_prompt = (len(session.full_history), checkpoint)
        await self._persist([prompt_message])
        await self.emit(UserEvent(message=prompt_message, subtype="prompt"))

        turns = 0
        while True:
            self._check_abort()
            if session.interrupt_requested:
                session.reject_steers()
                await self._finish("interrupted", "error")
                return
            if self.agent.max_turns is not None and turns >= self.agent.max_turns:
                raise TurnLimitError("max turns exceeded")
            self._check_budget()
            await self._drain_steers()
            self._forced_compaction_used = False
            await self._maybe_compact("threshold")
            model_override, overlay_tools = session.take_overlay()
            try:
                turn_model = self.agent.api_model(self.agent.definition_model(model_override) or session.model)
                assembler = await self._stream_with_recovery(turn_model)
                turns += 1
                message = assembler.message()
                await self._persist([message])
                stop_reason: StopReason = assembler.stop_reason
                await self.emit(AssistantEvent(message=message, stop_reason=stop_reason))
                await self._account(turn_model, assembler.usage, estimated=usage_estimated(assembler.provider_metadata))
                tool_uses = message.tool_uses()
                if stop_reason == "tool_use" and tool_uses:
                    await self._run_tools(message, overlay_tools)
                    continue
            finally:
                session.clear_overlay_tools()
            if tool_uses:
                # A cut-off turn (max_tokens) cannot run its calls; answer them.
                unanswered = synthetic_results([b.id for b in tool_uses], NOT_RUN_MAX_TOKENS)
                await self._persist([unanswered])
                await self.emit(UserEvent(message=unanswered, subtype="tool_result"))
            if session.has_steers():
                continue
            if session.interrupt_requested:
                await self._finish("success", stop_reason, final_text=_first_text(message))
                return
            if await self._stop_hook_blocks(stop_reason, message):
                continue
            await self._finish("success", stop_reason, final_text=_first_text(message))
            return

    async def _announce(self) -> None:
        """The run's first events: system, skills_loaded (first run), skill_invoked replays (resume)."""
        session = self.session
        agent = self.agent
        await self.emit(
            SystemEvent(
                session_id=session.id,
                run_id=self.run_id,
                model=session.model,
                tools=session.tools.names(),
                permission_mode=agent.permission_mode,
                cwd=str(agent.cwd),
                instructions=list(agent.instruction_files) or None,
                sandbox=agent.sandbox_status() if "Bash" in session.tools.names() else None,
            )
        )
        skills = agent.skill_summaries()
        if skills and not session.skills_announced:
            session.skills_announced = True
            await self.emit(SkillsLoadedEvent(skills=skills))
        if session.replay_invoked_skills:
            session.replay_invoked_skills = False
            for rec in session.invoked_skills:
                await self.emit(SkillInvokedEvent(name=rec.name, args=rec.args))

    async def _account(self, turn_model: str, usage: Usage, *, estimated: bool = False) -> None:
        """Add one turn's usage and cost to the run (and the budget's tree), then emit `usage`
        (`estimated` when the server reported no usage and skawld counted it)."""
        agent = self.agent
        self.total = add_usage(self.total, usage)
        turn_cost = agent.pricing.cost(turn_model, usage)
        self.cost_usd += turn_cost or 0.0
        if agent.max_budget_usd is not None:
            self._budget_root().tree_cost_usd += turn_cost or 0.0
        self.cost_known = self.cost_known or turn_cost is not None
        self.by_model[turn_model] = add_usage(self.by_model.get(turn_model, Usage()), usage)
        self.session.last_usage = usage
        self.usage_estimated = self.usage_estimated or estimated
        await self.emit(
            UsageEvent(
                usage=usage,
                cumulative=self.total,
                cost_usd=turn_cost,
                cumulative_cost_usd=self.cost_usd if self.cost_known else None,
                estimated=estimated,
            )
        )

    # -- steps ------------------------------------------------------------

    def _budget_root(self) -> RunLoop:
        """The top-level run this (subagent) run belongs to: the budget covers the whole tree."""
        loop, session = self, self.session
        while session.is_child:
            parent = self.agent.get_session(str(session.meta.get("parent_session_id", "")))
            state = getattr(getattr(parent, "_run", None), "_loop_state", None)
            if parent is None or not isinstance(state, RunLoop):
                break
            loop, session = state, parent
        return loop

    def _check_budget(self) -> None:
        budget = self.agent.max_budget_usd
        spent = self._budget_root().tree_cost_usd
        if budget is not None and spent >= budget:
            raise BudgetLimitError(f"budget of ${budget:g} reached (${spent:.4f} spent)")

    def _check_abort(self) -> None:
        if self.aborting:
            raise AbortError("aborted")

    def _hooks_for(self, name: str) -> HookRunner | None:
        """The agent's hook runner when it has hooks for `name`."""
        hooks = self.agent.hooks
        return hooks if hooks is not None and hooks.has(name) else None

    async def _session_start(self) -> list[str]:
        """SessionStart hooks, on a session's first run in this process (not a subagent's) and
        on the first run after `/clear` or a compaction: the context they return goes with the prompt."""
        session = self.session
        pending = session.start_source  # again after /clear or a compaction, as Claude Code does
        if session.is_child or (session.session_started and pending is None):
            return []
        session.session_started = True
        session.start_source = None
        hooks = self._hooks_for("session_start")
        if hooks is None:
            return []
        start = SessionStartInput(source=pending or ("resume" if session.full_history else "startup"))
        outcome = await hooks.session_start(start, self._hook_context())
        for err in outcome.errors:
            await self.emit(err)
        return list(outcome.additional_context)

    def _hook_context(self) -> HookContext:
        return HookContext(
            session_id=self.session.id,
            run_id=self.run_id,
            cwd=str(self.agent.cwd),
            permission_mode=self.agent.permission_mode,
        )

    def _prompt_message(self, reminders: list[str]) -> Message:
        blocks: list[ContentBlock] = []
        listing = self.agent.skill_listing()
        if listing and not self.session.provider_view and not self.session.is_child:
            blocks.append(TextBlock(text=system_reminder(listing)))
        blocks.append(TextBlock(text=env_prefix()))
        blocks.extend(TextBlock(text=text) for text in self.options.context)
        blocks.append(TextBlock(text=self.prompt))
        blocks.extend(TextBlock(text=system_reminder(r)) for r in reminders)
        blocks.extend(self._shell_exits())
        blocks.extend(self.options.image_blocks())
        return Message(role="user", content=blocks)

    def _shell_exits(self) -> list[ContentBlock]:
        """Reminders that background shells of the session exited (each told once)."""
        exits = self.agent.shell_policy.take_exits(self.session.id)
        return [TextBlock(text=system_reminder(text)) for text in exits]

    async def _persist(self, messages: list[Message]) -> None:
        """Append to the store, then to the in-memory views. Shielded, so an
        abort never leaves us unsure whether a write landed."""
        store, session_id, policy = self.session.store, self.session.id, self.agent.store_retry

        def append() -> Awaitable[list[StoredMessage]]:
            return store.append_messages(session_id, messages)

        # With a retry policy, a passing database fault is met by the same append again (an append
        # to a held session first checks whether a lost attempt landed: see sessions._pg_writer).
        call = append() if policy is None else retrying(append, what="append", budget_s=policy.budget_s, log=policy.log)
        task = asyncio.ensure_future(call)
        self._inflight = (task, messages)
        await asyncio.shield(task)
        self._inflight = None
        self.session.extend_history(messages)

    async def _settle_inflight(self) -> None:
        if self._inflight is None:
            return
        task, messages = self._inflight
        self._inflight = None
        try:
            await task
        except Exception:
            return
        self.session.extend_history(messages)

    async def _repair_transcript(self) -> None:
        dangling = dangling_tool_uses(self.session.provider_view)
        if dangling:
            await self._persist([synthetic_results(dangling)])

    async def _drain_steers(self) -> None:
        session = self.session
        while True:
            entry = session.pop_steer()
            if entry is None:
                return
            prompt, extra, future = entry
            reminders: list[str] = []
            hooks = self._hooks_for("user_prompt_submit")
            if hooks is not None:
                outcome = await hooks.user_prompt_submit(
                    UserPromptSubmitInput(prompt=prompt, source="steer"), self._hook_context()
                )
                for err in outcome.errors:
                    await self.emit(err)
                if outcome.block_reason is not None:
                    if not future.done():
                        future.set_exception(HookError(outcome.block_reason))
                    continue
                reminders = list(outcome.additional_context)
            # Context text goes before the prompt (as in a run's prompt message), images after.
            blocks: list[ContentBlock] = [b for b in extra if isinstance(b, TextBlock)]
            blocks.append(TextBlock(text=prompt))
            blocks.extend(TextBlock(text=system_reminder(r)) for r in reminders)
            blocks.extend(b for b in extra if not isinstance(b, TextBlock))
            message = Message(role="user", content=blocks)
            await self._persist([message])
            await self.emit(UserEvent(message=message, subtype="steering"))
            if not future.done():
                future.set_result(None)

    async def _maybe_compact(self, trigger: Literal["threshold", "forced"]) -> bool:
        session = self.session
        if trigger == "threshold" and not should_compact(
            session.last_usage,
            self.agent.max_output_tokens,
            self.agent.provider.context_window(self.agent.api_model(session.model)),
        ):
            return False
        event, errors = await session.compact_view(trigger, self._hook_context())
        for err in errors:
            await self.emit(err)
        if event is None:
            return False
        await self.emit(event)
        return True

    async def _stream_with_recovery(self, model: str) -> StreamAssembler:
        try:
            return await self._stream_turn(model)
        except ContextLengthError:
            if self._forced_compaction_used:
                raise
            self._forced_compaction_used = True
            if not await self._maybe_compact("forced"):
                raise
            return await self._stream_turn(self.session.model)

    def _request(self, model: str) -> ProviderRequest:
        session = self.session
        agent = self.agent
        opts = self.options
        return ProviderRequest(
            model=model,
            system=session.system_blocks(),
            tools=session.tools.schemas(),
            messages=session.provider_view,
            max_output_tokens=opts.max_output_tokens or agent.max_output_tokens,
            temperature=opts.temperature,
            cache_prompt=True,
            cache_ttl=agent.cache_ttl,
            thinking=opts.thinking,
            effort=opts.effort,
            max_retries=agent.max_retries,
        )

    async def _stream_turn(self, model: str) -> StreamAssembler:
        await self._repair_transcript()
        request = self._request(model)
        assembler = StreamAssembler()
        partial = self.agent.include_partial_messages
        stream = self.agent.provider.stream(request)
        try:
            async for event in stream:
                delta = assembler.feed(event)
                if delta is not None and partial:
                    await self.emit(PartialAssistantEvent(delta=delta))
        finally:
            await stream.aclose()
        return assembler

    async def _run_tools(self, message: Message, overlay_tools: frozenset[str]) -> None:
        await self._settle_prompt()
        session = self.session
        agent = self.agent

        def make_context(tool_use_id: str, emit: Callable[[Event], None]) -> ToolContext:
            return session.tool_context(self.run_id, tool_use_id, emit)

        scheduler = Scheduler(
            registry=session.tools,
            permissions=agent.permissions,
            hooks=agent.hooks,
            hook_context=self._hook_context() if agent.hooks is not None else None,
            make_context=make_context,
            emit=self.emit,
            emit_nowait=self.emit_nowait,
            cwd=agent.cwd,
            concurrency=agent.tool_concurrency,
            overlay_tools=overlay_tools,
            call_reminders=session.nested_instructions.reminders_for if session.nested_instructions else None,
            set_mode=agent.set_permission_mode,
        )
        self._scheduler = scheduler
        results = await scheduler.run(message.tool_uses())
        self._scheduler = None
        reply = Message(role="user", content=[*results, *self._shell_exits()])
        await self._persist([reply])
        await self.emit(UserEvent(message=reply, subtype="tool_result"))

    async def _stop_hook_blocks(self, stop_reason: StopReason, message: Message) -> bool:
        child = self.session.is_child  # a subagent's run has SubagentStop hooks instead
        hooks = self._hooks_for("subagent_stop" if child else "stop")
        if hooks is None:
            return False
        final_text, active = _first_text(message), self._stop_hook_active
        if child:
            agent_type = self.session.meta.get("subagent_type")
            outcome = await hooks.subagent_stop(
                SubagentStopInput(
                    stop_reason=stop_reason,
                    final_text=final_text,
                    stop_hook_active=active,
                    agent_type=str(agent_type) if agent_type else None,
                ),
                self._hook_context(),
            )
        else:
            outcome = await hooks.stop(
                StopInput(stop_reason=stop_reason, final_text=final_text, stop_hook_active=active),
                self._hook_context(),
            )
        for err in outcome.errors:
            await self.emit(err)
        if outcome.block_reason is None:
            return False
        note = Message(role="user", content=[TextBlock(text=system_reminder(outcome.block_reason))])
        await self._persist([note])
        await self.emit(UserEvent(message=note, subtype="stop_hook"))
        self._stop_hook_active = True
        return True

    # -- endings ----------------------------------------------------------

    async def _settle_prompt(self) -> None:
        """Wait for the prompt's checkpoint (before any tool runs, and at the end)
        and record the prompt with it."""
        if self._pending_prompt is None:
            return
        index, task = self._pending_prompt
        self._pending_prompt = None
        try:
            checkpoint = await asyncio.shield(task)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # take_checkpoint reports failures itself; this is a bug guard
            checkpoint = {"commit": None, "error": str(exc)}
        try:
            await asyncio.shield(self.session.record_prompt(index, self.prompt, checkpoint))
        except SkawldError:
            pass  # the title and checkpoint entry are a convenience; the prompt itself is stored

    async def _finish(self, subtype: ResultSubtype, stop_reason: StopReason, final_text: str | None = None) -> None:
        self.session.reject_steers()
        await self._settle_prompt()
        await self._record_usage()
        await self.emit(
            ResultEvent(
                subtype=subtype,
                stop_reason=stop_reason,
                total_usage=self.total,
                duration_ms=(time.perf_counter() - self.started) * 1000,
                final_text=final_text,
                total_cost_usd=self.cost_usd if self.cost_known else None,
                usage_estimated=self.usage_estimated,
            )
        )

    async def _record_usage(self) -> None:
        """Add this run's tokens and cost to the session's ``usage`` meta (for `sessions show`)."""
        if not self.by_model or not self.agent.record_usage:
            return
        try:
            await self.session.update_meta({"usage": merge_usage_meta(self.session.meta.get("usage"), self)})
        except Exception:
            pass  # usage bookkeeping must never fail a run

    async def _finish_aborted(self) -> None:
        """Leave the transcript valid (real results for calls that finished,
        synthetic ones for the rest), then end with `result(aborted)`."""
        await self._settle_inflight()
        try:
            dangling = dangling_tool_uses(self.session.provider_view)
            if dangling:
                done = self._scheduler.completed if self._scheduler is not None else {}
                blocks: list[ContentBlock] = [
                    done.get(tid) or ToolResultBlock(tool_use_id=tid, content=INTERRUPTED, is_error=True)
                    for tid in dangling
                ]
                await self._persist([Message(role="user", content=blocks)])
        except Exception:
            pass  # the next run (or resume) repairs the transcript
        await self._finish("aborted", "error")

    async def _finish_error(self, exc: BaseException) -> None:
        await self._settle_inflight()
        retryable = exc.retryable if isinstance(exc, SkawldError) else False
        name = exc.name if isinstance(exc, SkawldError) else type(exc).__name__
        cause = exc.__cause__ or exc.__context__
        await self.emit(
            ErrorEvent(
                error=ErrorInfo(
                    name=name,
                    message=str(exc) or name,
                    retryable=retryable,
                    cause=repr(cause) if cause is not None else None,
                )
            )
        )
        await self._finish("error", "error")


def merge_usage_meta(old: object, run: RunLoop) -> dict[str, Any]:
    """The session's cumulative ``usage`` meta plus one run: tokens and cost, total and per model."""
    prev = old if isinstance(old, dict) else {}
    models: dict[str, Any] = dict(prev.get("models") or {})
    for model, usage in run.by_model.items():
        entry = dict(models.get(model) or {})
        for key in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"):
            entry[key] = int(entry.get(key, 0)) + (getattr(usage, key) or 0)
        entry["cost_usd"] = float(entry.get("cost_usd", 0.0)) + (run.agent.pricing.cost(model, usage) or 0.0)
        models[model] = entry
    total = {k: sum(int(m.get(k, 0)) for m in models.values()) for k in ("input_tokens", "output_tokens")}
    total["cache_read_tokens"] = sum(int(m.get("cache_read_tokens", 0)) for m in models.values())
    total["cache_creation_tokens"] = sum(int(m.get("cache_creation_tokens", 0)) for m in models.values())
    return {
        **total,
        "cost_usd": sum(float(m.get("cost_usd", 0.0)) for m in models.values()),
        "runs": int(prev.get("runs", 0)) + 1,
        "models": models,
    }


def _first_text(message: Message) -> str | None:
    for block in message.content:
        if isinstance(block, TextBlock):
            return block.text
    return None


__all__ = ["RunLoop", "merge_usage_meta"]
