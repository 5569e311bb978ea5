"""The skill listing shown to the model in the first user message (§2.15).

One line per model-invocable skill, `- name: description — when_to_use (args:
hint)`, sorted case-insensitively, each description capped at 250 chars. When
the whole listing exceeds the budget (1% of the context window at 4 chars a
token, or 8000 chars), descriptions share the budget equally; below 20 chars
each the listing falls back to names only. Byte-stable for the same skills.
"""

from __future__ import annotations

from collections.abc import Sequence

from .types import Skill

__all__ = ["DEFAULT_BUDGET", "ENTRY_CAP", "listing_budget", "render_listing", "wrap_listing"]

DEFAULT_BUDGET = 8000
ENTRY_CAP = 250
MIN_SHARE = 20
ELLIPSIS = "…"


def listing_budget(context_window: int | None) -> int:
    """floor(context_window × 4 × 1%) characters, or 8000 without a window."""
    if not context_window or context_window <= 0:
        return DEFAULT_BUDGET
    return (context_window * 4) // 100


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + ELLIPSIS


def _description(skill: Skill) -> str:
    desc = skill.description
    if skill.when_to_use:
        desc += f" — {skill.when_to_use}"
    if skill.argument_hint:
        desc += f" (args: {skill.argument_hint})"
    return _cut(_collapse(desc), ENTRY_CAP)


def render_listing(skills: Sequence[Skill], budget: int = DEFAULT_BUDGET) -> str:
    """The listing lines ("" when no skill is model-invocable)."""
    visible = sorted((s for s in skills if not s.disable_model_invocation), key=lambda s: (s.name.lower(), s.name))
    if not visible:
        return ""
    entries = [(s.name, _description(s)) for s in visible]
    full = "\n".join(f"- {name}: {desc}" for name, desc in entries)
    if len(full) <= budget:
        return full
    overhead = sum(len(f"- {name}: ") for name, _ in entries) + len(entries) - 1
    share = (budget - overhead) // len(entries)
    if share < MIN_SHARE:
        return "\n".join(f"- {name}" for name, _ in entries)
    return "\n".join(f"- {name}: {_cut(desc, share)}" for name, desc in entries)


def wrap_listing(lines: str) -> str | None:
    """The `<skill_listing>` text the loop wraps in a system reminder (None when empty)."""
    if not lines:
        return None
    return f"<skill_listing>\n{lines}\n</skill_listing>"
