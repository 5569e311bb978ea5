"""What the model is told when the user sends a plan back (the app's dialog and the plain mode)."""

from __future__ import annotations

KEEP_PLANNING = "The user wants you to keep planning; do not start changing files yet."


def keep_planning_message(feedback: str = "") -> str:
    """The deny message for "keep planning", with the user's feedback when there is some."""
    return f"{KEEP_PLANNING} Their feedback: {feedback}" if feedback else KEEP_PLANNING
