"""The MCP elicitation modal: a server's question with its schema rendered as a simple form.

One input per field, prefilled with the schema's default (the choices of an enum and the
type are shown beside it); Enter moves to the next field and submits from the last one
(accept), ctrl+d declines, Esc cancels. An answer the schema rejects stays on the form with
the reason. In URL mode the URL is shown: Enter opens it in the browser and accepts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from skawld_core.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    check_answer,
    default_text,
    field_hint,
)

if TYPE_CHECKING:
    from ..host import ChatApp

__all__ = ["ElicitationScreen", "elicit_in_app"]


class ElicitationScreen(ModalScreen[ElicitationAnswer]):
    """Shows `request` and dismisses with the user's `ElicitationAnswer`."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("ctrl+d", "decline", "Decline", priority=True),  # before the Input's delete-right
    ]

    def __init__(self, request: ElicitationRequest) -> None:
        super().__init__(classes="elicitation-screen")
        self.request = request
        self.fields = request.fields

    def compose(self) -> ComposeResult:
        request = self.request
        with Vertical(id="ask-dialog"):
            yield Label(Text(f"The MCP server {request.server!r} asks", style="bold"), id="elicit-header")
            yield Static(request.message, id="elicit-message", markup=False)
            if request.mode == "url":
                yield Static(Text(request.url or "", style="underline"), id="elicit-url")
            for f in self.fields:
                yield Label(Text.assemble((f.title, "bold"), (f"  {field_hint(f)}", "dim")))
                if f.description:
                    yield Static(Text(f.description, style="dim"), markup=False)
                yield Input(value=default_text(f), id=f"elicit-{f.name}")
            yield Static("", id="elicit-error", markup=False)
            keys = "enter: open and accept" if request.mode == "url" else "enter: next field / submit"
            yield Static(Text(f"{keys} · ctrl+d: decline · esc: cancel", style="dim"), id="elicit-help")

    def on_mount(self) -> None:
        inputs = list(self.query(Input))
        if inputs:
            inputs[0].focus()

    def on_key(self, event: Any) -> None:
        if event.key == "enter" and self.request.mode == "url":
            event.stop()
            self._open_url()

    def _open_url(self) -> None:
        import webbrowser

        if self.request.url:
            webbrowser.open(self.request.url)
        self.dismiss(ElicitationAnswer("accept"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        inputs = list(self.query(Input))
        index = inputs.index(event.input)
        if index + 1 < len(inputs):
            inputs[index + 1].focus()
            return
        content = {f.name: self.query_one(f"#elicit-{f.name}", Input).value.strip() for f in self.fields}
        try:
            check_answer(self.request.schema, content)
        except ValueError as exc:
            self.query_one("#elicit-error", Static).update(Text(str(exc), style="bold red"))
            return
        self.dismiss(ElicitationAnswer("accept", content))

    def action_decline(self) -> None:
        self.dismiss(ElicitationAnswer("decline"))

    def action_cancel(self) -> None:
        self.dismiss(ElicitationAnswer("cancel"))


async def elicit_in_app(app: ChatApp, request: ElicitationRequest) -> ElicitationAnswer:
    """The app's elicitation handler (`Agent.elicit`): the modal, one question at a time."""
    from .permission import ask_modal  # lazy: the permission screen loads after the first frame

    async with app.broker.lock:
        answer = await ask_modal(app, ElicitationScreen(request))
    return answer if isinstance(answer, ElicitationAnswer) else ElicitationAnswer("cancel")
