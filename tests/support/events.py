"""Reading what a run sent back to the model, for tests."""

from __future__ import annotations

from collections.abc import Iterable

from skawld_core import Event, ToolResultBlock, UserEvent


def tool_results(events: Iterable[Event]) -> dict[str, str]:
    """Every tool result of a run's events, by tool-use id, as text (in call order)."""
    return {
        b.tool_use_id: str(b.content)
        for e in events
        if isinstance(e, UserEvent) and e.subtype == "tool_result"
        for b in e.message.content
        if isinstance(b, ToolResultBlock)
    }
