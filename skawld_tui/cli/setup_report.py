"""The Claude Code part of ``skawld -v``: which settings files were read, which skills,
agents, commands and MCP servers lost a name clash (and to what), and per agent the
``tools:`` names that match no skawld tool.

Only ``-v`` pays for this: it loads the skill, agent and command files once more.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["setup_report"]

_SETTINGS_NAMES = ("settings.json", "settings.local.json")


def setup_report(settings: Any) -> list[str]:
    """The lines (without the ``skawld: `` prefix) for `settings` (a `skawld_core.settings.Settings`)."""
    from skawld_core.config import home_dir

    lines: list[str] = []
    for src in settings.sources:
        if src.path and Path(src.path).name in _SETTINGS_NAMES and Path(src.path).parent.name == ".claude":
            lines.append(f"Claude Code settings read: {src.path}")
    lines += [f"name clash: {line}" for line in settings.shadowed]
    dirs = list(settings.config_dirs)
    lines += [f"name clash: {line}" for line in _skill_clashes(dirs)]
    agent_lines, agents = _agent_clashes(dirs)
    lines += [f"name clash: {line}" for line in agent_lines]
    lines += [f"name clash: {line}" for line in _command_clashes(settings.cwd, home_dir(settings.env))]
    lines += _unmapped(agents, settings)
    return lines


def _skill_clashes(dirs: list[Path]) -> list[str]:
    from skawld_core.skills.loader import load_skills

    result = load_skills(dirs)
    winners = {s.name: s.directory for s in result.skills}
    out = []
    for skipped in result.skipped:
        if skipped.reason == "name-collision-skill":
            name = skipped.detail.split("'")[1] if "'" in skipped.detail else skipped.path.name
            out.append(f"skill {name!r} in {skipped.path} lost to {winners.get(name, 'another skill')}")
    return out


def _agent_clashes(dirs: list[Path]) -> tuple[list[str], list[Any]]:
    from skawld_core.subagents.definitions import load_agent_definitions

    result = load_agent_definitions(dirs)
    winners = {a.name.lower(): a.path for a in result.agents}
    out = []
    for skipped in result.skipped:
        if skipped.reason == "name-collision":
            name = skipped.detail.split("'")[1] if "'" in skipped.detail else skipped.path.stem
            out.append(f"agent {name!r} in {skipped.path} lost to {winners.get(name.lower(), 'another agent')}")
    return out, result.agents


def _command_clashes(cwd: Path, home: Path) -> list[str]:
    from ..file_commands import (  # lazy: file commands are read only to report name clashes
        command_dirs,
        load_file_commands,
    )

    _commands, skipped = load_file_commands(command_dirs(cwd, home))
    return [
        f"command {why.split()[0]} in {path} lost to {why.rsplit(' by ', 1)[-1]}"
        for path, why in skipped
        if "already defined" in why
    ]


def _unmapped(agents: list[Any], settings: Any) -> list[str]:
    from skawld_core.claude_tools import unmapped_tools
    from skawld_core.skills.loader import BUILTIN_TOOL_NAMES
    from skawld_core.tools import default_tools

    available = {*BUILTIN_TOOL_NAMES, *(t.name for t in default_tools(background_shells=True))}
    out = []
    for agent in agents:
        missing = unmapped_tools(agent.tools or (), available, settings.mcp_servers)
        if missing:
            out.append(f"agent {agent.name!r} ({agent.path}): tools not in skawld, left out: {', '.join(missing)}")
    return out
