"""The ``skawld`` command line, declared once: `CommandLine`, one field per flag.

Each field is a flag's whole description: its keyword (the field name), type and
default, its spellings, help text and help panel, whether the fast path
(`fast_cli`) parses it, and which option objects it feeds (``"CliOptions.model"``:
`fed` copies it there). From this one table come the typer command (`typer_parameters`),
the fast parser's table (`fast_options`) and the option objects of `cli.run`.
Importing this module imports neither typer nor the agent.
"""

from __future__ import annotations

import sys
from dataclasses import Field, dataclass, field, fields
from enum import Enum, StrEnum
from typing import Any, Literal

FastKind = Literal["flag", "str", "int1", "int0", "multi", "provider", "mode", "format"]
"""How the fast path reads a flag: a switch, a string, an integer >= 1 or >= 0, a
repeatable string, or one of the choices below."""


class ProviderId(StrEnum):
    anthropic = "anthropic"
    openai_chat = "openai-chat"
    openai_responses = "openai-responses"


class PermissionModeOpt(StrEnum):
    default = "default"
    acceptEdits = "acceptEdits"
    plan = "plan"
    yolo = "yolo"
    bypassPermissions = "bypassPermissions"


class OutputFormat(StrEnum):
    text = "text"
    json = "json"
    stream_json = "stream-json"


class InputFormat(StrEnum):
    text = "text"
    stream_json = "stream-json"


FAST_CHOICES: dict[str, type[StrEnum]] = {"provider": ProviderId, "mode": PermissionModeOpt, "format": OutputFormat}


@dataclass(frozen=True)
class Flag:
    """How one `CommandLine` field appears on the command line."""

    decls: tuple[str, ...]
    """Its spellings, as typer takes them (``"--sandbox/--no-sandbox"`` for an on/off pair)."""
    help: str | None = None
    panel: str | None = None
    metavar: str | None = None
    min: int | None = None
    hidden: bool = False
    fast: FastKind | None = None
    """How the fast path parses it; None: only typer does."""
    feeds: tuple[str, ...] = ()
    """``"Object.field"`` of each option object that takes the value as it is."""
    argument: bool = False
    eager: bool = False
    """Acted on before the others (``--version``)."""


def _flag(*decls: str, default: Any = None, feeds: str | tuple[str, ...] = (), **spec: Any) -> Any:
    feeds = (feeds,) if isinstance(feeds, str) else feeds
    return field(default=default, metadata={"flag": Flag(decls, feeds=feeds, **spec)})


M = "Model and provider"
S = "Session"
P = "Permissions"
L = "Limits"
O = "Output"  # noqa: E741
C = "Config"


