"""Installing the loaded skills on an Agent (run once by `connect_extensions`)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..command_files import FileCommand, load_file_commands
from .frontmatter import model_override
from .listing import listing_budget, render_listing, wrap_listing
from .loader import BUILTIN_TOOL_NAMES, load_skills
from .tool import SkillTool
from .types import Skill, SkillLoadResult
from .untrusted import strip_grants

if TYPE_CHECKING:
    from ..host import ExtensionHost

__all__ = ["install_skills"]

log = logging.getLogger("skawld.skills")
log.addHandler(logging.NullHandler())  # never the terminal unless the app configures logging


def command_skills(agent: ExtensionHost, taken: set[str]) -> list[Skill]:
    """The command files of the agent's config dirs as skills the model may call by name."""
    commands, _skipped = load_file_commands([d / "commands" for d in agent.config_dirs])
    return [_as_skill(c) for c in commands if c.name not in taken]


def _as_skill(command: FileCommand) -> Skill:
    # A command's `allowed-tools` cover only its own `!` lines, so they grant nothing here.
    return Skill(
        name=command.name,
        description=command.description,
        body=command.body,
        directory=command.path.parent,
        argument_hint=command.argument_hint,
        model=model_override(command.model),
        from_command=True,
    )


def install_skills(agent: ExtensionHost) -> SkillLoadResult:
    """Load skills from the agent's config dirs; register `Skill` when at least
    one loaded, append the auto-allow rules for plain skills, and hand the
    summaries and listing to the agent. Command files (`<configDir>/commands/*.md`)
    are offered through `Skill` too, as in Claude Code; a skill wins a name clash. Returns the load result (with its skip
    reasons; `connect_extensions` keeps it in `agent.extensions.skills`)."""
    reserved = set(BUILTIN_TOOL_NAMES) | {n for n in agent.tools.names() if not n.startswith("mcp__")}
    plugin_sources = [src for p in agent.plugins for src in p.namespaced(p.skills)]
    result = load_skills(agent.config_dirs, reserved, namespaced=plugin_sources)
    result.skills += command_skills(agent, {s.name for s in result.skills} | reserved)
    if agent.skill_filter is not None:
        wanted = agent.skill_filter
        result.skills = [s for s in result.skills if any(s.name == w or s.name.endswith(f":{w}") for w in wanted)]
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
    # Command files are the host's to list as commands; the model sees them in the listing.
    agent.set_skills([s.summary() for s in result.skills if not s.from_command], listing)
    agent.invalidate_system_prompt()
    return result
