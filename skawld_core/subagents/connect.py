"""Installing subagents on an Agent (run once by `connect_extensions`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..skills.untrusted import strip_grants
from .definitions import AgentLoadResult, load_agent_definitions
from .registry import SubagentRegistry
from .tool import SubagentTool

if TYPE_CHECKING:
    from ..host import ExtensionHost

__all__ = ["install_subagents"]

log = logging.getLogger("skawld.subagents")
log.addHandler(logging.NullHandler())  # never the terminal unless the app configures logging


def install_subagents(agent: ExtensionHost) -> tuple[SubagentRegistry, AgentLoadResult]:
    """Load `<configDir>/agents/*.md`, put the agent's inline agents (``--agents``) over
    files of the same name, and register `Subagent` (always: the built-in `_default`
    agent exists). Returns the registry and the load result
    (`connect_extensions` keeps them in `agent.extensions`)."""
    plugin_sources = [src for p in agent.plugins for src in p.namespaced(p.agents)]
    result = load_agent_definitions(agent.config_dirs, namespaced=plugin_sources)
    untrusted = agent.untrusted_config_dirs
    result.agents = [strip_grants(a, a.path, untrusted, model=None) for a in result.agents]
    for skipped in result.skipped:
        log.warning("subagent skipped: %s (%s: %s)", skipped.path, skipped.reason, skipped.detail)
    given = {d.name.lower() for d in agent.inline_agents}
    result.agents = [*agent.inline_agents, *(a for a in result.agents if a.name.lower() not in given)]
    registry = SubagentRegistry(result.agents)
    if isinstance(agent.tools.get(SubagentTool.name), SubagentTool):
        agent.tools.unregister(SubagentTool.name)
    agent.tools.register(SubagentTool(registry))
    agent.invalidate_system_prompt()
    return registry, result
