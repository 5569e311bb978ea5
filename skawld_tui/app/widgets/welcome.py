"""The first screen of a new session: what is running where, and the keys to know."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from .status import MODE_STYLE

if TYPE_CHECKING:
    from skawld_core.agent import Agent

__all__ = ["KEY_HINTS", "Welcome", "WelcomeInfo"]

KEY_HINTS: tuple[tuple[str, str], ...] = (
    ("Esc", "stop"),
    ("Shift+Tab", "mode"),
    ("/help", "commands"),
    ("!", "shell"),
    ("@", "attach a file"),
    ("Ctrl+O", "tool panels"),
)


@dataclass(frozen=True)
class WelcomeInfo:
    """What the welcome block shows."""

    version: str
    model: str
    provider: str
    cwd: str
    mode: str

    @classmethod
    def of(cls, agent: Agent, home: Path | None = None) -> WelcomeInfo:
        """The info of a built agent (the cwd under `home` is shown as ``~/…``)."""
        from skawld_core import __version__

        return cls(
            version=__version__,
            model=agent.model,
            provider=getattr(agent.provider, "id", type(agent.provider).__name__),
            cwd=short_path(agent.cwd, Path.home() if home is None else home),
            mode=agent.permission_mode,
        )


def short_path(path: Path, home: Path) -> str:
    """`path` with the home directory written as ``~``."""
    try:
        rest = path.relative_to(home)
    except ValueError:
        return str(path)
    return "~" if rest == Path() else f"~/{rest}"


def welcome_text(info: WelcomeInfo) -> Text:
    """The block's content as rich text."""
    out = Text()
    out.append("✻ skawld", style="bold")
    out.append(f" {info.version}\n\n", style="dim")
    rows = (("model", info.model, "bold"), ("provider", info.provider, ""), ("cwd", info.cwd, ""))
    for label, value, style in rows:
        out.append(f"{label:<10}", style="dim")
        out.append(f"{value}\n", style=style)
    out.append(f"{'mode':<10}", style="dim")
    out.append(f"{info.mode}\n\n", style=MODE_STYLE.get(info.mode, ""))
    for n, (key, what) in enumerate(KEY_HINTS):
        if n:
            out.append(" · ", style="dim")
        out.append(key, style="bold")
        out.append(f" {what}", style="dim")
    return out


class Welcome(Static):
    """A bordered block at the top of a new session's transcript."""

    DEFAULT_CSS = """
    Welcome {
        border: round $primary;
        padding: 0 1;
        margin: 0 0 1 0;
        height: auto;
    }
    """

    def __init__(self, info: WelcomeInfo) -> None:
        super().__init__(welcome_text(info), markup=False, classes="welcome")
        self.info = info
