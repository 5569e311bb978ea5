"""Connection points for MCP servers, skills and subagents.

`connect_extensions` runs once per Agent on its first `session()` call;
`close_extensions` on `agent.close()`. The MCP part is imported only for an
agent with servers. What they leave behind lives in `agent.extensions`, an
`Extensions`: `mcp` (an `McpManager`), `skills` (a
`SkillLoadResult`), `subagents` (a `SubagentRegistry`) and `subagent_definitions`
(an `AgentLoadResult`), each `None` until loaded.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .skills.connect import install_skills
from .skills.types import SkillLoadResult
from .subagents.connect import install_subagents
from .subagents.definitions import AgentLoadResult
from .subagents.registry import SubagentRegistry

if TYPE_CHECKING:
    from .host import ExtensionHost
    from .mcp.manager import McpManager

__all__ = ["Extensions", "close_extensions", "connect_extensions"]


@dataclass
class Extensions:
    """The per-agent state of MCP, skills and subagents (`None`: not loaded)."""

    mcp: McpManager | None = None
    skills: SkillLoadResult | None = None
    subagents: SubagentRegistry | None = None
    subagent_definitions: AgentLoadResult | None = None


async def connect_extensions(agent: ExtensionHost, extensions: Extensions) -> None:
    """Connect MCP, load skills, load subagents (in that order), each once, and
    keep what they leave in `extensions`.

    With `agent.mcp_fail_fast` a server that fails to connect makes this raise
    `ConfigError` (and nothing else is loaded, so a later call retries).
    """
    if agent.mcp_servers and extensions.mcp is None:
        from .mcp.manager import connect_mcp  # lazy: only agents with MCP servers need the MCP client code

        extensions.mcp = await connect_mcp(agent)
    if extensions.skills is None:
        extensions.skills = install_skills(agent)
    if extensions.subagents is None:
        extensions.subagents, extensions.subagent_definitions = install_subagents(agent)
    agent.invalidate_system_prompt()


async def close_extensions(extensions: Extensions) -> None:
    """Disconnect whatever `connect_extensions` opened (idempotent)."""
    if extensions.mcp is not None:
        await extensions.mcp.close()
