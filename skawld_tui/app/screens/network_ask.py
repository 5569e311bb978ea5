"""The sandbox's network question: may sandboxed commands reach a host name?

Shown when a command run in the sandbox asks skawld's proxy for a name that
`sandbox.network.allowedDomains` leaves out (the proxy holds the connection meanwhile).
Once (y) opens the name for the rest of this session; always (a) also saves the rule
to ``.claude/settings.local.json``; no (n) or Esc refuses this call's requests.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from skawld_core.sandbox.domains import shown_host

from ...permission_broker import NetworkChoice

__all__ = ["NetworkAskScreen"]


class NetworkAskScreen(ModalScreen[NetworkChoice]):
    """Asks whether sandboxed commands may reach `host`; `rule` is what always saves."""

    DEFAULT_CSS = """
    #network-rule { margin-top: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer('once')", "Allow for this session"),
        Binding("a", "answer('always')", "Always allow in this project"),
        Binding("n", "answer('no')", "No"),
        Binding("escape", "answer('no')", "No"),
    ]

    def __init__(self, host: str, rule: str) -> None:
        super().__init__(classes="permission-screen")
        self.host = shown_host(host)  # punycode, the Unicode form beside it: a homograph shows as one
        self.rule = rule

    def compose(self) -> ComposeResult:
        with Vertical(id="permission-dialog"):
            yield Label(Text(f"Allow network access to {self.host}?", style="bold"), id="network-title")
            yield Static(
                Text(
                    f"A command in the sandbox asks to connect to {self.host}, which "
                    "sandbox.network.allowedDomains does not list. It waits for your answer."
                ),
                id="network-why",
                markup=False,
            )
            rule = Text("Once (y) allows it for the rest of this session; always (a) saves ")
            rule.append(self.rule, style="bold")
            rule.append(" to this project's .claude/settings.local.json.")
            yield Static(rule, id="network-rule", markup=False)
            with Horizontal(id="permission-buttons"):
                yield Button("Once (y)", id="once", variant="success")
                yield Button("Always (a)", id="always", variant="primary")
                yield Button("No (n)", id="no", variant="error")

    def on_mount(self) -> None:
        self.query_one("#once", Button).focus()

    def action_answer(self, choice: NetworkChoice) -> None:
        self.dismiss(choice)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id in ("once", "always", "no"):
            self.action_answer(event.button.id)  # type: ignore[arg-type]
