"""The plain mode's side of the permission broker: questions asked inline.

The question shows what it is about in full (the command, the diff, or the
input), then offers the same answers as the app's dialog: once (y), always in
this project (a, naming the exact rule it saves), this session (s), no (n).
The sandbox's network question offers yes for this session (y), always (a), no (n).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from skawld_core.permissions.suggest import RuleOffer
from skawld_core.sandbox.domains import shown_host

from ..file_diff import proposed_change, unified_diff
from ..permission_broker import NetworkChoice, PermissionAnswer

if TYPE_CHECKING:
    from skawld_core.permissions import CanUseToolRequest

    from .view import PlainView

__all__ = ["PlainPermissionAsker", "PlainPlanAnswer"]


@dataclass(frozen=True)
class PlainPlanAnswer:
    """The plain mode's answer to a plan (the fields of the app's `PlanAnswer`)."""

    choice: str
    feedback: str = ""
    interrupt: bool = False


class PlainPermissionAsker:
    """`PermissionAsker` for the plain chat (a `PlainView`)."""

    def __init__(self, chat: PlainView) -> None:
        self.chat = chat

    def show_request(self, req: CanUseToolRequest) -> None:
        """What the approval is about, in full: the command, the diff, or the input."""
        from rich.syntax import Syntax

        chat = self.chat
        change = proposed_change(req.tool_name, req.input, chat.agent.cwd if chat.agent else None)
        if change is not None:
            chat.console.print(Syntax(unified_diff(change), "diff", theme="ansi_dark", word_wrap=True))
        elif req.tool_name == "Bash" and isinstance(req.input.get("command"), str):
            chat.console.print(Syntax(req.input["command"], "bash", theme="ansi_dark", word_wrap=True))
        elif req.input:
            chat.console.print_json(data=req.input)

    async def ask_permission(self, req: CanUseToolRequest, offer: RuleOffer) -> PermissionAnswer | None:
        chat = self.chat
        chat.out(f"? Allow {req.tool_name}: {req.summary}", style="bold yellow")
        if req.reason:
            chat.out(f"  asking because {req.reason}", style="dim")
        self.show_request(req)
        if offer.rules:
            chat.out(f"  [a] saves {offer.text} to .claude/settings.local.json", style="dim")
            question = "  [y]es once / [a]lways in this project / [s] this session / [n]o: "
        else:
            chat.out(f"  no project rule can cover this call: {offer.why_not}", style="dim")
            question = "  [y]es once / [s] this session / [n]o: "
        while True:
            answer = (await chat.ask(question)).lower()
            if answer in ("y", "yes"):
                return PermissionAnswer("allow")
            if answer in ("a", "always") and offer.rules:
                return PermissionAnswer("always")
            if answer in ("s", "session"):
                return PermissionAnswer("session")
            if answer in ("n", "no", ""):
                reason = await chat.ask("  reason (optional): ")
                return PermissionAnswer("deny", reason)

    async def ask_plan(self, req: CanUseToolRequest) -> PlainPlanAnswer | None:
        """Print the whole plan, then approve / approve with accept-edits / keep planning."""
        chat = self.chat
        chat.out("? The plan:", style="bold yellow")
        chat.out(str(req.input.get("plan", "")))
        while True:
            answer = (await chat.ask("  [y] approve / [a] approve, accept edits / [n] keep planning: ")).lower()
            if answer in ("y", "yes"):
                return PlainPlanAnswer("approve")
            if answer in ("a", "accept"):
                return PlainPlanAnswer("accept_edits")
            if answer in ("n", "no", ""):
                feedback = await chat.ask("  what should change (optional): ")
                return PlainPlanAnswer("keep_planning", feedback)

    async def ask_network(self, host: str, rule: str) -> NetworkChoice | None:
        """The sandbox's network question: once (for this session), always (saves `rule`), no."""
        chat = self.chat
        chat.out(f"? Allow network access to {shown_host(host)}? (a sandboxed command asks; allowedDomains does not list it)",
                 style="bold yellow")  # fmt: skip
        chat.out(f"  [a] saves {rule} to .claude/settings.local.json", style="dim")
        while True:
            answer = (await chat.ask("  [y]es, this session / [a]lways in this project / [n]o: ")).lower()
            if answer in ("y", "yes"):
                return "once"
            if answer in ("a", "always"):
                return "always"
            if answer in ("n", "no", ""):
                return "no"

    def interrupt(self) -> None:
        if self.chat.session is not None:
            self.chat.session.interrupt()

    def notice(self, text: str, *, warning: bool = False) -> None:
        self.chat.out(f"  {text}", style="yellow" if warning else "dim")
