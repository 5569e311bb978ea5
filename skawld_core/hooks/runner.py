"""`HookRunner`: validates hook configuration and runs hooks with matchers and timeouts.

Policy (reference §2.9): PreToolUse fails **closed** (a raise or timeout
denies the call with "Hook failed: <msg>") unless its entry is `fail_open` (Claude
Code's command hooks); every other hook fails **open**.
Every failure is reported as a `HookErrorEvent` in the result's `errors`.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any, Literal

from ..errors import ConfigError
from ..events import HookErrorEvent
from .types import (
    HookAllow,
    HookAsk,
    HookBlock,
    HookContext,
    HookContinue,
    HookDeny,
    HookEntry,
    HookEventName,
    Hooks,
    PostToolUseInput,
    PostToolUseOutcome,
    PreCompactInput,
    PreToolUseInput,
    SessionStartInput,
    StopInput,
    SubagentStopInput,
    UserPromptSubmitInput,
)

__all__ = [
    "HookRunner",
    "PostToolUseResult",
    "PreToolUseResult",
    "PromptHookResult",
    "StopHookResult",
    "matcher_matches",
    "normalize_hooks",
]

Revalidate = Callable[[dict[str, Any]], tuple[dict[str, Any], str]]

_FIELD_BY_EVENT: dict[HookEventName, str] = {
    "PreToolUse": "pre_tool_use",
    "PostToolUse": "post_tool_use",
    "UserPromptSubmit": "user_prompt_submit",
    "Stop": "stop",
    "PreCompact": "pre_compact",
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "Notification": "notification",
    "SubagentStop": "subagent_stop",
}
_EVENT_BY_KEY: dict[str, HookEventName] = {}
for _event, _field in _FIELD_BY_EVENT.items():
    _EVENT_BY_KEY[_event] = _event
    _EVENT_BY_KEY[_field] = _event
    _EVENT_BY_KEY[_event[0].lower() + _event[1:]] = _event  # camelCase, as in the reference


# -- results ----------------------------------------------------------------------------------


@dataclass
class PreToolUseResult:
    """Composed PreToolUse outcome: deny > ask > allow > continue.

    `input`/`summary` are the (possibly rewritten, re-validated) call input and
    its summary; `reason` is set for a deny.
    """

    decision: Literal["continue", "allow", "deny", "ask"]
    input: dict[str, Any]
    summary: str
    reason: str | None = None
    errors: list[HookErrorEvent] = field(default_factory=list)


@dataclass
class PostToolUseResult:
    """Non-empty `additional_context` strings in registration order."""

    additional_context: list[str] = field(default_factory=list)
    errors: list[HookErrorEvent] = field(default_factory=list)


@dataclass
class PromptHookResult:
    """UserPromptSubmit: the first block's reason (if any) and accumulated context."""

    block_reason: str | None = None
    additional_context: list[str] = field(default_factory=list)
    errors: list[HookErrorEvent] = field(default_factory=list)


@dataclass
class StopHookResult:
    """Stop: the first block's reason, if any."""

    block_reason: str | None = None
    errors: list[HookErrorEvent] = field(default_factory=list)


# -- configuration ------------------------------------------------------------------------------


def _entry(where: str, raw: object) -> list[HookEntry]:
    if isinstance(raw, HookEntry):
        hook: object = raw.hook
        matcher: object = raw.matcher
        timeout: object = raw.timeout_ms
        fail_open = raw.fail_open
        hooks: list[object] = [hook]
    elif isinstance(raw, Mapping):
        unknown = set(raw) - {"hook", "hooks", "matcher", "timeout_ms", "timeoutMs", "fail_open"}
        if unknown:
            raise ConfigError(f"hooks.{where}: unknown key(s) {', '.join(sorted(map(str, unknown)))}")
        matcher = raw.get("matcher")
        timeout = raw.get("timeout_ms", raw.get("timeoutMs", 60000))
        fail_open = raw.get("fail_open") is True
        if "hooks" in raw:
            many = raw["hooks"]
            if not isinstance(many, list | tuple) or not many:
                raise ConfigError(f"hooks.{where}: 'hooks' must be a non-empty list of functions")
            hooks = list(many)
        else:
            hooks = [raw.get("hook")]
    elif callable(raw):
        hooks, matcher, timeout, fail_open = [raw], None, 60000, False
    else:
        raise ConfigError(f"hooks.{where}: expected a hook entry, got {type(raw).__name__}")
    if timeout is None:
        timeout = 60000
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not math.isfinite(timeout) or timeout <= 0:
        raise ConfigError(f"hooks.{where}: timeout_ms must be a positive finite number (got {timeout!r})")
    if matcher is not None and not isinstance(matcher, str):
        raise ConfigError(f"hooks.{where}: matcher must be a string (got {type(matcher).__name__})")
    out: list[HookEntry] = []
    for fn in hooks:
        if not callable(fn):
            raise ConfigError(f"hooks.{where}: hook must be a function")
        out.append(HookEntry(hook=fn, matcher=matcher, timeout_ms=float(timeout), fail_open=fail_open))
    return out


