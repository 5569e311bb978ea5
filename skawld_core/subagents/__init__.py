"""Subagents: child sessions for focused tasks, defined in `<configDir>/agents/*.md` (§2.16)."""

from __future__ import annotations

from .definitions import (
    AgentDefinition,
    AgentLoadResult,
    AgentSkipReason,
    SkippedAgent,
    load_agent_definitions,
    normalize_tools,
    parse_agent_definition,
)
from .registry import DEFAULT_AGENT, DEFAULT_AGENT_NAME, SubagentRegistry
from .runner import SubagentOutcome, build_child_tools, run_subagent
from .tool import SubagentInput, SubagentTool, subagent_description

__all__ = [
    "DEFAULT_AGENT",
    "DEFAULT_AGENT_NAME",
    "AgentDefinition",
    "AgentLoadResult",
    "AgentSkipReason",
    "SkippedAgent",
    "SubagentInput",
    "SubagentOutcome",
    "SubagentRegistry",
    "SubagentTool",
    "build_child_tools",
    "load_agent_definitions",
    "normalize_tools",
    "parse_agent_definition",
    "run_subagent",
    "subagent_description",
]
