"""`PermissionEngine`: rules (first match wins), mode defaults and the `can_use_tool` ask path."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..errors import ConfigError
from ..messages import PermissionMode
from .bash_rules import analyze_bash
from .mode import PERMISSION_MODES, mode_default
from .paths import PathCandidates, path_candidates, path_rule_matches, path_target, rule_applies_to
from .rules import BashRule, PathRule, ToolRule, parse_rule
from .types import (
    CanUseTool,
    CanUseToolRequest,
    Decision,
    PendingToolCall,
    PermissionAllow,
    PermissionDecision,
    PermissionDeny,
)

__all__ = ["PermissionEngine"]

Rule = ToolRule | PathRule | BashRule
Validate = Callable[[dict[str, Any]], dict[str, Any]]

NOT_CONFIGURED = "canUseTool callback is not configured"
CALLBACK_FAILED = "permission callback failed or aborted"
INVALID_RESPONSE = "permission callback returned an invalid response"
INVALID_UPDATED_INPUT = "updated input is invalid"


class _Invalid(Exception):
    pass


def _coerce_response(value: object) -> PermissionAllow | PermissionDeny:
    """Accept the typed results and the reference's JSON-shaped dicts; raise `_Invalid` otherwise."""
    if isinstance(value, PermissionAllow | PermissionDeny):
        return value
    if isinstance(value, BaseModel) and not isinstance(value, PermissionAllow | PermissionDeny):
        value = value.model_dump()
    if not isinstance(value, Mapping):
        raise _Invalid
    behavior = value.get("behavior")
    if behavior == "allow":
        updated: object = None
        for key in ("updated_input", "updatedInput"):
            if value.get(key) is not None:
                updated = value[key]
        if updated is not None and not (isinstance(updated, Mapping) and all(isinstance(k, str) for k in updated)):
            raise _Invalid
        return PermissionAllow(updated_input=dict(updated) if isinstance(updated, Mapping) else None)
    if behavior == "deny":
        message = value.get("message")
        if not isinstance(message, str):
            raise _Invalid
        return PermissionDeny(message=message)
    raise _Invalid


