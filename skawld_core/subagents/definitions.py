"""Subagent definitions: `<configDir>/agents/<name>.md` files (§2.16).

Files in subfolders load too (`agents/review/security.md`), as Claude Code loads
them: the folder only organizes, the name is the frontmatter's `name` (or the file
name). A plugin's agents get the plugin's name as a namespace (`plugin:agent`,
`load_agent_definitions(..., namespaced=...)`). Symlinked folders are not followed.

Frontmatter is lenient (unknown keys, such as Claude Code's `color`, are
ignored): `description` is required; `name` defaults to the file name (case
kept); `tools` is a list or a comma-separated string, `(...)` suffixes are
stripped (`Bash(npm:*)` → `Bash`), a wrong type counts as absent; `disallowedTools`
(the same forms) takes tools off that list; `model` is an optional model id or Claude
Code alias (`inherit` means the session model). The body is the subagent's system
prompt. Definitions given as JSON (``--agents``) are read by `subagents.inline`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from ..claude_tools import map_tool_name
from ..skills.frontmatter import (
    FrontmatterError,
    model_override,
    name_slug,
    read_definition,
    sorted_entries,
    split_frontmatter,
)

__all__ = [
    "AGENT_NAME_RE",
    "AgentDefinition",
    "AgentLoadResult",
    "AgentSkipReason",
    "SkippedAgent",
    "agent_files",
    "load_agent_definitions",
    "normalize_tools",
    "parse_agent_definition",
]

AgentSkipReason = Literal["missing-frontmatter", "invalid-frontmatter", "name-collision", "io-error"]
AGENT_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$", re.IGNORECASE)


@dataclass(frozen=True, kw_only=True)
class AgentDefinition:
    """A subagent type: its name, description, tool allowlist and system prompt.

    `tools` None (or containing `*`) means every tool the parent has; `disallowed_tools`
    are taken off whatever `tools` gives.
    """

    name: str
    description: str
    body: str = ""
    tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] = ()
    model: str | None = None
    path: Path | None = None


@dataclass(frozen=True)
class SkippedAgent:
    """An agent file that did not load, and why."""

    path: Path
    reason: AgentSkipReason
    detail: str = ""


@dataclass
class AgentLoadResult:
    """Loaded definitions (sorted by name) and skipped files."""

    agents: list[AgentDefinition] = field(default_factory=list)
    skipped: list[SkippedAgent] = field(default_factory=list)


def normalize_tools(value: Any) -> tuple[str, ...] | None:
    """`"Read, Grep, Bash(npm:*)"` or a list → `("Read", "Grep", "Bash")`; any
    other type → None (absent)."""
    if isinstance(value, str):
        items: list[Any] = value.split(",")
    elif isinstance(value, list):
        items = value
    else:
        return None
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            continue
        name = item.strip()
        paren = name.find("(")
        if paren != -1:
            name = name[:paren].strip()
        name = map_tool_name(name)  # Claude Code's MultiEdit is skawld's Edit, …
        if name and name not in out:
            out.append(name)
    return tuple(out)


def parse_agent_definition(text: str, path: Path) -> AgentDefinition:
    """Parse one agent file. Raises `LookupError` when there is no frontmatter
    and `ValueError` when it is invalid."""
    try:
        split = split_frontmatter(text)
    except FrontmatterError as exc:
        raise ValueError(str(exc)) from None
    if split is None:
        raise LookupError("no frontmatter")
    data, body = split
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ValueError("description is required")
    name = data.get("name")
    if name is None:
        name = path.stem
    if not isinstance(name, str) or not AGENT_NAME_RE.match(name_slug(name)):
        raise ValueError(f"invalid agent name {name!r}")
    name = name_slug(name)
    return AgentDefinition(
        name=name,
        description=" ".join(description.split()),
        body=body.strip(),
        tools=normalize_tools(data.get("tools")),
        disallowed_tools=normalize_tools(data.get("disallowedTools")) or (),
        model=model_override(data.get("model")),
        path=path,
    )


def agent_files(directory: Path) -> list[Path]:
    """The `.md` files of an agents directory and its subfolders (depth first, by name);
    symlinked files are listed (and refused when read), symlinked folders are not entered."""
    if directory.suffix == ".md" and directory.is_file():
        return [directory]  # a plugin may list single agent files
    out: list[Path] = []
    for entry in sorted_entries(directory):
        if entry.is_dir() and not entry.is_symlink():
            out += agent_files(entry)
        elif entry.suffix == ".md" and (entry.is_file() or entry.is_symlink()):
            out.append(entry)
    return out


def load_agent_definitions(
    config_dirs: Sequence[Path], *, namespaced: Sequence[tuple[Path, str]] = ()
) -> AgentLoadResult:
    """Load `<dir>/agents/**/*.md` for each config dir in order, then each
    `(agents_dir, namespace)` of `namespaced` (a plugin's agents, named
    `namespace:name`); the first wins a duplicate name (compared
    case-insensitively). Never raises."""
    result = AgentLoadResult()
    seen: dict[str, AgentDefinition] = {}
    sources = [(Path(d) / "agents", "") for d in config_dirs] + [(Path(d), f"{ns}:") for d, ns in namespaced]
    for directory, prefix in sources:
        for entry in agent_files(directory):
            try:
                text = read_definition(entry)
            except OSError as exc:
                result.skipped.append(SkippedAgent(entry, "io-error", str(exc)))
                continue
            try:
                definition = parse_agent_definition(text, entry)
            except LookupError as exc:
                result.skipped.append(SkippedAgent(entry, "missing-frontmatter", str(exc)))
                continue
            except ValueError as exc:
                result.skipped.append(SkippedAgent(entry, "invalid-frontmatter", str(exc)))
                continue
            if prefix:
                definition = replace(definition, name=prefix + definition.name)
            key = definition.name.lower()
            if key in seen:
                result.skipped.append(SkippedAgent(entry, "name-collision", f"'{definition.name}' is already loaded"))
                continue
            seen[key] = definition
    result.agents = sorted(seen.values(), key=lambda d: d.name.lower())
    return result
