"""`RunState`: what the app knows about its session's runs, in one object.

`SkawldApp.state` is the one instance. The run controller updates it from the run's
events (usage, permission batches), the permission screen counts the questions it
has asked, a loaded session resets it; the status bar and `/cost` read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from skawld_core.messages import Usage


@dataclass
class RunState:
    """The session's usage before the current run, the last turn's usage, and the
    permission batch being asked."""

    base_usage: Usage = field(default_factory=Usage)
    """Tokens of the session's finished runs (a resumed session starts with its stored usage)."""
    last_usage: Usage | None = None
    """The last turn's usage (None before the first turn of the session)."""
    asks_total: int = 0
    """Permission requests in the current batch."""
    asks_done: int = 0
    """How many of them have been asked."""

    def session_loaded(self, usage: Usage) -> None:
        """A session was opened or resumed: its stored usage is the base."""
        self.base_usage, self.last_usage = usage, None

    def run_finished(self, usage: Usage) -> None:
        """A run ended: its usage joins the base."""
        self.base_usage = self.base_usage + usage

    def new_batch(self, size: int) -> None:
        """A `permission_request` event announced `size` questions."""
        self.asks_total, self.asks_done = size, 0

    def position(self) -> str:
        """``2 of 3`` while a batch of several questions is asked, else empty."""
        return f"{self.asks_done + 1} of {self.asks_total}" if self.asks_total > 1 else ""