def normalize_hooks(hooks: Hooks | Mapping[str, Any] | None) -> Hooks:
    """Validate and normalize a hook configuration; raises `ConfigError`.

    Keys may be `pre_tool_use`, `preToolUse` or `PreToolUse` (and so on). Each
    value must be a list of `HookEntry`, entry dicts (`hook`, `matcher`,
    `timeout_ms`/`timeoutMs`, or `hooks: [fn, ...]`) or bare functions.
    """
    result = Hooks()
    if hooks is None:
        return result
    items: list[tuple[str, object]]
    if isinstance(hooks, Hooks):
        items = [(f.name, getattr(hooks, f.name)) for f in fields(Hooks)]
    elif isinstance(hooks, Mapping):
        items = list(hooks.items())
    else:
        raise ConfigError(f"hooks must be a Hooks object or a mapping, got {type(hooks).__name__}")
    for key, value in items:
        event = _EVENT_BY_KEY.get(str(key))
        if event is None:
            raise ConfigError(f"hooks: unknown hook event {key!r}")
        if value is None:
            continue
        if not isinstance(value, list | tuple):
            raise ConfigError(f"hooks.{key} must be a list")
        target: list[HookEntry] = getattr(result, _FIELD_BY_EVENT[event])
        for i, raw in enumerate(value):
            target.extend(_entry(f"{key}[{i}]", raw))
    return result


@lru_cache(maxsize=256)
def _matcher_regex(matcher: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if c == "*" else re.escape(c) for c in matcher), re.DOTALL)


def matcher_matches(matcher: str | None, tool_name: str) -> bool:
    """Case-sensitive glob where only `*` is special; `None` matches every tool."""
    return matcher is None or _matcher_regex(matcher).fullmatch(tool_name) is not None


def _fmt_ms(ms: float) -> str:
    return str(int(ms)) if float(ms).is_integer() else f"{ms:g}"


