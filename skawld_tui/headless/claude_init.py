"""What today's Claude Agent SDK sends in its ``initialize`` control request, applied to skawld.

The TypeScript SDK (0.3.x) no longer puts the session's configuration on the command line: it
starts the CLI with ``--await-initialize`` and sends ``systemPrompt`` / ``appendSystemPrompt``,
``agents``, ``jsonSchema``, ``sdkMcpServers`` (in-process servers, answered over the control
channel), ``mcpServers`` and ``disallowedTools`` in ``initialize``. `read_initialize` checks them
(`ValueError` with the field's name for a malformed one), `apply_settings` folds them into the
`Settings` before the agent is built, and `init_lists` says what was loaded, for the ``init``
message and the ``initialize`` answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skawld_core.subagents.definitions import AgentDefinition
from skawld_core.subagents.inline import parse_inline_agents

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.settings import Settings

    from ..file_commands import PromptCommands


@dataclass
class InitConfig:
    """The configuration one ``initialize`` request carries (empty: nothing sent)."""

    system_prompt: str | None = None
    """``systemPrompt`` as a string (or list): the whole system prompt, in place of skawld's own
    (the instruction files, CLAUDE.md included, stay after it); the ``{"type": "preset"}`` form
    keeps skawld's prompt and sets only `append_system_prompt`."""
    append_system_prompt: str | None = None
    agents: list[AgentDefinition] = field(default_factory=list)
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    sdk_servers: list[str] = field(default_factory=list)
    json_schema: dict[str, Any] | None = None
    disallowed_tools: list[str] = field(default_factory=list)
    settings: dict[str, Any] | None = None
    """``settings`` (Claude Code settings, sent with ``settingsDelivery: "initialize"``) as a
    skawld config layer, like ``--settings``."""
    settings_notes: list[str] = field(default_factory=list)
    plugin_dirs: list[str] = field(default_factory=list)
    """``plugins`` (``[{type: "local", path}]``, sent with ``pluginDelivery: "initialize"``)."""
    skills: tuple[str, ...] | None = None
    """``skills``: only these skills load (None: all)."""
    sent: set[str] = field(default_factory=set)
    """The fields the request carried (each is confirmed ``*_applied`` in the answer)."""


