"""The permission modal and the app's side of the permission broker.

Allow once (y); always allow in this project (a), showing the exact rule(s) it
saves to ``.claude/settings.local.json``; allow for this session (s); deny (n,
with an optional reason); Esc denies and interrupts. `AppPermissionAsker` is the
app's `PermissionAsker` (see `skawld_tui.permission_broker`).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Input, Label, Static

from skawld_core.permissions.suggest import RuleOffer

from ...file_diff import proposed_change, render_diff
from ...permission_broker import Choice, NetworkChoice, PermissionAnswer
from ..widgets.blocks import NoteLine
from .network_ask import NetworkAskScreen

if TYPE_CHECKING:
    from skawld_core.permissions import CanUseToolRequest

    from ..host import ChatApp
    from .plan import PlanAnswer

__all__ = ["AppPermissionAsker", "PermissionAnswer", "PermissionScreen", "ask_modal"]


class PermissionScreen(ModalScreen[PermissionAnswer]):
    """Asks whether one tool call may run."""

    DEFAULT_CSS = """
    #permission-rule { margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('allow')", "Allow once"),
        Binding("a", "answer('always')", "Always allow in this project"),
        Binding("s", "answer('session')", "Allow for this session"),
        Binding("n", "answer('deny')", "Deny"),
        Binding("escape", "escape", "Deny and interrupt"),
    ]

    def __init__(
        self,
        tool_name: str,
        summary: str,
        input: dict[str, Any],
        *,
        position: str = "",
        reason: str | None = None,
        cwd: Path | None = None,
        offer: RuleOffer | None = None,
    ) -> None:
        super().__init__(classes="permission-screen")
        self.tool_name = tool_name
        self.summary = summary
        self.tool_input = input
        self.position = position
        self.reason = reason
        self.cwd = cwd
        self.offer = offer or RuleOffer(why_not="no rule is offered")

    def compose(self) -> ComposeResult:
        with Vertical(id="permission-dialog"):
            title = f"Allow {self.tool_name}?"
            if self.position:
                title += f"  ({self.position})"
            yield Label(Text(title, style="bold"), id="permission-title")
            yield Static(Text(self.summary), id="permission-summary", markup=False)
            if self.reason:
                yield Static(Text(f"Asking because {self.reason}", style="italic"), id="permission-reason")
            with VerticalScroll(id="permission-input"):
                yield Static(self._input_renderable(), markup=False)
            yield Static(self._rule_text(), id="permission-rule", markup=False)
            yield Input(placeholder="Reason for denying (optional), then Enter", id="deny-reason")
            with Horizontal(id="permission-buttons"):
                yield Button("Allow once (y)", id="allow", variant="success")
                if self.offer.rules:
                    yield Button("Always (a)", id="always", variant="primary")
                yield Button("This session (s)", id="session")
                yield Button("Deny (n)", id="deny", variant="error")

    def _rule_text(self) -> Text:
        if self.offer.rules:
            text = Text("Always (a) saves ")
            text.append(self.offer.text, style="bold")
            text.append(" to this project's .claude/settings.local.json")
            return text
        return Text(f"No project rule can cover this call: {self.offer.why_not}.", style="italic")

    def _input_renderable(self) -> Any:
        change = proposed_change(self.tool_name, self.tool_input, self.cwd)
        if change is not None:
            return render_diff(change)
        if self.tool_name == "Bash" and "command" in self.tool_input:
            return Syntax(str(self.tool_input["command"]), "bash", theme="ansi_dark", word_wrap=True)
        return Text(json.dumps(self.tool_input, indent=2, ensure_ascii=False))

    def on_mount(self) -> None:
        self.query_one("#allow", Button).focus()

    def action_answer(self, choice: Choice) -> None:
        if choice == "always" and not self.offer.rules:
            self.notify(f"no project rule for this call: {self.offer.why_not}", severity="warning")
            return
        reason = self.query_one("#deny-reason", Input).value.strip() if choice == "deny" else ""
        self.dismiss(PermissionAnswer(choice, reason))

    def action_escape(self) -> None:
        self.dismiss(PermissionAnswer("deny", "interrupted by the user", interrupt=True))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id in ("allow", "always", "session", "deny"):
            self.action_answer(event.button.id)  # type: ignore[arg-type]

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer("deny")


async def ask_modal(app: ChatApp, screen: Screen[Any]) -> Any:
    """Push a modal and wait for its result; if the wait is cancelled (abort,
    interrupt), close the modal."""
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

    def resolve(result: Any) -> None:
        if not future.done():
            future.set_result(result)

    await app.push_screen(screen, callback=resolve)
    answered = False
    try:
        result = await future
        answered = True
        return result
    finally:
        # Cancelled (abort, interrupt): the modal must not outlive the question.
        if not answered and app.screen is screen:
            screen.dismiss(None)


class AppPermissionAsker:
    """The app's `PermissionAsker`: the permission modal, the sandbox's network question
    and the plan dialog."""

    def __init__(self, app: ChatApp) -> None:
        self.app = app

    async def ask_permission(self, req: CanUseToolRequest, offer: RuleOffer) -> PermissionAnswer | None:
        app = self.app
        position = app.state.position()
        try:
            answer = await ask_modal(
                app,
                PermissionScreen(
                    req.tool_name,
                    req.summary,
                    req.input,
                    position=position,
                    reason=req.reason,
                    cwd=app.agent.cwd if app.agent else None,
                    offer=offer,
                ),
            )
        finally:
            app.state.asks_done += 1
        return answer if isinstance(answer, PermissionAnswer) else None

    async def ask_plan(self, req: CanUseToolRequest) -> PlanAnswer | None:
        from .plan import PlanAnswer, PlanScreen  # lazy: the plan screen loads when a plan is shown

        answer = await ask_modal(self.app, PlanScreen(str(req.input.get("plan", ""))))
        return answer if isinstance(answer, PlanAnswer) else None

    async def ask_network(self, host: str, rule: str) -> NetworkChoice | None:
        try:
            answer = await ask_modal(self.app, NetworkAskScreen(host, rule))
        finally:
            self.app.state.asks_done += 1
        return answer if answer in ("once", "always", "no") else None

    def interrupt(self) -> None:
        # The denial is recorded as the call's result, then the run stops at that boundary.
        self.app.runs.finish_step()

    def notice(self, text: str, *, warning: bool = False) -> None:

        self.app.transcript.mount(NoteLine(text, classes="note -warning" if warning else "note"))
