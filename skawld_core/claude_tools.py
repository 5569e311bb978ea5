"""Claude Code tool names in agent and skill files, mapped to skawld's tools.

Claude Code's ``tools:`` lists name its own tools. Where skawld has the same
tool under another name the name is mapped (`CLAUDE_TOOL_ALIASES`); names with
no skawld counterpart (``WebFetch``, ``NotebookEdit``, …) are reported by
``skawld -v`` (`unmapped_tools`).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CLAUDE_TOOL_ALIASES", "map_tool_name", "unmapped_tools"]

CLAUDE_TOOL_ALIASES = {"Task": "Subagent", "Agent": "Subagent", "MultiEdit": "Edit", "KillBash": "KillShell"}


def map_tool_name(name: str) -> str:
    """skawld's name for a Claude Code tool name (the name itself when it has no alias)."""
    return CLAUDE_TOOL_ALIASES.get(name, name)


def unmapped_tools(names: Iterable[str], available: Iterable[str], mcp_servers: Iterable[str] = ()) -> list[str]:
    """The names in `names` that match no tool in `available` (after mapping), in order.

    A name with ``*`` is a pattern (kept when it matches something); ``mcp__<server>…``
    counts as mapped when `<server>` is configured (its tools are known only once it runs).
    """
    import fnmatch

    known = set(available)
    servers = set(mcp_servers)
    out: list[str] = []
    for name in names:
        mapped = map_tool_name(name)
        if mapped in known or name == "*":
            continue
        if "*" in mapped and any(fnmatch.fnmatchcase(k, mapped) for k in known):
            continue
        if mapped.startswith("mcp__") and mapped.removeprefix("mcp__").split("__")[0] in servers:
            continue
        out.append(name)
    return out
