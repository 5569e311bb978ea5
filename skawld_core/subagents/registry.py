"""`SubagentRegistry`: disk definitions plus the built-in `_default` agent."""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .definitions import AgentDefinition

if TYPE_CHECKING:
    from ..host import ToolSession

__all__ = ["DEFAULT_AGENT", "DEFAULT_AGENT_NAME", "SubagentRegistry"]

DEFAULT_AGENT_NAME = "_default"
DEFAULT_AGENT = AgentDefinition(
    name=DEFAULT_AGENT_NAME,
    description="General-purpose subagent with full tool access",
    body=(
        "You are a general-purpose subagent launched by another agent to handle one focused task. "
        "Work autonomously with the tools you have. When you are done, answer with a concise, "
        "self-contained report of what you found or changed (with file paths); that report is all "
        "the launching agent will see."
    ),
)


class SubagentRegistry:
    """Case-insensitive lookup of subagent types. `_default` always exists and
    cannot be overridden by a disk agent. Also tracks the live child sessions
    (by child session id) so an app can abort one."""

    def __init__(self, definitions: Iterable[AgentDefinition] = ()) -> None:
        self._by_key: dict[str, AgentDefinition] = {}
        for d in definitions:
            key = d.name.lower()
            if key != DEFAULT_AGENT_NAME and key not in self._by_key:
                self._by_key[key] = d
        self.live: dict[str, ToolSession] = {}

    def get(self, name: str) -> AgentDefinition | None:
        """The definition called `name` (any case), or None."""
        key = name.lower()
        if key == DEFAULT_AGENT_NAME:
            return DEFAULT_AGENT
        return self._by_key.get(key)

    def list(self) -> list[AgentDefinition]:
        """Disk agents only, sorted by name."""
        return sorted(self._by_key.values(), key=lambda d: d.name.lower())

    def list_all(self) -> builtins.list[AgentDefinition]:
        """Disk agents and `_default`, sorted by name."""
        return sorted([*self._by_key.values(), DEFAULT_AGENT], key=lambda d: d.name.lower())

    def resolve(self, subagent_type: str | None) -> AgentDefinition | None:
        """Empty or missing → `_default`; `general-purpose` (any case) is an
        alias of `_default` unless a disk agent has that name."""
        name = (subagent_type or "").strip()
        if not name:
            return DEFAULT_AGENT
        found = self.get(name)
        if found is None and name.lower() == "general-purpose":
            return DEFAULT_AGENT
        return found
