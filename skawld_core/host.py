"""`ExtensionHost`: what MCP, skills and subagents need from the `Agent` they attach to.

The connectors (`skawld_core.mcp.manager`, `skawld_core.skills.connect`,
`skawld_core.subagents.connect`) are written against this Protocol rather than
`Agent`, so they do not depend on the agent module (and the agent only on them
when it connects). `Agent` satisfies it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .events import SkillSummary
    from .extensions import Extensions
    from .permissions import PermissionEngine
    from .providers.base import BaseProvider
    from .tools.registry import ToolRegistry

__all__ = ["ExtensionHost"]


class ExtensionHost(Protocol):
    """The agent-side surface the extension connectors use."""

    provider: BaseProvider
    model: str
    cwd: Path
    tools: ToolRegistry
    permissions: PermissionEngine
    config_dirs: list[Path]
    untrusted_config_dirs: list[Path]
    mcp_servers: dict[str, dict[str, Any]]
    mcp_fail_fast: bool
    env_passthrough: tuple[str, ...]
    extensions: Extensions

    def invalidate_system_prompt(self) -> None:
        """Rebuild the system prompt before the next request (tools changed)."""

    def set_skills(self, summaries: Sequence[SkillSummary], listing: str | None) -> None:
        """Install the loaded skills' summaries and their listing."""
