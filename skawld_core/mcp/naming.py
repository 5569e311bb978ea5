"""Tool names for MCP tools: `mcp__<server>__<tool>` (§2.14, §2.17).

Characters outside `[A-Za-z0-9_-]` become `_`. Empty server names, server names
that collide after normalization, qualified names that collide (within a
server, or across the `__` boundary between servers) and names longer than 128
characters are problems: fatal in fail-fast mode, skipped with a warning in
tolerant mode.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

__all__ = ["MAX_TOOL_NAME", "check_server_names", "normalize", "plan_tool_names", "qualified_name"]

MAX_TOOL_NAME = 128
_BAD = re.compile(r"[^A-Za-z0-9_-]")


def normalize(part: str) -> str:
    """Replace every character outside `[A-Za-z0-9_-]` with `_`."""
    return _BAD.sub("_", part)


def qualified_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, both parts normalized."""
    return f"mcp__{normalize(server)}__{normalize(tool)}"


def check_server_names(names: Iterable[str]) -> dict[str, str]:
    """Problems with server names, by server: empty, or colliding with an
    earlier server after normalization."""
    problems: dict[str, str] = {}
    seen: dict[str, str] = {}
    for name in names:
        if not name or not name.strip():
            problems[name] = "server name is empty"
            continue
        key = normalize(name)
        if key in seen:
            problems[name] = f"server name collides with '{seen[key]}' after normalization ({key})"
            continue
        seen[key] = name
    return problems


def plan_tool_names(
    tools_by_server: Mapping[str, Sequence[str]], taken: Iterable[str] = ()
) -> tuple[dict[tuple[str, str], str], list[str]]:
    """Qualified names for every (server, tool), and the problems found.

    A tool whose name is too long or collides with an earlier one (or with a
    name in `taken`) gets no qualified name and one problem line.
    """
    used: dict[str, str] = {n: "an existing tool" for n in taken}
    names: dict[tuple[str, str], str] = {}
    problems: list[str] = []
    for server, tools in tools_by_server.items():
        for tool in tools:
            qualified = qualified_name(server, tool)
            if not tool:
                problems.append(f"{server}: a tool has an empty name")
            elif len(qualified) > MAX_TOOL_NAME:
                problems.append(f"{server}: tool name '{qualified}' is longer than {MAX_TOOL_NAME} characters")
            elif qualified in used:
                problems.append(f"{server}: tool '{tool}' collides with {used[qualified]} as '{qualified}'")
            else:
                used[qualified] = f"'{tool}' of server '{server}'"
                names[(server, tool)] = qualified
    return names, problems