def _strings(value: object, name: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise ValueError(f"initialize: {name} must be a string or a list of strings")


def read_initialize(req: Mapping[str, Any]) -> InitConfig:
    """The configuration of an ``initialize`` request; `ValueError` names a malformed field."""
    from skawld_core.config_model import ConfigFile  # lazy: pydantic builds the schema on first use

    out = InitConfig()
    prompt = req.get("systemPrompt")
    if isinstance(prompt, Mapping):  # {"type": "preset", "preset": "claude_code", "append": ...}
        append = prompt.get("append")
        out.append_system_prompt = append if isinstance(append, str) and append.strip() else None
    elif prompt is not None:
        out.system_prompt = "\n\n".join(p for p in _strings(prompt, "systemPrompt") if p.strip()) or None
    append = req.get("appendSystemPrompt")
    if append is not None:
        extra = "\n\n".join(_strings(append, "appendSystemPrompt"))
        out.append_system_prompt = "\n\n".join(p for p in (out.append_system_prompt, extra) if p) or None
    agents = req.get("agents")
    if agents is not None:  # an SDK newer than this reader may send fields it does not know
        out.agents = parse_inline_agents(agents, "initialize: agents", strict=False).agents
    servers = req.get("mcpServers")
    if servers is not None:
        if not isinstance(servers, Mapping):
            raise ValueError("initialize: mcpServers must be an object of name → server")
        out.sent.add("mcp_servers")
        for name, server in servers.items():
            if isinstance(server, Mapping) and server.get("type") == "sdk":
                out.sdk_servers.append(str(name))
            else:
                out.mcp_servers[str(name)] = server
        if out.mcp_servers:
            try:
                out.mcp_servers = ConfigFile.model_validate({"mcpServers": out.mcp_servers}).mcp_servers
            except ValueError as exc:
                raise ValueError(f"initialize: mcpServers: {exc}") from None
    sdk = req.get("sdkMcpServers")
    if sdk is not None:
        out.sdk_servers += [n for n in _strings(sdk, "sdkMcpServers") if n not in out.sdk_servers]
    schema = req.get("jsonSchema")
    if schema is not None:
        if not isinstance(schema, Mapping):
            raise ValueError("initialize: jsonSchema must be a JSON Schema object")
        out.json_schema = dict(schema)
    disallowed = req.get("disallowedTools")
    if disallowed is not None:
        out.disallowed_tools = _strings(disallowed, "disallowedTools")
        out.sent.add("disallowed_tools")
    if req.get("hooks"):
        out.sent.add("hooks")
    _read_settings_plugins_skills(req, out)
    return out


def _read_settings_plugins_skills(req: Mapping[str, Any], out: InitConfig) -> None:
    from skawld_core.claude_settings import settings_document
    from skawld_core.errors import ConfigError

    settings = req.get("settings")
    if settings is not None:
        if not isinstance(settings, Mapping):
            raise ValueError("initialize: settings must be a Claude Code settings object")
        try:
            out.settings, notes = settings_document(dict(settings), where="initialize settings")
        except ConfigError as exc:
            raise ValueError(f"initialize: settings: {exc}") from None
        out.settings_notes = list(notes)
        out.sent.add("settings")
    plugins = req.get("plugins")
    if plugins is not None:
        if not isinstance(plugins, list):
            raise ValueError("initialize: plugins must be a list of {type: 'local', path}")
        for i, plugin in enumerate(plugins):
            if (
                not isinstance(plugin, Mapping)
                or plugin.get("type") != "local"
                or not isinstance(plugin.get("path"), str)
            ):
                raise ValueError(f"initialize: plugins[{i}] must be {{type: 'local', path}} (got {plugin!r})")
            out.plugin_dirs.append(plugin["path"])
        out.sent.add("plugins")
    skills = req.get("skills")
    if skills is not None:
        out.skills = tuple(_strings(skills, "skills"))


def config_layer(cfg: InitConfig, cwd: Path) -> dict[str, Any]:
    """The config layer ``settings`` and ``plugins`` make (empty: neither was sent); plugin paths
    are taken relative to `cwd`."""
    layer: dict[str, Any] = dict(cfg.settings or {})
    if cfg.plugin_dirs:
        layer["pluginDirs"] = [str((cwd / Path(p).expanduser()).resolve()) for p in cfg.plugin_dirs]
    return layer


def replace_system_prompt(cfg: InitConfig, agent: Agent) -> None:
    """A string ``systemPrompt`` replaces skawld's own prompt (`apply_settings` put its text first)."""
    if cfg.system_prompt is not None:
        agent.system_prompt_replaces_default = True
        agent.invalidate_system_prompt()


def apply_settings(cfg: InitConfig, settings: Settings) -> Settings:
    """`settings` with the request's system prompt, subagents, MCP servers and deny rules."""
    from skawld_core.permissions.claude_rules import parse_claude_rules

    prompt = settings.system_prompt
    if cfg.system_prompt is not None:
        prompt = "\n\n".join(p for p in (cfg.system_prompt, settings.system_prompt) if p)
    if cfg.append_system_prompt:
        prompt = "\n\n".join(p for p in (prompt, cfg.append_system_prompt) if p)
    deny = parse_claude_rules(cfg.disallowed_tools, "deny").rules
    return dataclasses.replace(
        settings,
        agents=(*cfg.agents, *settings.agents),
        system_prompt=prompt,
        mcp_servers={**settings.mcp_servers, **cfg.mcp_servers},
        permission_rules=[*deny, *settings.permission_rules],
    )


def drop_disallowed(agent: Agent, specs: Iterable[str]) -> list[str]:
    """Take the built-in tools a bare ``--disallowedTools`` name denies off the model's list
    (Claude Code does; the deny rules stay, so an alias or a later registration is still
    refused). Returns the names removed."""
    from skawld_core.claude_tools import CLAUDE_TOOL_ALIASES
    from skawld_core.permissions.claude_rules import split_rule_list

    removed: list[str] = []
    for spec in split_rule_list(list(specs)):
        name = CLAUDE_TOOL_ALIASES.get(spec.strip(), spec.strip())
        if "(" in name or name.startswith("mcp__") or agent.tools.get(name) is None:
            continue
        agent.tools.unregister(name)
        removed.append(name)
    if removed:
        agent.invalidate_system_prompt()
    return removed


@dataclass(frozen=True)
class LoadedLists:
    """What the ``init`` message and the ``initialize`` answer list."""

    slash_commands: list[str]
    commands: list[dict[str, str]]
    agents: list[dict[str, str]]
    """``{name, description, model?}`` each (the ``init`` message lists only the names)."""
    plugins: list[dict[str, str]]


def init_lists(agent: Agent, commands: PromptCommands) -> LoadedLists:
    """The file commands and skills (slash commands), subagents and plugins the agent loaded."""
    rows = commands.completions()
    registry = agent.extensions.subagents
    return LoadedLists(
        slash_commands=[name for name, _, _ in rows],
        commands=[{"name": name, "description": description, "argumentHint": hint} for name, hint, description in rows],
        agents=[
            {"name": d.name, "description": d.description, **({"model": d.model} if d.model else {})}
            for d in (registry.list() if registry is not None else [])
        ],
        plugins=[{"name": p.name, "path": str(p.root)} for p in agent.plugins],
    )
