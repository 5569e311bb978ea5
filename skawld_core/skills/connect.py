"""Installing the loaded skills on an Agent (run once by `connect_extensions`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from .listing import listing_budget, render_listing, wrap_listing
from .loader import BUILTIN_TOOL_NAMES, load_skills
from .tool import SkillTool
from .types import SkillLoadResult
from .untrusted import strip_grants

if TYPE_CHECKING:
    from ..host import ExtensionHost

__all__ = ["install_skills"]

log = logging.getLogger("skawld.skills")
log.addHandler(logging.NullHandler())  # never the terminal unless the app configures logging


def install_skills(agent: ExtensionHost) -> SkillLoadResult:
    """Load skills from the agent's config dirs; register `Skill` when at least
    one loaded, append the auto-allow rules for plain skills, and hand the
    summaries and listing to the agent. Returns the load result (with its skip
    reasons; `connect_extensions` keeps it in `agent.extensions.skills`)."""
    reserved = set(BUILTIN_TOOL_NAMES) | {n for n in agent.tools.names() if not n.startswith("mcp__")}
    plugin_sources = [src for p in agent.plugins for src in p.namespaced(p.skills)]
    result = load_skills(agent.config_dirs, reserved, namespaced=plugin_sources)
    untrusted = agent.untrusted_config_dirs
    result.skills = [
        strip_grants(s, s.directory, untrusted, allowed_tools=(), model=None, grants_withheld=bool(s.allowed_tools))
        for s in result.skills
    ]
    for skipped in result.skipped:
        log.warning("skill skipped: %s (%s: %s)", skipped.path, skipped.reason, skipped.detail)
    if not result.skills:
        agent.set_skills([], None)
        return result
    if isinstance(agent.tools.get(SkillTool.name), SkillTool):
        agent.tools.unregister(SkillTool.name)
    agent.tools.register(SkillTool(result.skills, agent.model))
    for skill in result.skills:
        if skill.is_plain:
            agent.permissions.add_rule({"kind": "tool", "tool": "Skill", "arg": skill.name, "decision": "allow"})
    try:
        window: int | None = agent.provider.context_window(agent.model)
    except Exception:
        window = None
    listing = wrap_listing(render_listing(result.skills, listing_budget(window)))
    agent.set_skills([s.summary() for s in result.skills], listing)
    agent.invalidate_system_prompt()
    return result
