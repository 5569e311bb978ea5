"""Focus never traps typing: a printable key pressed while focus is elsewhere goes to the prompt.

Tab moves focus onto tool panels and thinking blocks; a character typed then
would go nowhere. `route_typing` (called from the app's key handler, after
the focus chain had its chance) moves focus back to the prompt and inserts
the character there. Keys some focused widget binds (Enter on a panel) and
keys inside modals are left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widgets import Input, TextArea

if TYPE_CHECKING:
    from textual import events

    from .host import ChatApp

__all__ = ["route_typing"]


def route_typing(app: ChatApp, event: events.Key) -> bool:
    """Send a stray printable key to the prompt; True when it did."""
    if not event.is_printable or not event.character or len(app.screen_stack) != 1:
        return False
    focused = app.focused
    prompt = app.prompt
    if focused is prompt or isinstance(focused, (TextArea, Input)):
        return False  # a text widget types for itself
    if event.key in app.screen.active_bindings:
        return False  # something in the focus chain uses this key
    prompt.focus()
    prompt.insert(event.character)
    event.stop()
    return True
