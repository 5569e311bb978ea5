"""Subagents given as JSON rather than files: Claude Code's ``--agents`` flag and the SDK's
``agents`` option (``{"reviewer": {"description": "...", "prompt": "...", "tools": [...],
"model": "sonnet"}}``).

`parse_inline_agents` checks one such object and names the field at fault in its
`ValueError`. The fields are those Claude Code documents for CLI-defined subagents:
``description`` and ``prompt`` are required; ``tools``, ``disallowedTools`` and ``model``
are honoured; the others (`UNHONOURED_FIELDS`) are accepted and listed in the result's
`notes`, since skawld's subagents have no per-agent permission mode, MCP servers, hooks,
turn cap, skills, memory, effort, background or worktree isolation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..skills.frontmatter import model_override, name_slug
from .definitions import AGENT_NAME_RE, AgentDefinition, normalize_tools

__all__ = ["HONOURED_FIELDS", "UNHONOURED_FIELDS", "InlineAgents", "parse_inline_agents"]

HONOURED_FIELDS = ("description", "prompt", "tools", "disallowedTools", "model")
UNHONOURED_FIELDS = (
    "permissionMode",
    "mcpServers",
    "hooks",
    "maxTurns",
    "skills",
    "initialPrompt",
    "memory",
    "effort",
    "background",
    "isolation",
    "color",
)


@dataclass
class InlineAgents:
    """The definitions of one ``agents`` object, and a note per field skawld does not honour."""

    agents: list[AgentDefinition] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _tool_list(value: object, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return normalize_tools(value)
    raise ValueError(f"{where} must be a list of tool names")


def _one(name: str, raw: object, where: str, *, strict: bool, notes: list[str]) -> AgentDefinition:
    here = f"{where}.{name}"
    if not AGENT_NAME_RE.match(name_slug(name)):
        raise ValueError(f"{where}: invalid agent name {name!r} (letters, digits, '-' and '_')")
    if not isinstance(raw, Mapping) or not isinstance(raw.get("description"), str) or not raw["description"].strip():
        raise ValueError(f"{here} needs a 'description' string")
    prompt = raw.get("prompt")
    if not isinstance(prompt, str):
        raise ValueError(f"{here}.prompt must be a string (the subagent's system prompt)")
    model = raw.get("model")
    if model is not None and not isinstance(model, str):
        raise ValueError(f"{here}.model must be a string (a model id or alias, or 'inherit')")
    for key in raw:
        if key in UNHONOURED_FIELDS:
            notes.append(f"{here}.{key} is accepted but not honoured")
        elif key not in HONOURED_FIELDS and strict:
            known = ", ".join((*HONOURED_FIELDS, *UNHONOURED_FIELDS))
            raise ValueError(f"{here}: unknown field {key!r} (expected {known})")
    return AgentDefinition(
        name=name_slug(name),
        description=" ".join(raw["description"].split()),
        body=prompt.strip(),
        tools=_tool_list(raw.get("tools"), f"{here}.tools"),
        disallowed_tools=_tool_list(raw.get("disallowedTools"), f"{here}.disallowedTools") or (),
        model=model_override(model),
    )


def parse_inline_agents(doc: object, where: str, *, strict: bool = True) -> InlineAgents:
    """The subagents of an ``agents`` object (name → definition). Raises `ValueError`
    naming the field (``--agents.reviewer.tools must be ...``) for a malformed one; an
    unknown field is an error when `strict`, and ignored otherwise (an SDK's newer fields)."""
    if not isinstance(doc, Mapping):
        raise ValueError(f"{where} must be an object of name → definition")
    out = InlineAgents()
    seen: set[str] = set()
    for name, raw in doc.items():
        agent = _one(str(name), raw, where, strict=strict, notes=out.notes)
        if agent.name.lower() in seen:
            raise ValueError(f"{where}: agent {agent.name!r} is defined twice")
        seen.add(agent.name.lower())
        out.agents.append(agent)
    return out
