"""Running one assistant turn's tool calls (§2.7).

Resolution and validation, PreToolUse hooks, the two permission passes (one
`permission_request` event per batch), adjacent `parallel_safe` batching under a
concurrency cap, start/end bracketing for every call, PostToolUse hooks, and
synthetic `tool_call_end` events for calls cut off by an abort.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .assembly import INVALID_JSON_KEY, well_formed_result
from .errors import AbortError
from .events import (
    Event,
    HookErrorEvent,
    PermissionRequestEvent,
    PermissionRequestItem,
    SkillCompletedEvent,
    SkillInvokedEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from .hooks import HookContext, HookRunner, NotificationInput, PostToolUseInput, PreToolUseInput
from .messages import TextBlock, ToolResultBlock, ToolUseBlock
from .permissions import PendingToolCall, PermissionDecision, PermissionEngine
from .system_prompt import system_reminder
from .tools.base import AnyTool, ToolContext, ToolResult
from .tools.registry import ToolRegistry

DEFAULT_CONCURRENCY = 10
SKILL_TOOL = "Skill"

Emit = Callable[[Event], Awaitable[None]]
EmitNowait = Callable[[Event], None]
ContextFactory = Callable[[str, EmitNowait], ToolContext]


def default_tool_concurrency(env: dict[str, str] | None = None) -> int:
    """`SKAWLD_MAX_TOOL_CONCURRENCY` when it is a positive integer, else 10."""
    raw = (env if env is not None else os.environ).get("SKAWLD_MAX_TOOL_CONCURRENCY", "")
    try:
        value = int(raw.strip())
    except ValueError:
        return DEFAULT_CONCURRENCY
    return value if value > 0 else DEFAULT_CONCURRENCY


@dataclass
class _Call:
    block: ToolUseBlock
    tool: AnyTool | None
    input: dict[str, Any]
    parsed: Any = None
    summary: str = ""
    error: str | None = None
    deny_reason: str | None = None
    hook_decision: str = "continue"
    ask: bool = False
    approved_paths: tuple[str, ...] = ()  # real paths the permission decision was made on
    ask_reason: str | None = None

    @property
    def name(self) -> str:
        return self.tool.name if self.tool is not None else self.block.name

    @property
    def runnable(self) -> bool:
        return self.error is None and self.deny_reason is None


CallReminders = Callable[[str, dict[str, Any]], list[str]]
"""Extra context for a finished call, by tool name and input (nested instruction files)."""


def with_reminders(result: ToolResult, texts: Sequence[str]) -> ToolResult:
    """`result` with each text appended as a `<system-reminder>` (§2.7 step 8)."""
    if not texts:
        return result
    reminders = [system_reminder(text) for text in texts]
    content: str | list[Any]
    if isinstance(result.content, str):
        content = "\n\n".join([result.content, *reminders])
    else:
        content = [*result.content, *(TextBlock(text=r) for r in reminders)]
    return ToolResult(content=content, summary=result.summary, is_error=result.is_error)


@dataclass
class Scheduler:
    """Executes the tool calls of one assistant message. Create one per turn."""

    registry: ToolRegistry
    permissions: PermissionEngine
    hooks: HookRunner | None
    hook_context: HookContext | None
    make_context: ContextFactory
    emit: Emit
    emit_nowait: EmitNowait
    cwd: Path
    concurrency: int = DEFAULT_CONCURRENCY
    overlay_tools: frozenset[str] = frozenset()
    call_reminders: CallReminders | None = None
    # Applies a host's `PermissionAllow(set_mode=...)` (the agent's `set_permission_mode`).
    set_mode: Callable[[Any], None] | None = None
    completed: dict[str, ToolResultBlock] = field(default_factory=dict)
    _started: set[str] = field(default_factory=set)
    _ended: set[str] = field(default_factory=set)

    async def _notify(self, asks: Sequence[_Call]) -> None:
        """Notification hooks: skawld is about to wait for the user's permission."""
        if self.hooks is None or self.hook_context is None or not self.hooks.has("notification"):
            return
        names = ", ".join(dict.fromkeys(c.name for c in asks))
        message = f"skawld needs your permission to use {names}"
        for err in await self.hooks.observe("Notification", NotificationInput(message=message), self.hook_context):
            await self.emit(err)

    async def run(self, blocks: Sequence[ToolUseBlock]) -> list[ToolResultBlock]:
        """Run every call; results come back in block order. Raises AbortError
        (after synthetic end events) when cancelled by an abort."""
        if not blocks:
            return []
        calls = [self._resolve(b) for b in blocks]
        await self._pre_tool_use(calls)
        self._first_pass(calls)
        await self._precheck_asks(calls)
        asks = [c for c in calls if c.ask]
        if asks:
            await self._notify(asks)
            await self.emit(
                PermissionRequestEvent(
                    requests=[
                        PermissionRequestItem(
                            tool_use_id=c.block.id, tool_name=c.name, input=c.input, summary=c.summary
                        )
                        for c in asks
                    ]
                )
            )
            for c in asks:
                await self._second_pass(c)
        try:
            for batch, parallel in self._batches(calls):
                if parallel and len(batch) > 1:
                    await self._run_parallel(batch)
                else:
                    for c in batch:
                        await self._run_call(c)
        except (asyncio.CancelledError, AbortError):
            await self._close_orphans(calls)
            raise
        return [self.completed[c.block.id] for c in calls]

    # -- resolution -------------------------------------------------------

    def _resolve(self, block: ToolUseBlock) -> _Call:
        raw = block.input
        if raw.get(INVALID_JSON_KEY) is True:
            return _Call(block, None, raw, error=f"Tool input was not valid JSON: {raw.get('raw', '')}")
        tool = self.registry.get(block.name)
        if tool is None:
            return _Call(block, None, raw, error=f"Tool '{block.name}' is not registered")
        call = _Call(block, tool, raw)
        try:
            call.parsed = tool.validate(raw)
            call.input = tool.dump_input(call.parsed)
        except Exception as exc:  # validate() raising anything is an input error
            call.error = str(exc) or type(exc).__name__
            return call
        call.summary = self._summarize(tool, call.parsed)
        return call

    @staticmethod
    def _summarize(tool: AnyTool, parsed: Any) -> str:
        try:
            return tool.summarize(parsed)
        except Exception:
            return f"{tool.name}(...)"

    def _revalidate(self, tool: AnyTool) -> Callable[[dict[str, Any]], dict[str, Any]]:
        def validate(raw: dict[str, Any]) -> dict[str, Any]:
            return tool.dump_input(tool.validate(raw))

        return validate

    def _apply_input(self, call: _Call, new_input: dict[str, Any]) -> None:
        assert call.tool is not None
        call.parsed = call.tool.validate(new_input)
        call.input = call.tool.dump_input(call.parsed)
        call.summary = self._summarize(call.tool, call.parsed)

    async def _pre_tool_use(self, calls: list[_Call]) -> None:
        if self.hooks is None or self.hook_context is None or not self.hooks.has("pre_tool_use"):
            return
        for call in calls:
            if call.error is not None or call.tool is None:
                continue
            tool = call.tool

            def revalidate(raw: dict[str, Any], _tool: AnyTool = tool) -> tuple[dict[str, Any], str]:
                parsed = _tool.validate(raw)
                return _tool.dump_input(parsed), self._summarize(_tool, parsed)

            outcome = await self.hooks.pre_tool_use(
                PreToolUseInput(tool_name=call.name, tool_use_id=call.block.id, input=call.input, summary=call.summary),
                self.hook_context,
                revalidate,
            )
            await self._emit_hook_errors(outcome.errors)
            if outcome.input != call.input:
                self._apply_input(call, outcome.input)
            call.hook_decision = outcome.decision
            if outcome.decision == "deny":
                call.deny_reason = outcome.reason or "denied by hook"

    async def _emit_hook_errors(self, errors: Sequence[HookErrorEvent]) -> None:
        for err in errors:
            await self.emit(err)

    def _pending(self, call: _Call) -> PendingToolCall:
        assert call.tool is not None
        return PendingToolCall(
            tool_name=call.name,
            tool_use_id=call.block.id,
            input=call.input,
            summary=call.summary,
            scope=call.tool.scope,
            cwd=self.cwd,
            path_policy=call.tool.path_policy,
        )

    def _first_pass(self, calls: list[_Call]) -> None:
        for call in calls:
            if not call.runnable:
                continue
            refusal = self.permissions.plan_refusal(self._pending(call))
            if refusal is not None:
                call.deny_reason = refusal
                continue
            if call.hook_decision == "allow":
                call.approved_paths = self.permissions.target_paths(self._pending(call))
                continue
            if call.hook_decision == "ask":
                call.ask = True
                continue
            decision = self.permissions.evaluate(self._pending(call))
            call.approved_paths = decision.paths
            if decision.behavior == "deny":
                call.deny_reason = decision.reason or "denied"
            elif decision.behavior == "ask":
                call.ask = call.name not in self.overlay_tools
                call.ask_reason = decision.reason

    async def _precheck_asks(self, calls: list[_Call]) -> None:
        """A call bound to fail gets its error without a permission question (an Edit of a
        file not yet Read). Only calls no earlier call of the turn can affect are checked:
        every earlier runnable call reads, and none targets the same file."""
        touched: set[str] = set()
        for call in calls:
            if not call.runnable:
                continue
            assert call.tool is not None
            paths = set(self.permissions.target_paths(self._pending(call)))
            if call.ask and not touched & paths:
                refused = await self._precheck(call)
                if refused is not None:
                    call.ask = False
                    call.error = refused.content if isinstance(refused.content, str) else "refused"
                    continue
            if call.tool.scope != "read":
                return
            touched |= paths

    async def _precheck(self, call: _Call) -> ToolResult | None:
        assert call.tool is not None
        try:
            return await call.tool.precheck(call.parsed, self.make_context(call.block.id, self.emit_nowait))
        except (asyncio.CancelledError, AbortError):
            raise
        except Exception:
            return None  # execute runs the same checks and reports them

    async def _second_pass(self, call: _Call) -> None:
        assert call.tool is not None
        pending = self._pending(call)
        validate = self._revalidate(call.tool)
        try:
            if call.hook_decision == "ask":
                decision: PermissionDecision = await self.permissions.resolve_forced_ask(pending, validate)
            else:
                decision = await self.permissions.resolve(pending, validate, reason=call.ask_reason)
        except asyncio.CancelledError:
            raise
        except Exception:
            call.deny_reason = f"Permission resolution failed for {call.name}"
            return
        if decision.behavior != "allow":
            call.deny_reason = decision.reason or "denied"
            return
        call.approved_paths = decision.paths
        if decision.set_mode is not None and self.set_mode is not None:
            self.set_mode(decision.set_mode)
        if decision.updated_input is not None:
            try:
                self._apply_input(call, decision.updated_input)
            except Exception:
                call.deny_reason = "updated input is invalid"

    # -- execution --------------------------------------------------------

    @staticmethod
    def _batches(calls: list[_Call]) -> list[tuple[list[_Call], bool]]:
        batches: list[tuple[list[_Call], bool]] = []
        for call in calls:
            parallel = call.tool is not None and call.tool.parallel_safe and call.error is None
            if parallel and batches and batches[-1][1]:
                batches[-1][0].append(call)
            else:
                batches.append(([call], parallel))
        return batches

    async def _run_parallel(self, batch: list[_Call]) -> None:
        limit = asyncio.Semaphore(max(1, self.concurrency))

        async def guarded(call: _Call) -> None:
            async with limit:
                await self._run_call(call)

        tasks = [asyncio.ensure_future(guarded(c)) for c in batch]
        try:
            await asyncio.gather(*tasks)
        except BaseException:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise

    def _skill_name(self, call: _Call) -> str | None:
        if call.name != SKILL_TOOL or call.error is not None:
            return None
        skill = call.input.get("skill")
        return skill.lstrip("/") if isinstance(skill, str) and skill else None

    async def _run_call(self, call: _Call) -> None:
        tool_use_id = call.block.id
        skill = self._skill_name(call)
        if skill is not None:
            args = call.input.get("args")
            overlay_for = getattr(call.tool, "overlay_for", None)
            model_override, allowed_tools = overlay_for(skill) if callable(overlay_for) else (None, None)
            await self.emit(
                SkillInvokedEvent(
                    name=skill,
                    args=args if isinstance(args, str) else None,
                    model_override=model_override,
                    allowed_tools=allowed_tools,
                )
            )
        self._started.add(tool_use_id)
        await self.emit(ToolCallStartEvent(tool_use_id=tool_use_id, tool_name=call.name, input=call.input))
        started = time.perf_counter()
        result = await self._execute(call)
        duration_ms = (time.perf_counter() - started) * 1000
        if call.runnable and not result.is_error and self.call_reminders is not None:
            result = with_reminders(result, self.call_reminders(call.name, call.input))
        if call.runnable and self.hooks is not None and self.hook_context is not None:
            result = await self._post_tool_use(call, result, duration_ms)
        self.completed[tool_use_id] = ToolResultBlock(
            tool_use_id=tool_use_id,
            content=well_formed_result(result.content),
            is_error=True if result.is_error else None,
        )
        self._ended.add(tool_use_id)
        await self.emit(
            ToolCallEndEvent(
                tool_use_id=tool_use_id, tool_name=call.name, is_error=result.is_error, duration_ms=duration_ms
            )
        )
        if skill is not None:
            await self.emit(SkillCompletedEvent(name=skill, is_error=result.is_error))

    async def _execute(self, call: _Call) -> ToolResult:
        if call.error is not None:
            return ToolResult(content=call.error, is_error=True)
        if call.deny_reason is not None:
            return ToolResult(content=f"Tool call denied: {call.deny_reason}", is_error=True)
        assert call.tool is not None
        settled = False

        def emit(event: Event) -> None:
            if not settled:
                self.emit_nowait(event)

        ctx = self.make_context(call.block.id, emit)
        ctx = replace(ctx, verify_open=self._open_verifier(call))
        try:
            return await call.tool.execute(call.parsed, ctx)
        except (asyncio.CancelledError, AbortError):
            raise
        except Exception as exc:
            return ToolResult(content=f"Tool failed: {exc}", is_error=True)
        finally:
            settled = True

    def _open_verifier(self, call: _Call) -> Callable[[Path], str | None]:
        """Checks the real path a file tool opened against the paths its permission was decided on."""
        pending = self._pending(call)
        approved = call.approved_paths

        def verify(opened: Path) -> str | None:
            return self.permissions.check_opened(pending, opened, approved)

        return verify

    async def _post_tool_use(self, call: _Call, result: ToolResult, duration_ms: float) -> ToolResult:
        assert self.hooks is not None and self.hook_context is not None
        if not self.hooks.has("post_tool_use"):
            return result
        outcome = await self.hooks.post_tool_use(
            PostToolUseInput(
                tool_name=call.name,
                tool_use_id=call.block.id,
                input=call.input,
                content=result.content,
                is_error=result.is_error,
                duration_ms=duration_ms,
            ),
            self.hook_context,
        )
        await self._emit_hook_errors(outcome.errors)
        return with_reminders(result, outcome.additional_context)

    async def _close_orphans(self, calls: list[_Call]) -> None:
        for call in calls:
            tid = call.block.id
            if tid in self._started and tid not in self._ended:
                self._ended.add(tid)
                self.emit_nowait(ToolCallEndEvent(tool_use_id=tid, tool_name=call.name, is_error=True, duration_ms=0))
