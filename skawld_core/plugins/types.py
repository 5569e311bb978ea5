"""`Plugin`: one loaded Claude Code plugin, as the agent and the config see it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Plugin", "PluginError"]


class PluginError(Exception):
    """A plugin (or marketplace) could not be read or installed; the message says which and why."""


@dataclass(frozen=True)
class Plugin:
    """A plugin directory (``.claude-plugin/plugin.json`` and what sits beside it).

    `commands`, `agents` and `skills` are the directories (or single command files)
    to load, named ``<name>:<item>``; `hooks` are skawld's flat hook entries (Claude
    Code's ``hooks/hooks.json`` converted, ``${CLAUDE_PLUGIN_ROOT}`` expanded and set in
    each entry's `env`); `mcp_servers` are the plugin's servers under their namespaced
    names (``plugin:<name>:<server>``, so their tools are
    ``mcp__plugin_<name>_<server>__<tool>`` as in Claude Code). `origin` says how it
    was enabled (``--plugin-dir``, ``name@marketplace``).
    """

    name: str
    root: Path
    description: str = ""
    version: str | None = None
    origin: str = ""
    commands: tuple[Path, ...] = ()
    agents: tuple[Path, ...] = ()
    skills: tuple[Path, ...] = ()
    hooks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def namespaced(self, paths: tuple[Path, ...]) -> list[tuple[Path, str]]:
        """`(path, plugin name)` pairs, the shape the loaders take for namespaced sources."""
        return [(p, self.name) for p in paths]
