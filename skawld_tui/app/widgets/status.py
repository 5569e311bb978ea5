"""The one-line status bar: model, mode, session, context %, tokens, cost, sandbox."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from skawld_core.providers.discovery import display_model_name

from ...transcript_model import format_cost, format_tokens

if TYPE_CHECKING:
    from skawld_core.sandbox import SandboxStatus

MODE_STYLE = {"default": "cyan", "acceptEdits": "yellow", "plan": "magenta", "yolo": "bold red"}


@dataclass
class StatusInfo:
    """What the status bar shows."""

    model: str = ""
    mode: str = "default"
    session_id: str = ""
    context_pct: int = 0
    tokens: int = 0
    cost: float | None = None
    state: str = ""
    sandbox: str = ""
    shells: int = 0  # running background shells
    estimated: bool = False  # some token counts are estimates (the server reported none)
    size_estimated: bool = False  # `tokens` is a restored session's estimated size (it stored no usage)


def sandbox_label(status: SandboxStatus | None) -> str:
    """`sandboxed`, or what is missing; empty when there is no Bash or it is turned off."""
    if status is None or status.mode == "off":
        return ""
    if status.active:
        if status.network:
            return "sandboxed (network on)"
        return f"sandboxed (network: {', '.join(status.allowed_domains)})" if status.allowed_domains else "sandboxed"
    if status.mode == "required":
        return "sandbox required: Bash disabled (install bubblewrap)"
    return "no sandbox (install bubblewrap)"


class StatusBar(Static):
    """Renders a `StatusInfo`."""

    def __init__(self) -> None:
        super().__init__("", id="status", markup=False)
        self.info = StatusInfo()

    def on_mount(self) -> None:
        # Background shells start and end inside tool calls: look once a second.
        host = getattr(self.app, "command_host", None)
        if host is not None:
            from ...commands.bashes import running_shells  # lazy: the command registry loads after the first frame

            self.set_interval(1.0, lambda: self._shells(running_shells(host)))

    def _shells(self, count: int) -> None:
        if count != self.info.shells:
            self.set(shells=count)

    def set(self, **changes: object) -> None:
        for key, value in changes.items():
            setattr(self.info, key, value)
        self.update(self.render_info())

    def render_info(self) -> Text:
        i = self.info
        text = Text()
        text.append(display_model_name(i.model) or "—", style="bold")
        text.append("  ")
        text.append(f"mode: {i.mode}", style=MODE_STYLE.get(i.mode, ""))
        if i.session_id:
            text.append(f"  session {i.session_id[:8]}", style="dim")
        text.append(f"  ctx {i.context_pct}%")
        about = "~" if i.estimated or i.size_estimated else ""  # estimated counts are marked
        text.append(f"  {about}{format_tokens(i.tokens)} tok")
        cost = format_cost(i.cost)
        if cost:
            text.append(f"  {about}{cost}")
        if i.shells:
            text.append(f"  {i.shells} shell{'s' if i.shells != 1 else ''}", style="bold yellow")
        if i.sandbox:
            text.append(f"  {i.sandbox}", style="green" if i.sandbox.startswith("sandboxed") else "yellow")
        if i.state:
            text.append(f"  {i.state}", style="bold magenta")
        return text
