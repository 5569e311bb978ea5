"""One permission broker for the app and the plain mode (DESIGN decision 15).

`PermissionBroker.can_use_tool` is the agent's `can_use_tool`: it handles the plan
dialog (ExitPlanMode), the session's "allow for this session" answers and the
project's remembered rules, and asks the user only through a `PermissionAsker`
(the app's modal, the plain mode's prompt). What "always allow in this project"
would save comes from `skawld_core.permissions.suggest` and is shown by the asker verbatim.

The rules "always" saves are `skawld_core.permissions.suggest`'s (Claude Code's syntax),
saved by `skawld_core.permissions.remembered` into ``.claude/settings.local.json`` and added
to the running engine at once.

`PermissionBroker.ask_network` is the sandbox proxy's `NetworkAsk` (a sandboxed command
wants a host name the domain lists leave out): once opens the name for the session,
always also saves ``WebFetch(domain:NAME)`` (the rule Claude Code's "don't ask again"
saves; the sandbox merges its domains into ``allowedDomains``), no refuses.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from skawld_core.permissions.suggest import RuleOffer, suggest_rules

from .plan_feedback import keep_planning_message

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.permissions import CanUseToolRequest, PermissionAllow, PermissionDeny, PermissionEngine

__all__ = [
    "PermissionAnswer",
    "NetworkChoice",
    "PermissionAsker",
    "PermissionBroker",
    "PlanReply",
    "session_key",
]

Choice = Literal["allow", "always", "session", "deny"]
NetworkChoice = Literal["once", "always", "no"]


@dataclass(frozen=True)
class PermissionAnswer:
    """What the user decided: once, always in this project, for this session, or deny.

    `reason` goes to the model on deny; `interrupt` also stops the turn (Esc).
    """

    choice: Choice
    reason: str = ""
    interrupt: bool = False


class PlanReply(Protocol):
    """The plan dialog's answer (the app's `PlanAnswer`, or the plain mode's)."""

    @property
    def choice(self) -> str: ...

    @property
    def feedback(self) -> str: ...

    @property
    def interrupt(self) -> bool: ...


class PermissionAsker(Protocol):
    """The UI half of the broker: asks the user and reports back."""

    async def ask_permission(self, req: CanUseToolRequest, offer: RuleOffer) -> PermissionAnswer | None:
        """Ask about one call; `offer.rules` is what "always" saves (None: no answer)."""
        ...

    async def ask_plan(self, req: CanUseToolRequest) -> PlanReply | None:
        """Show an ExitPlanMode plan and ask how to go on (None: no answer)."""
        ...

    async def ask_network(self, host: str, rule: str) -> NetworkChoice | None:
        """Ask whether sandboxed commands may reach `host`; always saves `rule` (None: no answer)."""
        ...

    def interrupt(self) -> None:
        """The user asked to stop the turn too."""
        ...

    def notice(self, text: str, *, warning: bool = False) -> None:
        """Tell the user something (a rule was saved, or could not be)."""
        ...


def session_key(tool_name: str, tool_input: Mapping[str, Any]) -> tuple[str, ...]:
    """What "allow for this session" remembers: the tool, for Bash the exact command,
    for WebFetch the host."""
    from skawld_core.permissions.domains import call_host

    if tool_name == "Bash":
        return (tool_name, str(tool_input.get("command", "")))
    host = call_host(tool_name, tool_input)
    if host is not None:
        return (tool_name, host)
    return (tool_name,)


# -- the broker ------------------------------------------------------------------------


