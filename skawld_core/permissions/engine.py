"""`PermissionEngine`: rules (first match wins), mode defaults and the `can_use_tool` ask path."""

from __future__ import annotations

import asyncio
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..errors import ConfigError
from ..messages import PermissionMode
from ..sandbox.spec import SandboxSpec
from ..tools.path_policy import PathPolicy
from .bash_rules import analyze_bash
from .domains import call_host, domain_rule_matches, sandbox_domains
from .mode import ASKING_READ_TOOLS, EXIT_PLAN_MODE_TOOL, PERMISSION_MODES, mode_default, plan_mode_refusal
from .paths import (
    PathCandidates,
    call_path_policy,
    path_candidates,
    path_rule_matches,
    path_targets,
    rule_applies_to,
    rule_names_path,
)
from .rules import BashRule, DomainRule, PathRule, ToolRule, parse_rule
from .sandbox_spec import sandbox_spec
from .types import (
    CanUseTool,
    CanUseToolRequest,
    Decision,
    PendingToolCall,
    PermissionAllow,
    PermissionDecision,
    PermissionDeny,
)
from .updates import requested_mode
from .write_scope import inside_scope, protected_reason

__all__ = ["PermissionEngine"]

Rule = ToolRule | PathRule | BashRule | DomainRule
Validate = Callable[[dict[str, Any]], dict[str, Any]]

NOT_CONFIGURED = "canUseTool callback is not configured"
CALLBACK_FAILED = "permission callback failed or aborted"
INVALID_RESPONSE = "permission callback returned an invalid response"
INVALID_UPDATED_INPUT = "updated input is invalid"
NOT_PLANNING = "ExitPlanMode is only for plan mode, and plan mode is not active; carry on with the task."


class _Invalid(Exception):
    pass


def _coerce_response(value: object) -> PermissionAllow | PermissionDeny:
    """Accept the typed results and the reference's JSON-shaped dicts; raise `_Invalid` otherwise."""
    if isinstance(value, BaseModel):  # the typed results too: one path validates every answer
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
        return PermissionAllow(
            updated_input=dict(updated) if isinstance(updated, Mapping) else None, set_mode=_requested_mode(value)
        )
    if behavior == "deny":
        message = value.get("message")
        if not isinstance(message, str):
            raise _Invalid
        return PermissionDeny(message=message)
    raise _Invalid