@dataclass(frozen=True)
class CommandLine:
    """The values of one ``skawld`` command line (the defaults are what an absent flag gives)."""

    prompt: str | None = _flag(
        argument=True,
        help="The prompt (headless mode reads stdin when omitted).",
        metavar="PROMPT",
        feeds="HeadlessOptions.prompt",
    )
    print_mode: bool = _flag("-p", "--print", default=False, help="Run headless: one prompt, then exit.", fast="flag")
    json_out: bool = _flag(
        "--json", default=False, help="NDJSON events on stdout (= --output-format stream-json).", fast="flag"
    )
    output_format: OutputFormat | None = _flag(
        "--output-format", help="text | json | stream-json (headless).", panel=O, fast="format"
    )
    input_format: InputFormat = _flag(
        "--input-format",
        default=InputFormat.text,
        help="stream-json: keep reading stdin control messages until EOF.",
        panel=O,
    )
    model: str | None = _flag(
        "--model", "-m", metavar="MODEL", help="Model id.", panel=M, fast="str", feeds="CliOptions.model"
    )
    provider: ProviderId | None = _flag(
        "--provider", help="Model API.", panel=M, fast="provider", feeds="CliOptions.provider"
    )
    base_url: str | None = _flag(
        "--base-url", metavar="URL", help="API base URL.", panel=M, fast="str", feeds="CliOptions.base_url"
    )
    session: str | None = _flag(
        "--session", metavar="ID", help="Resume this session id, or create it.", panel=S, fast="str"
    )
    resume: str | None = _flag(
        "--resume", "-r", metavar="ID", help="Resume by id or unique prefix (no id: pick).", panel=S
    )
    continue_last: bool = _flag(
        "--continue",
        "-c",
        default=False,
        help="Resume the newest session of this directory.",
        panel=S,
        fast="flag",
        feeds="HeadlessOptions.continue_last",
    )
    fork_session: bool = _flag(
        "--fork-session",
        default=False,
        help="With --resume/--continue: continue in a copy of the session.",
        panel=S,
        fast="flag",
        feeds="HeadlessOptions.fork",
    )
    cwd: str | None = _flag(
        "--cwd", metavar="DIR", help="Working directory.", panel=S, fast="str", feeds="CliOptions.cwd"
    )
    permission_mode: PermissionModeOpt | None = _flag(
        "--permission-mode", help="default | acceptEdits | plan | yolo (= bypassPermissions).", panel=P, fast="mode"
    )
    dangerously_skip_permissions: bool = _flag(
        "--dangerously-skip-permissions",
        default=False,
        help="Claude Code's switch for --permission-mode bypassPermissions (yolo): no tool call asks.",
        panel=P,
    )
    add_dir: list[str] | None = _flag(
        "--add-dir",
        metavar="DIR",
        help="Another directory acceptEdits may write in (repeatable).",
        panel=P,
        fast="multi",
        feeds="CliOptions.add_dirs",
    )
    plugin_dir: list[str] | None = _flag(
        "--plugin-dir",
        metavar="DIR",
        help="Load the Claude Code plugin in DIR for this run (repeatable).",
        panel=C,
        fast="multi",
        feeds="CliOptions.plugin_dirs",
    )
    allowed_tools: list[str] | None = _flag(
        "--allowed-tools",
        "--allowedTools",
        metavar="SPECS",
        help='Allow rules: "Read,Bash(git status),Edit(src/**)".',
        panel=P,
        fast="multi",
        feeds="CliOptions.allowed_tools",
    )
    disallowed_tools: list[str] | None = _flag(
        "--disallowed-tools",
        "--disallowedTools",
        metavar="SPECS",
        help="Deny rules (same syntax; they win over everything).",
        panel=P,
        fast="multi",
        feeds=("CliOptions.disallowed_tools", "HeadlessOptions.disallowed_tools"),
    )
    canusetool: bool = _flag(
        "--canusetool", default=False, help="Answer permission requests over stdin (headless).", panel=P, fast="flag"
    )
    max_turns: int | None = _flag(
        "--max-turns", metavar="N", min=1, help="Turn cap.", panel=L, fast="int1", feeds="CliOptions.max_turns"
    )
    max_output_tokens: int | None = _flag(
        "--max-output-tokens",
        metavar="N",
        min=1,
        help="Output token cap per turn.",
        panel=L,
        fast="int1",
        feeds="CliOptions.max_output_tokens",
    )
    max_retries: int | None = _flag(
        "--max-retries",
        metavar="N",
        min=0,
        help="Retries per model call (default 5).",
        panel=L,
        fast="int0",
        feeds="CliOptions.max_retries",
    )
    system_prompt: str | None = _flag(
        "--system-prompt",
        metavar="TEXT",
        help="Extra instructions for the model.",
        panel=M,
        fast="str",
        feeds="CliOptions.system_prompt",
    )
    system_prompt_file: str | None = _flag(
        "--system-prompt-file",
        metavar="PATH",
        help="Read the instructions from a file.",
        panel=M,
        fast="str",
        feeds="CliOptions.system_prompt_file",
    )
    partial: bool = _flag("--partial", default=False, help="Emit partial_assistant deltas.", panel=O, fast="flag")
    no_cache: bool = _flag(
        "--no-cache",
        default=False,
        help="Do not request prompt caching.",
        panel=M,
        fast="flag",
        feeds="CliOptions.no_cache",
    )
    pretty: bool = _flag(
        "--pretty",
        default=False,
        help="Indented JSON and a blank line.",
        panel=O,
        fast="flag",
        feeds="HeadlessOptions.pretty",
    )
    plain: bool = _flag(
        "--plain", default=False, help="Line-oriented chat instead of the full-screen app.", panel=O, fast="flag"
    )
    verbose: bool = _flag(
        "--verbose",
        "-v",
        default=False,
        help="Config sources and files on stderr.",
        panel=O,
        fast="flag",
        feeds="HeadlessOptions.verbose",
    )
    config: str | None = _flag(
        "--config",
        metavar="PATH",
        help="Project config file (default .skawld/config.json).",
        panel=C,
        fast="str",
        feeds="CliOptions.config",
    )
    no_user_config: bool = _flag(
        "--no-user-config", default=False, help="Ignore ~/.skawld/config.json.", panel=C, fast="flag"
    )
    accept_project_config: bool = _flag(
        "--accept-project-config",
        default=False,
        help="Trust this project's config file (remembered).",
        panel=C,
        fast="flag",
        feeds="CliOptions.accept_project_config",
    )
    sandbox: bool | None = _flag(
        "--sandbox/--no-sandbox",
        help="Require the Bash sandbox (bubblewrap), or turn it off (default: config, else auto).",
        panel=C,
        fast="flag",
    )
    # Claude Code's flags (skawld_tui.cli.claude_flags); docs/cli.md lists what each does here.
    session_id: str | None = _flag(
        "--session-id",
        metavar="ID",
        help="Start a new session with this id.",
        panel=S,
        fast="str",
        feeds=("ClaudeFlags.session_id", "HeadlessOptions.new_session_id"),
    )
    append_system_prompt: str | None = _flag(
        "--append-system-prompt",
        metavar="TEXT",
        help="Append to the system prompt.",
        panel=M,
        fast="str",
        feeds=("ClaudeFlags.append_system_prompt", "CliOptions.append_system_prompt"),
    )
    fallback_model: str | None = _flag(
        "--fallback-model", metavar="MODEL", hidden=True, feeds="ClaudeFlags.fallback_model"
    )
    mcp_config: list[str] | None = _flag(
        "--mcp-config",
        metavar="FILE|JSON",
        help='MCP servers: {"mcpServers": {...}}.',
        panel=C,
        feeds="ClaudeFlags.mcp_config",
    )
    strict_mcp_config: bool = _flag(
        "--strict-mcp-config",
        default=False,
        help="Only the --mcp-config servers.",
        panel=C,
        feeds="ClaudeFlags.strict_mcp_config",
    )
    claude_settings: str | None = _flag(
        "--settings",
        metavar="FILE|JSON",
        help="Claude Code settings (permissions, model).",
        panel=C,
        feeds="ClaudeFlags.settings",
    )
    setting_sources: str | None = _flag(
        "--setting-sources", metavar="LIST", hidden=True, feeds="ClaudeFlags.setting_sources"
    )
    include_partial_messages: bool = _flag(
        "--include-partial-messages",
        default=False,
        help="stream_event lines (stream-json).",
        panel=O,
        fast="flag",
        feeds="ClaudeFlags.include_partial_messages",
    )
    json_schema: str | None = _flag(
        "--json-schema",
        metavar="JSON",
        help="Validate the answer; structured_output.",
        panel=O,
        feeds="ClaudeFlags.json_schema",
    )
    max_budget_usd: float | None = _flag(
        "--max-budget-usd",
        metavar="USD",
        help="Stop when the run costs this much.",
        panel=L,
        feeds=("ClaudeFlags.max_budget_usd", "CliOptions.max_budget_usd"),
    )
    permission_prompt_tool: str | None = _flag(
        "--permission-prompt-tool",
        metavar="stdio",
        help="Ask the SDK host (control protocol).",
        panel=P,
        feeds="ClaudeFlags.permission_prompt_tool",
    )
    agents: str | None = _flag(
        "--agents",
        metavar="JSON",
        help='Subagents for this run: {"name": {"description": ..., "prompt": ..., "tools": [...], "model": ...}} '
        "(JSON or a JSON file).",
        panel=C,
        fast="str",
        feeds="ClaudeFlags.agents",
    )
    tools_opt: str | None = _flag(
        "--tools",
        metavar="LIST",
        help="Built-in tools to offer.",
        panel=P,
        fast="str",
        feeds=("ClaudeFlags.tools", "HeadlessOptions.tools"),
    )
    betas: list[str] | None = _flag("--betas", hidden=True, feeds="ClaudeFlags.betas")
    allow_dangerously_skip_permissions: bool = _flag(
        "--allow-dangerously-skip-permissions",
        default=False,
        hidden=True,
        help="Claude Code's switch that lets bypassPermissions be chosen later; accepted (skawld needs none).",
    )
    await_initialize: bool = _flag(
        "--await-initialize",
        default=False,
        hidden=True,
        help="Build the agent only after the host's initialize request (stream-json input).",
        feeds="HeadlessOptions.await_initialize",
    )
    no_session_persistence: bool = _flag(
        "--no-session-persistence",
        default=False,
        hidden=True,
        help="Claude Code's switch: write no Claude Code transcript copy (skawld's own store still keeps the session).",
        feeds="HeadlessOptions.no_session_persistence",
    )
    initialize_fields: str | None = _flag(
        "--initialize-fields",
        hidden=True,
        help="Claude Code's list of fields the host sends in initialize; accepted (skawld reads what initialize carries).",
    )
    max_thinking_tokens: int | None = _flag(
        "--max-thinking-tokens", hidden=True, feeds="ClaudeFlags.max_thinking_tokens"
    )
    effort: str | None = _flag("--effort", hidden=True, feeds="ClaudeFlags.effort")
    include_hook_events: bool = _flag(
        "--include-hook-events", default=False, hidden=True, feeds="ClaudeFlags.include_hook_events"
    )
    version: bool | None = _flag("--version", help="Print the version.", eager=True)

    # -- derived values ---------------------------------------------------------------

    @property
    def headless(self) -> bool:
        """``-p``, ``--json``, ``--output-format`` or a stream-json input: no app."""
        return (
            self.print_mode
            or self.json_out
            or self.output_format is not None
            or self.input_format is InputFormat.stream_json
        )

    @property
    def format(self) -> OutputFormat:
        """The output format (``--json`` is ``stream-json``)."""
        return OutputFormat.stream_json if self.json_out else (self.output_format or OutputFormat.text)

    @property
    def stream_input(self) -> bool:
        return self.input_format is InputFormat.stream_json