class _HookFailure(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _get(d: Mapping[str, Any], *keys: str) -> Any:
    for k in keys:
        if k in d:
            return d[k]
    return None


# -- runner ------------------------------------------------------------------------------------


class HookRunner:
    """Runs the configured hooks of each event in registration order."""

    def __init__(self, hooks: Hooks | Mapping[str, Any] | None) -> None:
        self._hooks = normalize_hooks(hooks)

    @property
    def hooks(self) -> Hooks:
        """The normalized configuration."""
        return self._hooks

    def _entries(self, event: HookEventName) -> list[HookEntry]:
        entries: list[HookEntry] = getattr(self._hooks, _FIELD_BY_EVENT[event])
        return entries

    def has(self, event_name: str, tool_name: str | None = None) -> bool:
        """Whether any hook is registered for the event (and, if given, matches `tool_name`)."""
        event = _EVENT_BY_KEY.get(event_name)
        if event is None:
            return False
        entries = self._entries(event)
        if tool_name is None or event not in ("PreToolUse", "PostToolUse"):
            return bool(entries)
        return any(matcher_matches(e.matcher, tool_name) for e in entries)

    async def _call(self, entry: HookEntry, inp: object, ctx: HookContext) -> Any:
        """Run one hook under its timeout; raise `_HookFailure` on a raise or timeout."""
        cm = asyncio.timeout(entry.timeout_ms / 1000)
        try:
            async with cm:
                value = entry.hook(inp, ctx)
                if inspect.isawaitable(value):
                    value = await value
                return value
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            raise _HookFailure("hook was cancelled") from None
        except Exception as exc:
            if cm.expired():
                raise _HookFailure(f"Hook timed out after {_fmt_ms(entry.timeout_ms)}ms") from None
            raise _HookFailure(str(exc) or type(exc).__name__) from None

    async def pre_tool_use(self, inp: PreToolUseInput, ctx: HookContext, revalidate: Revalidate) -> PreToolUseResult:
        """Run the matching PreToolUse hooks; fail closed.

        Each hook sees the input as rewritten by earlier hooks; a rewrite is
        passed through `revalidate` (→ canonical input, summary) and a failing
        one denies with "invalid hook rewrite: <msg>". A deny short-circuits.
        """
        current, summary = dict(inp.input), inp.summary
        result = PreToolUseResult(decision="continue", input=current, summary=summary)
        saw_allow = saw_ask = False
        for entry in self._entries("PreToolUse"):
            if not matcher_matches(entry.matcher, inp.tool_name):
                continue
            hook_input = PreToolUseInput(inp.tool_name, inp.tool_use_id, dict(current), summary)
            try:
                outcome = await self._call(entry, hook_input, ctx)
                updated, kind, reason = self._pre_outcome(outcome)
            except _HookFailure as failure:
                result.errors.append(
                    HookErrorEvent(hook_event="PreToolUse", message=failure.message, tool_use_id=inp.tool_use_id)
                )
                if entry.fail_open:
                    continue
                return self._deny(result, current, summary, f"Hook failed: {failure.message}")
            if kind == "deny":
                return self._deny(result, current, summary, reason or "Denied by PreToolUse hook")
            if updated is not None:
                try:
                    current, summary = revalidate(dict(updated))
                except Exception as exc:
                    return self._deny(result, current, summary, f"invalid hook rewrite: {exc}")
            saw_allow = saw_allow or kind == "allow"
            saw_ask = saw_ask or kind == "ask"
        result.input, result.summary = current, summary
        result.decision = "ask" if saw_ask else "allow" if saw_allow else "continue"
        return result

    @staticmethod
    def _deny(result: PreToolUseResult, current: dict[str, Any], summary: str, reason: str) -> PreToolUseResult:
        result.decision, result.input, result.summary, result.reason = "deny", current, summary, reason
        return result

    @staticmethod
    def _pre_outcome(outcome: object) -> tuple[Mapping[str, Any] | None, str, str | None]:
        """(updated_input, kind, reason) of a PreToolUse outcome; `_HookFailure` if malformed."""
        updated: object = None
        reason: object = None
        if outcome is None:
            return None, "continue", None
        if isinstance(outcome, HookContinue):
            kind, updated = "continue", outcome.updated_input
        elif isinstance(outcome, HookAllow):
            kind, updated = "allow", outcome.updated_input
        elif isinstance(outcome, HookDeny):
            kind, reason = "deny", outcome.reason
        elif isinstance(outcome, HookAsk):
            kind = "ask"
        elif isinstance(outcome, Mapping) and _get(outcome, "decision", "behavior") in (
            "continue",
            "allow",
            "deny",
            "ask",
        ):
            kind = str(_get(outcome, "decision", "behavior"))
            updated = _get(outcome, "updated_input", "updatedInput")
            reason = outcome.get("reason")
        else:
            raise _HookFailure(f"invalid PreToolUse outcome: {type(outcome).__name__}")
        if updated is not None and not isinstance(updated, Mapping):
            raise _HookFailure("invalid PreToolUse outcome: updated_input must be an object")
        if reason is not None and not isinstance(reason, str):
            raise _HookFailure("invalid PreToolUse outcome: reason must be a string")
        return updated, kind, reason

    async def post_tool_use(self, inp: PostToolUseInput, ctx: HookContext) -> PostToolUseResult:
        """Run the matching PostToolUse hooks; collect `additional_context`; fail open."""
        result = PostToolUseResult()
        for entry in self._entries("PostToolUse"):
            if not matcher_matches(entry.matcher, inp.tool_name):
                continue
            try:
                outcome = await self._call(entry, inp, ctx)
                context = self._context_of(outcome, "PostToolUse")
            except _HookFailure as failure:
                result.errors.append(
                    HookErrorEvent(hook_event="PostToolUse", message=failure.message, tool_use_id=inp.tool_use_id)
                )
                continue
            if context:
                result.additional_context.append(context)
        return result

    @staticmethod
    def _context_of(outcome: object, event: str) -> str | None:
        if outcome is None:
            return None
        if isinstance(outcome, PostToolUseOutcome | HookContinue):
            value: object = outcome.additional_context
        elif isinstance(outcome, Mapping):
            value = _get(outcome, "additional_context", "additionalContext")
        else:
            raise _HookFailure(f"invalid {event} outcome: {type(outcome).__name__}")
        if value is not None and not isinstance(value, str):
            raise _HookFailure(f"invalid {event} outcome: additional_context must be a string")
        return value or None

    @staticmethod
    def _block_of(outcome: object) -> str | None:
        if isinstance(outcome, HookBlock):
            return outcome.reason if isinstance(outcome.reason, str) else str(outcome.reason)
        if isinstance(outcome, Mapping) and _get(outcome, "decision", "behavior") == "block":
            reason = outcome.get("reason")
            if reason is not None and not isinstance(reason, str):
                raise _HookFailure("invalid hook outcome: reason must be a string")
            return reason or ""
        return None

    async def user_prompt_submit(self, inp: UserPromptSubmitInput, ctx: HookContext) -> PromptHookResult:
        """Run UserPromptSubmit hooks: the first block wins; context accumulates; fail open."""
        result = PromptHookResult()
        for entry in self._entries("UserPromptSubmit"):
            try:
                outcome = await self._call(entry, inp, ctx)
                block = self._block_of(outcome)
                context = None if block is not None else self._context_of(outcome, "UserPromptSubmit")
            except _HookFailure as failure:
                result.errors.append(HookErrorEvent(hook_event="UserPromptSubmit", message=failure.message))
                continue
            if block is not None:
                result.block_reason = block or "Prompt blocked by a UserPromptSubmit hook"
                return result
            if context:
                result.additional_context.append(context)
        return result

    async def stop(self, inp: StopInput, ctx: HookContext) -> StopHookResult:
        """Run Stop hooks: the first block wins; fail open."""
        return await self._stop_like("Stop", inp, ctx)

    async def subagent_stop(self, inp: SubagentStopInput, ctx: HookContext) -> StopHookResult:
        """Run SubagentStop hooks (a subagent's run about to stop), as Stop hooks run."""
        return await self._stop_like("SubagentStop", inp, ctx)

    async def _stop_like(self, event: HookEventName, inp: object, ctx: HookContext) -> StopHookResult:
        result = StopHookResult()
        for entry in self._entries(event):
            try:
                outcome = await self._call(entry, inp, ctx)
                block = self._block_of(outcome)
                if block is None and not (outcome is None or isinstance(outcome, HookContinue | Mapping)):
                    raise _HookFailure(f"invalid {event} outcome: {type(outcome).__name__}")
            except _HookFailure as failure:
                result.errors.append(HookErrorEvent(hook_event=event, message=failure.message))
                continue
            if block is not None:
                result.block_reason = block or f"Stop blocked by a {event} hook"
                return result
        return result

    async def session_start(self, inp: SessionStartInput, ctx: HookContext) -> PromptHookResult:
        """Run the SessionStart hooks whose matcher matches the source (none: all); their additional
        context is collected (fail open, nothing blocks)."""
        result = PromptHookResult()
        for entry in self._entries("SessionStart"):
            if not matcher_matches(entry.matcher, inp.source):  # startup, resume, clear, compact
                continue
            try:
                outcome = await self._call(entry, inp, ctx)
                context = None if isinstance(outcome, HookBlock) else self._context_of(outcome, "SessionStart")
            except _HookFailure as failure:
                result.errors.append(HookErrorEvent(hook_event="SessionStart", message=failure.message))
                continue
            if context:
                result.additional_context.append(context)
        return result

    async def observe(self, event: HookEventName, inp: object, ctx: HookContext) -> list[HookErrorEvent]:
        """Run an observational event's hooks (SessionEnd, Notification, PreCompact); return their errors."""
        errors: list[HookErrorEvent] = []
        for entry in self._entries(event):
            try:
                await self._call(entry, inp, ctx)
            except _HookFailure as failure:
                errors.append(HookErrorEvent(hook_event=event, message=failure.message))
        return errors

    async def pre_compact(self, inp: PreCompactInput, ctx: HookContext) -> list[HookErrorEvent]:
        """Run PreCompact hooks (observational); return their errors."""
        return await self.observe("PreCompact", inp, ctx)