def _requested_mode(value: Mapping[str, Any]) -> PermissionMode | None:
    """`set_mode`/`setMode`, or Claude Code's `updatedPermissions: [{"type": "setMode", "mode": ...}]`."""
    mode: object = value.get("set_mode", value.get("setMode"))
    if mode is None:
        mode = requested_mode(value.get("updated_permissions", value.get("updatedPermissions")))
    if mode is None:
        return None
    if mode == "bypassPermissions":
        mode = "yolo"
    if mode not in PERMISSION_MODES:
        raise _Invalid
    return mode


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
        additional_directories: Sequence[str | Path] = (),
    ) -> None:
        if mode not in PERMISSION_MODES:
            raise ConfigError(f"Invalid permission mode {mode!r}; expected one of {', '.join(PERMISSION_MODES)}")
        if isinstance(rules, str | bytes | Mapping):
            raise ConfigError("permission_rules must be a list of rules")
        self._mode: PermissionMode = mode
        self._rules: list[Rule] = [parse_rule(r) for r in rules]
        self._can_use_tool = can_use_tool
        self._root = Path(project_root).expanduser().absolute()
        self._added = [Path(os.path.realpath(self._root / Path(d).expanduser())) for d in additional_directories]
        # Set by the Agent: True when Bash runs in the OS sandbox (acceptEdits then allows it).
        self.bash_sandboxed: Callable[[], bool] = lambda: False

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

    @property
    def additional_directories(self) -> tuple[Path, ...]:
        """Directories outside the project where `acceptEdits` also approves writes (real paths)."""
        return tuple(self._added)

    @property
    def write_roots(self) -> tuple[Path, ...]:
        """The project root and the added directories: the write scope of `acceptEdits`."""
        return (self._root, *self._added)

    def add_directory(self, directory: str | Path) -> None:
        """Add a directory to the write scope (resolved against the project root, symlinks followed)."""
        real = Path(os.path.realpath(self._root / Path(directory).expanduser()))
        if real not in self._added:
            self._added.append(real)

    def add_rule(self, rule: Rule | Mapping[str, Any]) -> None:
        """Append a rule (it is evaluated after every existing rule)."""
        self._rules.append(parse_rule(rule))

    def remove_rule(self, rule: Rule | Mapping[str, Any]) -> bool:
        """Remove the last rule equal to `rule` (the most recently added); False when none is."""
        wanted = parse_rule(rule)
        for index in range(len(self._rules) - 1, -1, -1):
            if self._rules[index] == wanted:
                del self._rules[index]
                return True
        return False

    # -- evaluation -----------------------------------------------------------------

    def _cwd(self, call: PendingToolCall) -> Path:
        cwd = Path(call.cwd)
        return cwd if cwd.is_absolute() else self._root / cwd

    def _candidates(self, call: PendingToolCall) -> PathCandidates | None:
        """Every interpretation of the call's target path (None when the tool has no path)."""
        targets = path_targets(self._path_policy(call), call.input, self._cwd(call))
        return path_candidates(targets, self._cwd(call)) if targets else None

    @staticmethod
    def _path_policy(call: PendingToolCall) -> PathPolicy | None:
        return call_path_policy(call.tool_name, call.path_policy)

    def _edits(self, call: PendingToolCall) -> bool:
        """Whether the call writes the paths it names: its tool is of the edit family."""
        policy = self._path_policy(call)
        return policy is not None and policy.family == "edit"

    def target_paths(self, call: PendingToolCall) -> tuple[str, ...]:
        """The real paths (symlinks followed) a file tool's call targets; () for other tools."""
        candidates = self._candidates(call)
        return candidates.real if candidates is not None else ()

    def _rule_decision(
        self, call: PendingToolCall, candidates: PathCandidates | None = None
    ) -> tuple[Rule, Decision, str | None] | None:
        """The first rule (or bash set) that decides, with its decision and a refusal reason if any."""
        # the bash rules form one set, evaluated at the position of the first one
        first_bash = next((i for i, r in enumerate(self._rules) if isinstance(r, BashRule)), -1)
        for index, rule in enumerate(self._rules):
            if isinstance(rule, ToolRule):
                if self._tool_rule_matches(rule, call):
                    return rule, rule.decision, None
            elif isinstance(rule, PathRule):
                if not rule_applies_to(rule, call.tool_name, self._path_policy(call)):
                    continue
                if candidates is None:
                    candidates = self._candidates(call)
                    if candidates is None:
                        continue
                if path_rule_matches(rule, candidates, self._root):
                    return rule, rule.decision, None
            elif isinstance(rule, DomainRule):
                if domain_rule_matches(rule, call.tool_name, call.input):
                    return rule, rule.decision, None
            elif index == first_bash:
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
        matched = fnmatchcase(call.tool_name, rule.tool) if "*" in rule.tool else rule.tool == call.tool_name
        if not matched:
            return False
        if rule.arg is None:
            return True
        if call.tool_name != "Skill":
            return False
        if rule.arg == "*":
            return True
        skill = call.input.get("skill")
        return isinstance(skill, str) and skill.lstrip("/") == rule.arg.lstrip("/")

    def _write_target(self, call: PendingToolCall) -> PathCandidates | None:
        """The interpretations of a write-scope call's target path (None: not a write, or no path)."""
        return self._candidates(call) if self._edits(call) else None

    def evaluate(self, call: PendingToolCall) -> PermissionDecision:
        """Plan mode, then rules (first match wins), protected paths, then the mode default.

        Pure and synchronous. A deny rule always wins. A write to a protected path
        asks (outside yolo) unless the deciding allow rule names that exact path.
        `acceptEdits` approves a write only inside the project and added directories.
        """
        if not isinstance(call.tool_name, str) or not call.tool_name or not isinstance(call.input, Mapping):
            return PermissionDecision("deny", "Invalid tool call.")
        if self._mode == "plan":
            refusal = plan_mode_refusal(call.scope, call.tool_name)
            if refusal is not None:
                return PermissionDecision("deny", refusal)
        elif call.tool_name == EXIT_PLAN_MODE_TOOL:
            return PermissionDecision("deny", NOT_PLANNING)
        try:
            candidates = self._candidates(call)
            hit = self._rule_decision(call, candidates)
        except Exception:  # fail closed: a rule that cannot be evaluated must not let the call through
            return PermissionDecision("deny", f"Permission evaluation failed for {call.tool_name}.")
        paths = candidates.real if candidates is not None else ()
        decision = self._decide(call, hit, candidates if self._edits(call) else None)
        return replace(decision, paths=paths)

    def _decide(
        self, call: PendingToolCall, hit: tuple[Rule, Decision, str | None] | None, target: PathCandidates | None
    ) -> PermissionDecision:
        # Messages name target.real[-1]: with a leading `~` that is the expanded path the tool writes.
        if hit is not None and hit[1] == "deny":
            return PermissionDecision("deny", hit[2] or f"{hit[0].kind} rule matched {call.tool_name}.")
        if target is not None and self._mode != "yolo":
            why = protected_reason(target.all)
            if why is not None:
                rule = hit[0] if hit is not None and hit[1] == "allow" else None
                if isinstance(rule, PathRule) and rule_names_path(rule, target, self._root):
                    return PermissionDecision("allow", f"path rule names {target.real[-1]}.")
                return PermissionDecision("ask", f"{target.real[-1]} is a protected path: {why}.")
        if hit is not None:
            rule, decision, refusal = hit
            return PermissionDecision(decision, refusal or f"{rule.kind} rule matched {call.tool_name}.")
        sandboxed = call.tool_name == "Bash" and self._mode == "acceptEdits" and self.bash_sandboxed()
        default = mode_default(self._mode, call.scope, call.tool_name, sandboxed=sandboxed)
        if (
            default == "allow"
            and self._mode == "acceptEdits"
            and target is not None
            and not inside_scope(target.real, self.write_roots)
        ):
            return PermissionDecision("ask", f"{target.real[-1]} is outside the project and its added directories.")
        if default == "ask" and call.tool_name in ASKING_READ_TOOLS:
            host = call_host(call.tool_name, call.input) or "this URL"
            return PermissionDecision("ask", f"{call.tool_name} asks for each domain; no rule allows {host}.")
        return PermissionDecision(default, plan_mode_refusal(call.scope, call.tool_name) if default == "deny" else None)

    # -- the ask path -----------------------------------------------------------------

    async def resolve(
        self, call: PendingToolCall, validate: Validate, *, reason: str | None = None
    ) -> PermissionDecision:
        """Ask `can_use_tool`; fail closed on every problem.

        Deny reasons: "canUseTool callback is not configured", "permission
        callback failed or aborted" (the callback raised), "permission callback
        returned an invalid response", "updated input is invalid", or the
        callback's own deny message. Cancellation of the calling task propagates.
        `reason` (why the call asks, from `evaluate`) is passed on to the callback.
        """
        if self._can_use_tool is None:
            return PermissionDecision("deny", NOT_CONFIGURED)
        approved = self.target_paths(call)  # the files the host is asked about
        request = CanUseToolRequest(
            tool_name=call.tool_name,
            tool_use_id=call.tool_use_id,
            input=dict(call.input),
            summary=call.summary,
            mode=self._mode,
            reason=reason,
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
            return PermissionDecision("allow", set_mode=response.set_mode, paths=approved)
        try:
            canonical = validate(dict(response.updated_input))
        except Exception:
            return PermissionDecision("deny", INVALID_UPDATED_INPUT)
        refusal = self.recheck_updated_input(call, canonical)
        if refusal is not None:
            return PermissionDecision("deny", refusal)
        paths = self.target_paths(replace(call, input=canonical))
        return PermissionDecision("allow", None, canonical, set_mode=response.set_mode, paths=paths)

    def recheck_updated_input(self, call: PendingToolCall, updated: Mapping[str, Any]) -> str | None:
        """Why a host's rewritten input may not run, or None when the approval covers it.

        The rewrite is evaluated like a new call: a deny (a deny rule, or plan
        mode) refuses it; so does a write to a protected path other than the one
        the host was asked about, since protected paths need an approval naming
        them. Any other "ask" is covered by the host's answer.
        """
        if dict(updated) == dict(call.input):
            return None
        rewritten = replace(call, input=dict(updated))
        decision = self.evaluate(rewritten)
        if decision.behavior == "deny":
            return f"updated input was refused: {decision.reason or 'denied'}"
        if decision.behavior == "allow":
            return None
        new_target = self._write_target(rewritten)
        if new_target is None or protected_reason(new_target.all) is None:
            return None
        old_target = self._write_target(call)
        if old_target is not None and set(old_target.real) == set(new_target.real):
            return None
        return f"updated input was refused: {decision.reason} Ask for that exact path instead of rewriting to it."

    async def resolve_forced_ask(self, call: PendingToolCall, validate: Validate) -> PermissionDecision:
        """A hook forced "ask": a matching deny rule still wins; otherwise the callback always runs."""
        hit = self._rule_decision(call)
        if hit is not None and hit[1] == "deny":
            return PermissionDecision("deny", hit[2] or f"{hit[0].kind} rule matched {call.tool_name}.")
        return await self.resolve(call, validate)

    def plan_refusal(self, call: PendingToolCall) -> str | None:
        """The plan-mode refusal for `call`, or None (not planning, or a tool that runs while planning).

        Plan mode holds even against a PreToolUse hook's "allow" or "ask"."""
        return plan_mode_refusal(call.scope, call.tool_name) if self._mode == "plan" else None

    def check_opened(self, call: PendingToolCall, opened: str | Path, approved: Sequence[str]) -> str | None:
        """Why a file tool may not use the file it actually opened, or None when it may.

        `opened` is the real path of the open descriptor; `approved` the real
        paths the permission decision was made on. The same file passes; any
        other file (a symlink swapped in after the check) must be allowed on its
        own, without asking, or the tool refuses it.
        """
        real = str(opened)
        if real in approved:
            return None
        policy = self._path_policy(call)
        fields = policy.fields if policy is not None else ()
        decision = self.evaluate(replace(call, input={**call.input, **dict.fromkeys(fields, real)}))
        if decision.behavior == "allow":
            return None
        why = decision.reason or ("it needs approval" if decision.behavior == "ask" else "denied")
        return f"{real} is not the file the permission check approved, and it may not be used: {why}"

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

    def sandbox_domains(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(allowed, denied) domains of the `WebFetch(domain:…)` rules, for the sandbox's proxy."""
        return sandbox_domains(self.rules)

    def sandbox_spec(self, base: SandboxSpec) -> SandboxSpec:
        """The spec of a sandboxed call under these rules (`permissions.sandbox_spec`)."""
        return sandbox_spec(self, base)