class PermissionEngine:
    """Decide whether a tool call may run.

    `evaluate` is pure and synchronous: rules in order (first match wins; the
    bash rules form one set evaluated at the first bash rule's position), then
    the mode default. `resolve` runs the `can_use_tool` callback for an "ask"
    and fails closed on every problem.
    """

    def __init__(
        self,
        *,
        mode: PermissionMode = "default",
        rules: Sequence[Rule | Mapping[str, Any]] = (),
        can_use_tool: CanUseTool | None = None,
        project_root: Path,
    ) -> None:
        if mode not in PERMISSION_MODES:
            raise ConfigError(f"Invalid permission mode {mode!r}; expected one of {', '.join(PERMISSION_MODES)}")
        if isinstance(rules, str | bytes | Mapping):
            raise ConfigError("permission_rules must be a list of rules")
        self._mode: PermissionMode = mode
        self._rules: list[Rule] = [parse_rule(r) for r in rules]
        self._can_use_tool = can_use_tool
        self._root = Path(project_root).expanduser().absolute()

    @property
    def mode(self) -> PermissionMode:
        """The (snapshotted) permission mode."""
        return self._mode

    def set_mode(self, mode: PermissionMode) -> None:
        """Switch the mode for later evaluations (the app's Shift+Tab); raises `ConfigError`."""
        if mode not in PERMISSION_MODES:
            raise ConfigError(f"Invalid permission mode {mode!r}; expected one of {', '.join(PERMISSION_MODES)}")
        self._mode = mode

    @property
    def rules(self) -> tuple[Rule, ...]:
        """The rules, in evaluation order."""
        return tuple(self._rules)

    @property
    def project_root(self) -> Path:
        """The directory relative path patterns resolve against."""
        return self._root

    def add_rule(self, rule: Rule | Mapping[str, Any]) -> None:
        """Append a rule (it is evaluated after every existing rule)."""
        self._rules.append(parse_rule(rule))

    # -- evaluation -----------------------------------------------------------------

    def _cwd(self, call: PendingToolCall) -> Path:
        cwd = Path(call.cwd)
        return cwd if cwd.is_absolute() else self._root / cwd

    def _rule_decision(self, call: PendingToolCall) -> tuple[Rule, Decision, str | None] | None:
        """The first rule (or bash set) that decides, with its decision and a refusal reason if any."""
        bash_done = False
        candidates = None
        for index, rule in enumerate(self._rules):
            if isinstance(rule, ToolRule):
                if self._tool_rule_matches(rule, call):
                    return rule, rule.decision, None
            elif isinstance(rule, PathRule):
                if not rule_applies_to(rule, call.tool_name):
                    continue
                if candidates is None:
                    target = path_target(call.tool_name, call.input, self._cwd(call))
                    if target is None:
                        continue
                    candidates = path_candidates(target, self._cwd(call))
                if path_rule_matches(rule, candidates, self._root):
                    return rule, rule.decision, None
            elif not bash_done:
                bash_done = True
                command = call.input.get("command")
                if call.tool_name != "Bash" or not isinstance(command, str):
                    continue
                bash_rules = [r for r in self._rules[index:] if isinstance(r, BashRule)]
                verdict = analyze_bash(command, bash_rules)
                if verdict.unknown and self._mode == "yolo":
                    # nobody to ask, and the analyzer cannot see what would run: refuse, saying why
                    return (
                        rule,
                        "deny",
                        f"Bash command refused: {verdict.reason}; rephrase it with literal command names.",
                    )
                if verdict.decision is not None:
                    return rule, verdict.decision, None
        return None

    def deciding_rule(self, call: PendingToolCall) -> Rule | None:
        """The rule that decides `call` (for Bash, the first rule of the bash set), or None."""
        hit = self._rule_decision(call)
        return hit[0] if hit is not None else None

    @staticmethod
    def _tool_rule_matches(rule: ToolRule, call: PendingToolCall) -> bool:
        if rule.tool != "*" and rule.tool != call.tool_name:
            return False
        if rule.arg is None:
            return True
        if call.tool_name != "Skill":
            return False
        if rule.arg == "*":
            return True
        skill = call.input.get("skill")
        return isinstance(skill, str) and skill.lstrip("/") == rule.arg.lstrip("/")

    def evaluate(self, call: PendingToolCall) -> PermissionDecision:
        """Rules first (first match wins), then the mode default. Pure and synchronous."""
        if not isinstance(call.tool_name, str) or not call.tool_name or not isinstance(call.input, Mapping):
            return PermissionDecision("deny", "Invalid tool call.")
        try:
            hit = self._rule_decision(call)
        except Exception:  # fail closed: a rule that cannot be evaluated must not let the call through
            return PermissionDecision("deny", f"Permission evaluation failed for {call.tool_name}.")
        if hit is not None:
            rule, decision, refusal = hit
            reason = refusal or f"{rule.kind} rule matched {call.tool_name}."
            return PermissionDecision(decision, reason)
        return PermissionDecision(mode_default(self._mode, call.scope, call.tool_name))

    # -- the ask path -----------------------------------------------------------------

    async def resolve(self, call: PendingToolCall, validate: Validate) -> PermissionDecision:
        """Ask `can_use_tool`; fail closed on every problem.

        Deny reasons: "canUseTool callback is not configured", "permission
        callback failed or aborted" (the callback raised), "permission callback
        returned an invalid response", "updated input is invalid", or the
        callback's own deny message. Cancellation of the calling task propagates.
        """
        if self._can_use_tool is None:
            return PermissionDecision("deny", NOT_CONFIGURED)
        request = CanUseToolRequest(
            tool_name=call.tool_name,
            tool_use_id=call.tool_use_id,
            input=dict(call.input),
            summary=call.summary,
            mode=self._mode,
        )
        try:
            raw: object = self._can_use_tool(request)
            if inspect.isawaitable(raw):
                raw = await raw
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            return PermissionDecision("deny", CALLBACK_FAILED)
        except Exception:
            return PermissionDecision("deny", CALLBACK_FAILED)
        try:
            response = _coerce_response(raw)
        except _Invalid:
            return PermissionDecision("deny", INVALID_RESPONSE)
        if isinstance(response, PermissionDeny):
            return PermissionDecision("deny", response.message)
        if response.updated_input is None:
            return PermissionDecision("allow")
        try:
            canonical = validate(dict(response.updated_input))
        except Exception:
            return PermissionDecision("deny", INVALID_UPDATED_INPUT)
        return PermissionDecision("allow", None, canonical)

    async def resolve_forced_ask(self, call: PendingToolCall, validate: Validate) -> PermissionDecision:
        """A hook forced "ask": a matching deny rule still wins; otherwise the callback always runs."""
        hit = self._rule_decision(call)
        if hit is not None and hit[1] == "deny":
            return PermissionDecision("deny", hit[2] or f"{hit[0].kind} rule matched {call.tool_name}.")
        return await self.resolve(call, validate)

    @property
    def restricts_reads(self) -> bool:
        """True when some path rule applies to Read, so Glob and Grep must filter their results."""
        return any(isinstance(rule, PathRule) and rule_applies_to(rule, "Read") for rule in self._rules)

    def can_read(self, path: Path) -> bool:
        """False when a path rule that applies to Read denies `path` (first matching Read path rule wins)."""
        candidates: PathCandidates | None = None
        for rule in self._rules:
            if isinstance(rule, PathRule) and rule_applies_to(rule, "Read"):
                if candidates is None:
                    candidates = path_candidates(str(Path(path)), self._root)
                if path_rule_matches(rule, candidates, self._root):
                    return rule.decision != "deny"
        return True