def flag_of(item: Field[Any]) -> Flag:
    """The `Flag` of one `CommandLine` field."""
    spec: Flag = item.metadata["flag"]
    return spec


def fed(line: CommandLine, target: str) -> dict[str, Any]:
    """The values `line` gives the option object `target` (``"CliOptions"``), by its field
    names: a choice as its string, a repeatable flag as a tuple (empty when absent)."""
    out: dict[str, Any] = {}
    for item in fields(CommandLine):
        for feed in flag_of(item).feeds:
            owner, _, name = feed.partition(".")
            if owner != target:
                continue
            value = getattr(line, item.name)
            if isinstance(value, Enum):
                value = value.value
            elif isinstance(value, list) or (value is None and _repeatable(item)):
                value = tuple(value or ())
            out[name] = value
    return out


def _repeatable(item: Field[Any]) -> bool:
    return str(item.type).startswith("list[")


def fast_options() -> dict[str, tuple[str, str]]:
    """Flag spelling → (field, kind) for the fast path: every spelling of each flag it
    parses (``--no-sandbox`` as kind ``off``)."""
    out: dict[str, tuple[str, str]] = {}
    for item in fields(CommandLine):
        spec = flag_of(item)
        if spec.fast is None:
            continue
        for decl in spec.decls:
            on, _, off = decl.partition("/")
            out[on] = (item.name, spec.fast)
            if off:
                out[off] = (item.name, "off")
    return out


def version_callback(value: bool) -> None:
    """``--version``: print it and stop."""
    if value:
        typer = sys.modules["typer"]  # the typer command is running, so typer is loaded
        from skawld_core import __version__  # lazy: the version is read from the package metadata

        typer.echo(f"skawld {__version__}")
        raise typer.Exit()
