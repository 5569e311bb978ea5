"""From config files and command-line overrides to `Settings`: everything an `Agent` is built from.

`resolve_settings` loads the config layers (`skawld_core.config`), applies a
`CliOptions` (the overrides a command line gives) and resolves paths, instruction files
and the session store; `skawld_core.from_config.build_agent` turns the result into an
`Agent`. Nothing heavy is imported here: a provider's SDK loads when the provider is
made, a store's driver when the store is made.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import ConfigSource, ConfigWarning, home_dir, load_config, merge_layers, user_config_dir
from .config_model import ConfigFile, HookCommand, HttpMcpServer, SessionStoreSection, StdioMcpServer
from .errors import ConfigError
from .instructions import MAX_INSTRUCTION_CHARS, find_repo_root, load_instructions
from .model_aliases import unresolved_alias_warning
from .permissions.claude_rules import parse_claude_rules
from .permissions.rules import PermissionRule
from .plugins.types import Plugin
from .pricing import PriceTable, parse_price_overrides
from .providers.registry import MissingApiKeyError, missing_key_message, provider_entry
from .sessions.registry import StoreConfig
from .sessions.registry import make_store as make_store_from
from .sessions.registry import store_label as store_label_of
from .sessions.store import SessionStore

if TYPE_CHECKING:
    from .subagents.definitions import AgentDefinition

__all__ = [
    "CliOptions",
    "Settings",
    "is_local_server",
    "make_store",
    "resolve_api_key",
    "resolve_settings",
    "store_config",
    "store_label",
    "tool_rules",
]


@dataclass(frozen=True)
class CliOptions:
    """The flags that shape configuration (None = not given on the command line)."""

    model: str | None = None
    provider: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    cwd: str | None = None
    permission_mode: str | None = None
    allowed_tools: Sequence[str] = ()
    disallowed_tools: Sequence[str] = ()
    max_turns: int | None = None
    max_output_tokens: int | None = None
    max_retries: int | None = None
    system_prompt: str | None = None
    system_prompt_file: str | None = None
    no_cache: bool = False
    config: str | None = None
    no_user_config: bool = False
    accept_project_config: bool = False
    add_dirs: Sequence[str] = ()
    plugin_dirs: Sequence[str] = ()
    sandbox: str | None = None
    append_system_prompt: str | None = None
    extra_config: Mapping[str, Any] | None = None
    strict_mcp_servers: Sequence[str] | None = None
    max_budget_usd: float | None = None
    agents: Sequence[AgentDefinition] = ()
    """Subagents given as data (``--agents``, `subagents.inline.parse_inline_agents`)."""


@dataclass
class Settings:
    """The merged config (`config`, typed) plus what resolving it against the machine gave:
    everything `skawld_core.from_config.build_agent` needs.

    Values that come straight from the config are read through it (`provider_id`,
    `max_retries`, …: `ConfigFile` holds their defaults). The fields are what the flags
    and the machine add: the working directory, the user-instructions block
    (`system_prompt`: config ``systemPrompt`` or ``systemPromptFile``, then the instruction
    files of `skawld_core.instructions`, with ``@`` imports; `instruction_files` lists
    them), the rules with ``--disallowed-tools`` first, and the trust gate's verdict.
    `model` and `permission_mode` start from the config and may change while skawld runs.
    """

    config: ConfigFile
    permission_mode: str
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    cwd: Path = field(default_factory=Path.cwd)
    permission_rules: list[PermissionRule] = field(default_factory=list)
    mcp_servers: dict[str, StdioMcpServer | HttpMcpServer] = field(default_factory=dict)
    system_prompt: str | None = None
    instruction_files: list[Path] = field(default_factory=list)
    no_cache: bool = False
    config_dirs: list[Path] = field(default_factory=list)
    store_path: Path | None = None
    project_config_path: Path | None = None
    sources: list[ConfigSource] = field(default_factory=list)
    warnings: list[ConfigWarning] = field(default_factory=list)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ), repr=False)
    # the project trust gate (`skawld_core.trust`): config dirs of an unaccepted
    # project load skills/agents without their tool grants and model overrides
    project_trusted: bool = False
    trust_extra: tuple[str, ...] = ()
    untrusted_config_dirs: list[Path] = field(default_factory=list)
    additional_directories: list[Path] = field(default_factory=list)
    max_budget_usd: float | None = None
    pricing: PriceTable = field(default_factory=PriceTable)
    shadowed: tuple[str, ...] = ()  # name clashes lost to skawld's own config (`skawld -v`)
    plugins: tuple[Plugin, ...] = ()  # Claude Code plugins (`skawld_core.plugins`)
    agents: tuple[AgentDefinition, ...] = ()  # subagents given as data (``--agents``); win over files

    # -- read through the config ---------------------------------------------------

    @property
    def provider_id(self) -> str:
        return self.config.provider_id

    @property
    def base_url(self) -> str | None:
        return self.config.base_url

    @property
    def provider_options(self) -> dict[str, Any]:
        """``provider.options``, with ``provider.headers`` merged into ``defaultHeaders``."""
        provider = self.config.provider
        options = dict(provider.options or {}) if provider else {}
        if provider and provider.headers:
            options["defaultHeaders"] = {**options.get("defaultHeaders", {}), **provider.headers}
        return options

    @property
    def provider_transport(self) -> str | None:
        return self.config.provider.transport if self.config.provider else None

    @property
    def provider_compat(self) -> str | None:
        return self.config.provider.compat if self.config.provider else None

    @property
    def provider_context_window(self) -> int | None:
        return self.config.provider.contextWindow if self.config.provider else None

    @property
    def max_turns(self) -> int | None:
        return self.config.max_turns

    @property
    def max_output_tokens(self) -> int | None:
        return self.config.max_output_tokens

    @property
    def max_retries(self) -> int:
        return self.config.max_retries

    @property
    def cache_ttl(self) -> str | None:
        return self.config.cacheTtl

    @property
    def hooks(self) -> dict[str, list[HookCommand]]:
        return self.config.hook_commands

    @property
    def store_kind(self) -> str:
        return self.config.session_store.kind

    @property
    def store_dsn(self) -> str | None:  # a secret: never logged
        return self.config.session_store.dsn

    @property
    def sandbox_mode(self) -> str:
        return self.config.sandbox_settings.mode

    @property
    def sandbox_network(self) -> bool:
        return self.config.sandbox_settings.network_enabled

    @property
    def sandbox_unix_sockets(self) -> bool:
        return self.config.sandbox_settings.allow_all_unix_sockets

    @property
    def env_passthrough(self) -> list[str]:
        return self.config.env_passthrough

    @property
    def sandbox(self) -> dict[str, Any]:
        """The sandbox settings as `Agent(sandbox=...)` takes them."""
        box: dict[str, Any] = {"mode": self.sandbox_mode, "network": self.sandbox_network}
        section = self.config.sandbox_settings
        allowed, denied = section.domains("allowedDomains"), section.domains("deniedDomains")
        if allowed:
            box["allowed_domains"] = allowed
        if denied:
            box["denied_domains"] = denied
        if section.gitHistory is not None:
            box["git_history"] = section.gitHistory
        return {**box, "allow_all_unix_sockets": True} if self.sandbox_unix_sockets else box


# -- --allowed-tools / --disallowed-tools ------------------------------------


def tool_rules(specs: Sequence[str], decision: str) -> list[dict[str, Any]]:
    """Turn Claude Code rule strings (`skawld_core.permissions.claude_rules`) into rule dicts.

    ``Read`` → a tool rule; ``Bash(git status)`` → exactly that command; ``Bash(npm:*)`` →
    a bash prefix rule; ``Edit(src/**)`` → a path rule; ``Skill(deploy)`` → a Skill rule
    with `arg`. Raises `ValueError` for a malformed spec (notes about rules skawld cannot
    apply become warnings in `resolve_settings`).
    """
    return parse_claude_rules(specs, decision).dicts()  # type: ignore[arg-type]


def _rule_notes(opts: CliOptions) -> list[str]:
    notes = parse_claude_rules(opts.allowed_tools, "allow").notes
    notes += parse_claude_rules(opts.disallowed_tools, "deny").notes
    return list(dict.fromkeys(notes))


# -- settings ----------------------------------------------------------------


def _overrides(opts: CliOptions) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    provider: dict[str, Any] = {}
    if opts.provider:
        provider["id"] = opts.provider
    if opts.base_url:
        provider["baseURL"] = opts.base_url
    if provider:
        doc["provider"] = provider
    if opts.model:
        doc["model"] = opts.model
    if opts.cwd:
        doc["cwd"] = opts.cwd
    if opts.permission_mode:
        doc["permissions"] = {"mode": opts.permission_mode}
    if opts.allowed_tools:
        doc.setdefault("permissions", {})["rules"] = tool_rules(opts.allowed_tools, "allow")
    limits = {
        k: v
        for k, v in (
            ("maxTurns", opts.max_turns),
            ("maxOutputTokens", opts.max_output_tokens),
            ("maxRetries", opts.max_retries),
        )
        if v is not None
    }
    if limits:
        doc["limits"] = limits
    if opts.system_prompt is not None:
        doc["systemPrompt"] = opts.system_prompt
    if opts.system_prompt_file:
        doc["systemPromptFile"] = opts.system_prompt_file
    if opts.add_dirs:  # --add-dir is relative to where skawld was started, not to --cwd
        doc["additionalDirectories"] = [str(Path(d).expanduser().resolve()) for d in opts.add_dirs]
    if opts.plugin_dirs:
        doc["pluginDirs"] = [str(Path(d).expanduser().resolve()) for d in opts.plugin_dirs]
    if opts.sandbox:
        doc["sandbox"] = {"mode": opts.sandbox}
    return doc


def _default_model(provider_id: str, base_url: str | None) -> str | None:
    if base_url and provider_id != "anthropic":
        return None
    return provider_entry(provider_id).default_model


def _read_text(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read {what} {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"Cannot read {what} {path}: not valid UTF-8 (byte {exc.start})") from None


def _system_prompt(
    prompt: str | None, prompt_file: str | None, cwd: Path, env: Mapping[str, str], *, trusted: bool
) -> tuple[str | None, list[Path], list[ConfigWarning]]:
    parts: list[str] = []
    files: list[Path] = []
    if prompt:
        parts.append(prompt.strip())
    elif prompt_file:
        parts.append(_read_text(Path(prompt_file), "system prompt file").strip())
        files.append(Path(prompt_file))
    instructions = load_instructions(find_repo_root(cwd), home=home_dir(env), cwd=cwd, allow_imports_outside=trusted)
    parts.append(instructions.prompt_text())
    files.extend(f.path for f in instructions.files if f.text.strip())
    warnings = [
        ConfigWarning(f"not importing {target}: {reason}", file=str(importer))
        for importer, target, reason in instructions.refused
    ]
    warnings += [
        ConfigWarning(
            f"instruction file {path} is {size:,} bytes; only its first {MAX_INSTRUCTION_CHARS:,} characters "
            "are sent to the model"
        )
        for path, size in instructions.truncated
    ]
    text = "\n\n".join(p for p in parts if p)
    return (text or None), files, warnings


def resolve_settings(opts: CliOptions, *, env: Mapping[str, str] | None = None) -> Settings:
    """Load the config layers, apply the flags, and resolve paths and instructions.

    Raises `ConfigError` (exit 3) for invalid config and `ValueError` for a bad
    ``--allowed-tools``/``--disallowed-tools`` spec (a usage error, exit 2).
    """
    environ = dict(os.environ if env is None else env)
    base = Path(opts.cwd).expanduser().resolve() if opts.cwd else Path.cwd()
    deny_rules = parse_claude_rules(opts.disallowed_tools, "deny").rules
    overrides = _overrides(opts)
    if opts.extra_config:  # --settings / --mcp-config, below the flags
        overrides = merge_layers(dict(opts.extra_config), overrides)
    loaded = load_config(
        cwd=base,
        env=environ,
        overrides=overrides,
        project_config_path=opts.config,
        ignore_user_config=opts.no_user_config,
        accept_project_config=opts.accept_project_config,
    )
    cfg = loaded.config
    cwd = (base / Path(cfg.cwd).expanduser()).resolve() if cfg.cwd else base
    if not cwd.is_dir():
        raise ConfigError(f"Working directory {cwd} does not exist")
    for added in cfg.additionalDirectories or []:
        if not Path(added).is_dir():
            raise ConfigError(f"Added directory {added} does not exist or is not a directory")
    system_prompt, files, instruction_warnings = _system_prompt(
        cfg.systemPrompt, cfg.systemPromptFile, cwd, environ, trusted=loaded.project_trusted
    )
    if opts.append_system_prompt and opts.append_system_prompt.strip():
        system_prompt = "\n\n".join(p for p in (system_prompt, opts.append_system_prompt.strip()) if p)
    mcp_servers = cfg.mcp_servers
    if opts.strict_mcp_servers is not None:  # --strict-mcp-config: only the --mcp-config servers
        mcp_servers = {k: v for k, v in mcp_servers.items() if k in opts.strict_mcp_servers}
    warnings = [*loaded.warnings, *instruction_warnings, *(ConfigWarning(note) for note in _rule_notes(opts))]
    config_dirs = _config_dirs(cwd, cfg, environ)
    user_dir = user_config_dir(environ).resolve()
    untrusted = (
        [] if loaded.project_trusted else [d for d in config_dirs if d != user_dir and (d == base or base in d.parents)]
    )
    provider = cfg.provider
    base_url = cfg.base_url
    model = cfg.model or _default_model(cfg.provider_id, base_url)
    alias_warning = unresolved_alias_warning(model, cfg.provider_id) if model else None
    if alias_warning:
        warnings.append(ConfigWarning(alias_warning))
    return Settings(
        config=cfg,
        permission_mode=cfg.permission_mode,
        model=model,
        api_key=opts.api_key or (provider.apiKey if provider else None),
        cwd=cwd,
        permission_rules=[*deny_rules, *cfg.permission_rules],
        mcp_servers=mcp_servers,
        system_prompt=system_prompt,
        instruction_files=files,
        no_cache=opts.no_cache,
        config_dirs=config_dirs,
        store_path=_store_path(cfg.session_store, cwd),
        project_config_path=loaded.project_path,
        sources=loaded.sources,
        warnings=warnings,
        env=environ,
        project_trusted=loaded.project_trusted,
        trust_extra=loaded.trust_extra,
        untrusted_config_dirs=untrusted,
        additional_directories=[Path(d) for d in cfg.additionalDirectories or []],
        max_budget_usd=opts.max_budget_usd,
        pricing=PriceTable(parse_price_overrides(loaded.raw.get("pricing")), local=is_local_server(base_url)),
        shadowed=loaded.shadowed,
        plugins=loaded.plugins,
        agents=tuple(opts.agents),
    )


def _store_path(store: SessionStoreSection, cwd: Path) -> Path | None:
    """The SQLite file, resolved against the working directory (None for other kinds)."""
    if store.kind != "sqlite":
        return None
    raw = store.databasePath
    return (cwd / Path(raw).expanduser()).resolve() if raw else cwd / ".skawld" / "sessions.db"


def _config_dirs(cwd: Path, cfg: ConfigFile, environ: Mapping[str, str]) -> list[Path]:
    """Where skills and agents are found: skawld's own folder first (it wins a name clash),
    then Claude Code's, then ``configDirs``, then the user's."""
    dirs = [
        cwd / ".skawld",
        cwd / ".claude",
        *(Path(d) for d in cfg.configDirs or []),
        user_config_dir(environ),
        home_dir(environ) / ".claude",
    ]
    return list(dict.fromkeys(d.resolve() for d in dirs))


# -- provider key, store --------------------------------------------------------


DEFAULT_BASE_URLS = ("https://api.anthropic.com", "https://api.openai.com")


def is_local_server(base_url: str | None) -> bool:
    """A non-default base URL (a local or self-hosted server): priced at zero."""
    return bool(base_url) and not str(base_url).rstrip("/").removesuffix("/v1").startswith(DEFAULT_BASE_URLS)


def resolve_api_key(settings: Settings) -> str:
    """The key to use, or `MissingApiKeyError`. A local OpenAI-compatible server needs none."""
    if settings.api_key:
        return settings.api_key
    key = settings.env.get(provider_entry(settings.provider_id).key_var)
    if key:
        return key
    if settings.base_url and settings.provider_id != "anthropic":
        return "sk-no-key-needed"
    raise MissingApiKeyError(missing_key_message(settings.provider_id))


def store_config(settings: Settings) -> StoreConfig:
    """The ``sessionStore`` part of `settings`, as `skawld_core.sessions.registry` takes it."""
    return StoreConfig(kind=settings.store_kind, path=settings.store_path, dsn=settings.store_dsn, cwd=settings.cwd)


def make_store(settings: Settings) -> SessionStore:
    """The session store the settings name (SQLite file, PostgreSQL, in-memory, or a registered kind)."""
    return make_store_from(store_config(settings))


def store_label(settings: Settings) -> str:
    """Where sessions are stored, safe to print (a DSN's password is redacted)."""
    return store_label_of(store_config(settings))
