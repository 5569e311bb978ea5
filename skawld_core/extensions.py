"""Connection points for MCP servers, skills and subagents.

`connect_extensions` runs once per Agent on its first `session()` call;
`close_extensions` on `agent.close()`. Each part is imported only when the
agent is configured for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .agent import Agent


async def connect_extensions(agent: Agent) -> None:
    """Connect MCP, load skills, load subagents (in that order)."""


async def close_extensions(agent: Agent) -> None:
    """Disconnect whatever `connect_extensions` opened."""
