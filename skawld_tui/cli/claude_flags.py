"""Claude Code's command-line flags, mapped onto skawld's configuration.

`ClaudeFlags` holds the flags skawld takes under Claude Code's names (beside its
own spellings); `config_overrides` turns ``--settings`` and ``--mcp-config`` into a
document in ``config.json``'s shape, which goes through the normal config loader
(`skawld_core.config.load_config` validates it like a file). `check_conflicts`
raises `ValueError` for a usage error (exit 2), and `unhonoured` lists the flags
skawld accepts but cannot honour (reported once on stderr).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skawld_core.claude_modes import CLAUDE_MODES
from skawld_core.errors import ConfigError

if TYPE_CHECKING:
    from skawld_core.subagents.inline import InlineAgents

_MODES_IN = {**CLAUDE_MODES, "yolo": "yolo"}
SETTING_SOURCES = ("user", "project", "local")


def skawld_mode(mode: str) -> str:
    """Claude Code's permission mode in skawld's vocabulary; `ValueError` when unknown."""
    if mode not in _MODES_IN:
        raise ValueError(f"unknown permission mode {mode!r} (expected default, acceptEdits, plan or bypassPermissions)")
    return _MODES_IN[mode]


@dataclass
class ClaudeFlags:
    """The Claude Code flags of one invocation (None / empty = not given)."""

    append_system_prompt: str | None = None
    fallback_model: str | None = None
    session_id: str | None = None
    mcp_config: Sequence[str] = ()
    strict_mcp_config: bool = False
    settings: str | None = None
    setting_sources: str | None = None
    include_partial_messages: bool = False
    json_schema: str | None = None
    max_budget_usd: float | None = None
    permission_prompt_tool: str | None = None
    tools: str | None = None
    betas: Sequence[str] = ()
    max_thinking_tokens: int | None = None
    effort: str | None = None
    include_hook_events: bool = False
    agents: str | None = None
    schema: dict[str, Any] | None = field(default=None, init=False)


def read_json_arg(value: str, flag: str, cwd: Path) -> Any:
    """A flag value that is inline JSON or the path of a JSON file."""
    text = value.strip()
    where = flag
    if not text.startswith(("{", "[")):
        path = (cwd / Path(text).expanduser()).resolve()
        try:
            text = path.read_text(encoding="utf-8-sig")
        except OSError as exc:
            raise ConfigError(f"{flag}: cannot read {path}: {exc.strerror or exc}") from None
        where = f"{flag} {path}"
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"{where}: invalid JSON: {exc}") from None


def mcp_config_doc(values: Sequence[str], cwd: Path) -> tuple[dict[str, Any], list[str]]:
    """``--mcp-config`` values as an ``mcpServers`` document, and the SDK (in-process) server names."""
    servers: dict[str, Any] = {}
    sdk: list[str] = []
    for value in values:
        doc = read_json_arg(value, "--mcp-config", cwd)
        if not isinstance(doc, dict) or not isinstance(doc.get("mcpServers", {}), dict):
            raise ConfigError('--mcp-config: expected {"mcpServers": {name: server, ...}}')
        for name, server in doc.get("mcpServers", {}).items():
            if isinstance(server, dict) and server.get("type") == "sdk":
                sdk.append(str(name))
            else:
                servers[str(name)] = server
    return ({"mcpServers": servers} if servers else {}), sdk


def settings_doc(value: str, cwd: Path) -> tuple[dict[str, Any], list[str]]:
    """A Claude Code settings file/JSON (``--settings``) as a config document, and notes."""
    from skawld_core.claude_settings import settings_document

    doc, notes = settings_document(read_json_arg(value, "--settings", cwd), where="--settings")
    return doc, [f"--settings: {note}" for note in notes]


def inline_agents(value: str, cwd: Path) -> InlineAgents:
    """``--agents``: inline JSON or a JSON file of subagents; `ValueError` (a usage error)
    names the file or the field at fault."""
    from skawld_core.subagents.inline import parse_inline_agents  # lazy: the subagent package, only with --agents

    try:
        doc = read_json_arg(value, "--agents", cwd)
    except ConfigError as exc:
        raise ValueError(str(exc)) from None
    return parse_inline_agents(doc, "--agents")


def check_conflicts(flags: ClaudeFlags, *, fmt: str, json_out: bool, stream_input: bool) -> None:
    """Usage errors between Claude Code flags and the output format (`ValueError`)."""
    if (flags.json_schema is not None and fmt not in ("json", "stream-json")) or (flags.json_schema and json_out):
        raise ValueError("--json-schema needs --output-format json or stream-json")
    if flags.include_partial_messages and fmt != "stream-json":
        raise ValueError("--include-partial-messages needs --output-format stream-json (or --json)")
    if stream_input and not json_out and fmt != "stream-json":
        raise ValueError("--input-format stream-json needs --output-format stream-json (or --json)")
    if flags.max_budget_usd is not None and flags.max_budget_usd <= 0:
        raise ValueError(f"--max-budget-usd must be a number > 0 (got {flags.max_budget_usd:g})")
    if flags.strict_mcp_config and not flags.mcp_config:
        raise ValueError("--strict-mcp-config needs --mcp-config")
    if flags.setting_sources is not None:
        bad = [s for s in flags.setting_sources.split(",") if s.strip() and s.strip() not in SETTING_SOURCES]
        if bad:
            raise ValueError(f"--setting-sources: unknown source {bad[0]!r} (expected user, project, local)")
    if flags.json_schema is not None:
        try:
            schema = json.loads(flags.json_schema)
        except ValueError as exc:
            raise ValueError(f"--json-schema: invalid JSON: {exc}") from None
        if not isinstance(schema, dict):
            raise ValueError("--json-schema: expected a JSON Schema object")
        from jsonschema import Draft202012Validator
        from jsonschema.exceptions import SchemaError
        from jsonschema.validators import validator_for

        try:
            validator_for(schema, default=Draft202012Validator).check_schema(schema)
        except SchemaError as exc:
            raise ValueError(f"--json-schema: not a valid JSON Schema: {exc.message}") from None
        flags.schema = schema
    if flags.permission_prompt_tool == "stdio" and (json_out or fmt != "stream-json" or not stream_input):
        raise ValueError(
            "--permission-prompt-tool stdio needs --output-format stream-json --input-format stream-json "
            "(with --json, use --canusetool)"
        )
    if flags.permission_prompt_tool not in (None, "stdio"):
        raise ValueError(
            f"--permission-prompt-tool {flags.permission_prompt_tool}: skawld supports only 'stdio' "
            "(permission requests over the control protocol)"
        )


def unhonoured(flags: ClaudeFlags, *, provider_id: str) -> list[str]:
    """Flags skawld accepts but cannot honour, one line each."""
    out: list[str] = []
    if flags.fallback_model:
        out.append("--fallback-model is accepted but skawld does not switch models on overload")
    if flags.betas:
        why = "" if provider_id == "anthropic" else f" (the {provider_id} provider has no Anthropic betas)"
        out.append(f"--betas is accepted but not sent{why}")
    if flags.max_thinking_tokens is not None:
        out.append("--max-thinking-tokens is accepted but not honoured")
    if flags.effort is not None:
        out.append("--effort is accepted but not honoured")
    if flags.include_hook_events:
        out.append("--include-hook-events is accepted but skawld emits no hook event messages")
    if flags.setting_sources is not None and "project" not in flags.setting_sources.split(","):
        out.append("--setting-sources without 'project': skawld still reads the project's .skawld/config.json")
    return out


@dataclass
class FlagConfig:
    """What the Claude flags add to the configuration."""

    extra_config: dict[str, Any] = field(default_factory=dict)
    sdk_servers: list[str] = field(default_factory=list)
    strict_servers: list[str] | None = None
    notes: list[str] = field(default_factory=list)


def flag_config(flags: ClaudeFlags, cwd: Path) -> FlagConfig:
    """Read ``--settings`` and ``--mcp-config`` (raises `ConfigError`, exit 3)."""
    from skawld_core.config import merge_layers

    out = FlagConfig()
    if flags.settings is not None:
        doc, notes = settings_doc(flags.settings, cwd)
        out.extra_config = merge_layers(out.extra_config, doc)
        out.notes += notes
    if flags.mcp_config:
        doc, out.sdk_servers = mcp_config_doc(flags.mcp_config, cwd)
        out.extra_config = merge_layers(out.extra_config, doc)
        if flags.strict_mcp_config:
            out.strict_servers = list(doc.get("mcpServers", {}))
    return out
