"""Connection points for MCP servers, skills and subagents.

`connect_extensions` runs once per Agent on its first `session()` call;
`close_extensions` on `agent.close()`. Each part is imported only when needed,
so `import skawld_core` never imports `mcp`. Per-agent state lives in
`agent.extensions`: `"mcp"` (an `McpManager`), `"skills"` (a
`SkillLoadResult`), `"subagents"` (a `SubagentRegistry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .agent import Agent


async def connect_extensions(agent: Agent) -> None:
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


async def close_extensions(agent: Agent) -> None:
    """Disconnect whatever `connect_extensions` opened (idempotent)."""
    manager = agent.extensions.get("mcp")
    if manager is not None:
        await manager.close()
