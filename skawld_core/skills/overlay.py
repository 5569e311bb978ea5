"""The one-turn model override of a skill (§2.15)."""

from __future__ import annotations

__all__ = ["LONG_CONTEXT_SUFFIX", "overlay_model"]

LONG_CONTEXT_SUFFIX = "[1m]"


def overlay_model(session_model: str, override: str | None) -> str | None:
    """The model for the skill's next turn: the override, keeping the session
    model's `[1m]` suffix when the override lacks it."""
    if override is None:
        return None
    if session_model.endswith(LONG_CONTEXT_SUFFIX) and not override.endswith(LONG_CONTEXT_SUFFIX):
        return override + LONG_CONTEXT_SUFFIX
    return override
