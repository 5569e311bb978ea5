"""Connection points for MCP servers, skills and subagents.

`connect_extensions` runs once per Agent on its first `session()` call;
`close_extensions` on `agent.close()`. Each part is imported only when needed,
so `import skawld_core` never imports `mcp`. What they leave behind lives in
`agent.extensions`, an `Extensions`: `mcp` (an `McpManager`), `skills` (a
`SkillLoadResult`), `subagents` (a `SubagentRegistry`) and `subagent_definitions`
(an `AgentLoadResult`), each `None` until loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .host import ExtensionHost
    from .mcp.manager import McpManager
    from .skills.types import SkillLoadResult
    from .subagents.definitions import AgentLoadResult
    from .subagents.registry import SubagentRegistry

__all__ = ["Extensions", "close_extensions", "connect_extensions"]


@dataclass
class Extensions:
    """The per-agent state of MCP, skills and subagents (`None`: not loaded).

    ``extensions["mcp"]``, ``"mcp" in extensions`` and ``extensions.get("mcp")`` still
    work (a loaded part is "in"), for code written against the former dict.
    """

    mcp: McpManager | None = None
    skills: SkillLoadResult | None = None
    subagents: SubagentRegistry | None = None
    subagent_definitions: AgentLoadResult | None = None

    def _key(self, key: str) -> str:
        if key not in {f.name for f in fields(self)}:
            raise KeyError(key)
        return key

    def __getitem__(self, key: str) -> Any:
        value = getattr(self, self._key(key))
        if value is None:
            raise KeyError(key)
        return value

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in {f.name for f in fields(self)} and getattr(self, key) is not None

    def get(self, key: str, default: Any = None) -> Any:
        """The loaded part named `key`, else `default`."""
        return getattr(self, key, None) if key in self else default


async def connect_extensions(agent: ExtensionHost) -> None:
    """Connect MCP, load skills, load subagents (in that order).

    With `agent.mcp_fail_fast` a server that fails to connect makes this raise
    `ConfigError` (and nothing else is loaded, so a later call retries).
    """
    if agent.mcp_servers:
        from .mcp.manager import connect_mcp

        await connect_mcp(agent)
    from .skills.connect import install_skills

    install_skills(agent)
    from .subagents.connect import install_subagents

    install_subagents(agent)
    agent.invalidate_system_prompt()


async def close_extensions(agent: ExtensionHost) -> None:
    """Disconnect whatever `connect_extensions` opened (idempotent)."""
    if agent.extensions.mcp is not None:
        await agent.extensions.mcp.close()