class PermissionBroker:
    """The permission callback shared by the app and the plain mode.

    `agent` returns the running agent (None before it is built); `env` is where
    ``~/.skawld`` is (default: the process environment).
    """

    def __init__(
        self, asker: PermissionAsker, agent: Callable[[], Agent | None], *, env: Mapping[str, str] | None = None
    ) -> None:
        self.asker = asker
        self._agent = agent
        self.env = env
        self.session_allowed: set[tuple[str, ...]] = set()
        self._added: list[Any] = []  # rules saved during this session, as added to the engine
        self.lock = asyncio.Lock()  # one question at a time (AskUser shares it)

    # -- helpers ---------------------------------------------------------------------

    def _engine(self) -> PermissionEngine | None:
        agent = self._agent()
        return agent.permissions if agent is not None else None

    def _pending(self, req: CanUseToolRequest) -> Any:
        from skawld_core.permissions import PendingToolCall

        agent = self._agent()
        tool = agent.tools.get(req.tool_name) if agent is not None else None
        engine = self._engine()
        cwd = agent.cwd if agent is not None else (engine.project_root if engine else Path.cwd())
        return PendingToolCall(
            tool_name=req.tool_name,
            tool_use_id=req.tool_use_id,
            input=dict(req.input),
            summary=req.summary,
            scope=tool.scope if tool is not None else "exec",
            cwd=Path(cwd),
            path_policy=tool.path_policy if tool is not None else None,
        )

    def _allowed_now(self, req: CanUseToolRequest) -> bool:
        """Whether a rule saved during this session (while this call waited its turn) covers it.

        Only the saved rules count: a call the rules allowed all along was asked for another
        reason (a hook forced the question), and is asked."""
        from skawld_core.permissions import PermissionEngine

        engine = self._engine()
        if engine is None or not self._added:
            return False
        pending = self._pending(req)
        if engine.evaluate(pending).behavior != "allow":
            return False
        before = PermissionEngine(
            mode=engine.mode,
            rules=[r for r in engine.rules if r not in self._added],
            project_root=engine.project_root,
            additional_directories=engine.additional_directories,
        )
        return before.evaluate(pending).behavior != "allow"

    def offer(self, req: CanUseToolRequest) -> RuleOffer:
        """What "always" would save for `req`, checked against the engine: the rules
        must make it allow the call (an ask rule or a protected path would still ask)."""
        from skawld_core.permissions import PermissionEngine
        from skawld_core.permissions.claude_rules import parse_claude_rules

        engine = self._engine()
        if engine is None:
            return RuleOffer(why_not="the agent is not ready")
        agent = self._agent()
        cwd = Path(agent.cwd) if agent is not None else engine.project_root
        offer = suggest_rules(req.tool_name, req.input, project_root=engine.project_root, cwd=cwd)
        if not offer.rules:
            return offer
        try:
            parsed = parse_claude_rules(list(offer.rules), "allow").rules
            trial = PermissionEngine(
                mode="default" if engine.mode == "plan" else engine.mode,
                rules=[*engine.rules, *parsed],
                project_root=engine.project_root,
                additional_directories=engine.additional_directories,
            )
            decision = trial.evaluate(self._pending(req))
        except Exception as exc:  # a suggestion that cannot be checked is not offered
            return RuleOffer(why_not=f"the rule could not be checked ({exc})")
        if decision.behavior != "allow":
            return RuleOffer(why_not=f"a rule would not stop the question ({decision.reason or decision.behavior})")
        return offer

    def remember(self, rules: tuple[str, ...]) -> Path:
        """Save `rules` to the project's local settings and apply them to the running agent."""
        from skawld_core.permissions.claude_rules import parse_claude_rules
        from skawld_core.permissions.remembered import remember_allow_rules

        engine = self._engine()
        if engine is None:
            raise RuntimeError("the agent is not ready")
        path = remember_allow_rules(engine.project_root, rules, env=self.env)
        existing = list(engine.rules)  # a list: some rules (domain rules) hold lists and cannot be hashed
        for rule in parse_claude_rules(list(rules), "allow").rules:
            if rule not in existing:
                engine.add_rule(rule)
                self._added.append(rule)
        return path

    async def ask_network(self, host: str) -> bool:
        """The sandbox proxy's `NetworkAsk`: may sandboxed commands reach `host`?"""
        rule = network_rule(host)
        async with self.lock:
            answer = await self.asker.ask_network(host, rule)
        if answer == "always":
            try:
                path = self.remember((rule,))
            except Exception as exc:  # allowed for the session still; the user is told why nothing stuck
                self.asker.notice(f"could not save {rule}: {exc}", warning=True)
            else:
                self.asker.notice(f"always allowed in this project: {rule} (saved to {_short(path)})")
        return answer in ("once", "always")

    # -- the callback ----------------------------------------------------------------

    async def can_use_tool(self, req: CanUseToolRequest) -> PermissionAllow | PermissionDeny:
        """The agent's `can_use_tool`: plans, session answers, remembered rules, else ask."""
        from skawld_core.permissions import PermissionAllow, PermissionDeny
        from skawld_core.permissions.mode import EXIT_PLAN_MODE_TOOL

        if req.tool_name == EXIT_PLAN_MODE_TOOL:
            return await self._plan(req)
        key = session_key(req.tool_name, req.input)
        if key in self.session_allowed:
            return PermissionAllow()
        async with self.lock:
            if key in self.session_allowed or self._allowed_now(req):
                return PermissionAllow()
            offer = self.offer(req)
            answer = await self.asker.ask_permission(req, offer)
        if not isinstance(answer, PermissionAnswer):
            return PermissionDeny(message="The user did not answer.")
        if answer.interrupt:
            self.asker.interrupt()
        if answer.choice == "always" and offer.rules:
            try:
                path = self.remember(offer.rules)
            except Exception as exc:  # the call is still allowed once; the user is told why nothing stuck
                self.asker.notice(f"could not save {offer.text}: {exc}", warning=True)
            else:
                self.asker.notice(f"always allowed in this project: {offer.text} (saved to {_short(path)})")
            return PermissionAllow()
        if answer.choice == "session" or answer.choice == "always":
            self.session_allowed.add(key)
            return PermissionAllow()
        if answer.choice == "allow":
            return PermissionAllow()
        return PermissionDeny(message=answer.reason or "The user denied this tool call.")

    async def _plan(self, req: CanUseToolRequest) -> PermissionAllow | PermissionDeny:
        """ExitPlanMode: the plan question (never remembered: every plan is reviewed)."""
        from skawld_core.permissions import PermissionAllow, PermissionDeny

        async with self.lock:
            answer = await self.asker.ask_plan(req)
        if answer is None:
            return PermissionDeny(message="The user did not answer.")
        if answer.interrupt:
            self.asker.interrupt()
        if answer.choice == "approve":
            return PermissionAllow()
        if answer.choice == "accept_edits":
            return PermissionAllow(set_mode="acceptEdits")
        return PermissionDeny(message=keep_planning_message(answer.feedback))


def network_rule(host: str) -> str:
    """The rule "always" saves for a host the sandbox asked about."""
    return f"WebFetch(domain:{host})"


def _short(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
