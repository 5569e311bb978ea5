"""From config files and flags to a ready `Agent`: `Settings`, `resolve_settings`, `build_agent`.

Shared by the headless runner, the Textual app and the plain line mode, so all
three see the same configuration. Nothing heavy is imported at module import:
provider SDKs load in `make_provider`, the agent machinery in `build_agent`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skawld_core.config import ConfigSource, ConfigWarning, home_dir, load_config, user_config_dir
from skawld_core.errors import AuthError, ConfigError
from skawld_core.instructions import find_repo_root, load_instructions
from skawld_core.pricing import PriceTable, parse_price_overrides

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.plugins.types import Plugin
    from skawld_core.providers.base import BaseProvider
    from skawld_core.sessions.store import SessionStore

PROVIDER_KEY_VARS = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai-chat": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
}
DEFAULT_MODELS = {"anthropic": "claude-sonnet-4-6", "openai-chat": "gpt-5", "openai-responses": "gpt-5"}
"""The model used when none is configured. An OpenAI-compatible `baseURL` (vLLM,
Ollama) gets none: skawld cannot guess its models."""


class MissingApiKeyError(AuthError):
    """No API key for the chosen provider; the message says what to set (exit code 4)."""


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


@dataclass
class Settings:
    """Resolved configuration plus command-line overrides: everything `build_agent` needs.

    `system_prompt` is the full user-instructions block (config `systemPrompt` or
    `systemPromptFile`, then the instruction files of `skawld_core.instructions`:
    ``~/.skawld/AGENTS.md``, ``~/.claude/CLAUDE.md``, the project's ``AGENTS.md``,
    ``CLAUDE.md``, ``.claude/CLAUDE.md``, ``CLAUDE.local.md``, with ``@`` imports);
    `instruction_files` lists the files that went into it.
    """

    provider_id: str = "anthropic"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    provider_options: dict[str, Any] = field(default_factory=dict)
    cwd: Path = field(default_factory=Path.cwd)
    permission_mode: str = "default"
    permission_rules: list[dict[str, Any]] = field(default_factory=list)
    system_prompt: str | None = None
    instruction_files: list[Path] = field(default_factory=list)
    max_turns: int | None = None
    max_output_tokens: int | None = None
    max_retries: int = 5
    cache_ttl: str | None = None
    no_cache: bool = False
    config_dirs: list[Path] = field(default_factory=list)
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    hooks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    store_kind: str = "sqlite"
    store_path: Path | None = None
    store_dsn: str | None = field(default=None, repr=False)  # a secret: never logged
    project_config_path: Path | None = None
    sources: list[ConfigSource] = field(default_factory=list)
    warnings: list[ConfigWarning] = field(default_factory=list)
    env: Mapping[str, str] = field(default_factory=lambda: dict(os.environ), repr=False)
    # the project trust gate (`skawld_core.trust`): config dirs of an unaccepted
    # project load skills/agents without their tool grants and model overrides
    project_trusted: bool = False
    trust_extra: tuple[str, ...] = ()
    untrusted_config_dirs: list[Path] = field(default_factory=list)
    # declared in the schema, wired by their owners: sandbox, env passthrough,
    # added directories, a PostgreSQL store, provider transport/compat/context window
    sandbox_mode: str = "auto"
    sandbox_network: bool = False
    env_passthrough: list[str] = field(default_factory=list)
    additional_directories: list[Path] = field(default_factory=list)
    provider_transport: str | None = None
    provider_compat: str | None = None
    provider_context_window: int | None = None

    max_budget_usd: float | None = None
    pricing: PriceTable = field(default_factory=PriceTable)
    shadowed: tuple[str, ...] = ()  # name clashes lost to skawld's own config (`skawld -v`)
    plugins: tuple[Plugin, ...] = ()  # Claude Code plugins (`skawld_core.plugins`)

    @property
    def sandbox(self) -> dict[str, Any]:
        """The sandbox settings as `Agent(sandbox=...)` takes them."""
        return {"mode": self.sandbox_mode, "network": self.sandbox_network}


# -- --allowed-tools / --disallowed-tools ------------------------------------


def tool_rules(specs: Sequence[str], decision: str) -> list[dict[str, Any]]:
    """Turn Claude Code rule strings (`skawld_core.permissions.claude_rules`) into rule dicts.

    ``Read`` → a tool rule; ``Bash(git status)`` → exactly that command; ``Bash(npm:*)`` →
    a bash prefix rule; ``Edit(src/**)`` → a path rule; ``Skill(deploy)`` → a Skill rule
    with `arg`. Raises `ValueError` for a malformed spec (notes about rules skawld cannot
    apply become warnings in `resolve_settings`).
    """
    from skawld_core.permissions.claude_rules import parse_claude_rules

    return parse_claude_rules(specs, decision).dicts()  # type: ignore[arg-type]


def _rule_notes(opts: CliOptions) -> list[str]:
    from skawld_core.permissions.claude_rules import parse_claude_rules

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
    return DEFAULT_MODELS.get(provider_id)


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
    text = "\n\n".join(p for p in parts if p)
    return (text or None), files, warnings


def resolve_settings(opts: CliOptions, *, env: Mapping[str, str] | None = None) -> Settings:
    """Load the config layers, apply the flags, and resolve paths and instructions.

    Raises `ConfigError` (exit 3) for invalid config and `ValueError` for a bad
    ``--allowed-tools``/``--disallowed-tools`` spec (a usage error, exit 2).
    """
    environ = dict(os.environ if env is None else env)
    base = Path(opts.cwd).expanduser().resolve() if opts.cwd else Path.cwd()
    deny_rules = tool_rules(opts.disallowed_tools, "deny")
    overrides = _overrides(opts)
    if opts.extra_config:  # --settings / --mcp-config, below the flags
        from skawld_core.config import _merge

        overrides = _merge(dict(opts.extra_config), overrides)
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
    for added in cfg.additional_directories:
        if not Path(added).is_dir():
            raise ConfigError(f"Added directory {added} does not exist or is not a directory")
    system_prompt, files, instruction_warnings = _system_prompt(
        cfg.system_prompt, cfg.system_prompt_file, cwd, environ, trusted=loaded.project_trusted
    )
    if opts.append_system_prompt and opts.append_system_prompt.strip():
        system_prompt = "\n\n".join(p for p in (system_prompt, opts.append_system_prompt.strip()) if p)
    mcp_servers = cfg.mcp_servers
    if opts.strict_mcp_servers is not None:  # --strict-mcp-config: only the --mcp-config servers
        mcp_servers = {k: v for k, v in mcp_servers.items() if k in opts.strict_mcp_servers}
    warnings = [*loaded.warnings, *instruction_warnings, *(ConfigWarning(note) for note in _rule_notes(opts))]
    store_path: Path | None = None
    if cfg.session_store.kind == "sqlite":
        raw_path = cfg.session_store.database_path
        store_path = (cwd / Path(raw_path).expanduser()).resolve() if raw_path else cwd / ".skawld" / "sessions.db"
    # Skills and agents: skawld's own folder first (it wins a name clash), then Claude Code's.
    dirs = [
        cwd / ".skawld",
        cwd / ".claude",
        *(Path(d) for d in cfg.config_dirs),
        user_config_dir(environ),
        home_dir(environ) / ".claude",
    ]
    config_dirs = list(dict.fromkeys(d.resolve() for d in dirs))
    user_dir = user_config_dir(environ).resolve()
    untrusted = (
        [] if loaded.project_trusted else [d for d in config_dirs if d != user_dir and (d == base or base in d.parents)]
    )
    options = dict(cfg.provider.options)
    if cfg.provider.headers:
        options["defaultHeaders"] = {**options.get("defaultHeaders", {}), **cfg.provider.headers}
    return Settings(
        provider_id=cfg.provider.id,
        model=cfg.model or _default_model(cfg.provider.id, cfg.provider.base_url),
        base_url=cfg.provider.base_url,
        api_key=opts.api_key or cfg.provider.api_key,
        provider_options=options,
        cwd=cwd,
        permission_mode=cfg.permission_mode,
        permission_rules=[*deny_rules, *cfg.permission_rules],
        system_prompt=system_prompt,
        instruction_files=files,
        max_turns=cfg.max_turns,
        max_output_tokens=cfg.max_output_tokens,
        max_retries=cfg.max_retries,
        cache_ttl=cfg.cache_ttl,
        no_cache=opts.no_cache,
        config_dirs=config_dirs,
        mcp_servers=mcp_servers,
        hooks=cfg.hooks,
        store_kind=cfg.session_store.kind,
        store_path=store_path,
        store_dsn=cfg.session_store.dsn,
        project_config_path=loaded.project_path,
        sources=loaded.sources,
        warnings=warnings,
        env=environ,
        project_trusted=loaded.project_trusted,
        trust_extra=loaded.trust_extra,
        untrusted_config_dirs=untrusted,
        sandbox_mode=cfg.sandbox.mode,
        sandbox_network=cfg.sandbox.network,
        env_passthrough=list(cfg.env_passthrough),
        additional_directories=[Path(d) for d in cfg.additional_directories],
        provider_transport=cfg.provider.transport,
        provider_compat=cfg.provider.compat,
        provider_context_window=cfg.provider.context_window,
        max_budget_usd=opts.max_budget_usd,
        pricing=PriceTable(
            parse_price_overrides(loaded.raw.get("pricing")), local=is_local_server(cfg.provider.base_url)
        ),
        shadowed=loaded.shadowed,
        plugins=loaded.plugins,
    )


# -- provider, store, agent --------------------------------------------------


DEFAULT_BASE_URLS = ("https://api.anthropic.com", "https://api.openai.com")


def is_local_server(base_url: str | None) -> bool:
    """A non-default base URL (a local or self-hosted server): priced at zero."""
    return bool(base_url) and not str(base_url).rstrip("/").removesuffix("/v1").startswith(DEFAULT_BASE_URLS)


def missing_key_message(provider_id: str) -> str:
    """The first-run paragraph shown when no API key is available."""
    var = PROVIDER_KEY_VARS.get(provider_id, "ANTHROPIC_API_KEY")
    return (
        f"skawld needs an API key for the {provider_id} provider, and {var} is not set. "
        f"Set it with `export {var}=...` (or put it in your shell profile) and run skawld again. "
        "To use another provider pass --provider openai-chat or --provider openai-responses "
        "with OPENAI_API_KEY set; to use a local OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio) "
        "no key is needed: pass --provider openai-chat --base-url http://localhost:11434/v1 --model <name>."
    )


def resolve_api_key(settings: Settings) -> str:
    """The key to use, or `MissingApiKeyError`. A local OpenAI-compatible server needs none."""
    if settings.api_key:
        return settings.api_key
    var = PROVIDER_KEY_VARS.get(settings.provider_id, "ANTHROPIC_API_KEY")
    key = settings.env.get(var)
    if key:
        return key
    if settings.base_url and settings.provider_id != "anthropic":
        return "sk-no-key-needed"
    raise MissingApiKeyError(missing_key_message(settings.provider_id))


_RESERVED_OPTIONS = frozenset({"api_key", "base_url", "retry_policy", "context_window_override"})


def provider_options(cls: type[BaseProvider], options: Mapping[str, Any]) -> dict[str, Any]:
    """``provider.options`` from config as constructor keywords (camelCase → snake_case).

    Raises `ConfigError` naming any key the provider does not take.
    """
    import inspect

    accepted = set(inspect.signature(cls.__init__).parameters) - _RESERVED_OPTIONS - {"self"}
    out: dict[str, Any] = {}
    for key, value in options.items():
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()
        if name not in accepted:
            raise ConfigError(
                f"provider.options.{key} is not an option of {cls.__name__} (expected one of: {', '.join(sorted(accepted))})"
            )
        out[name] = value
    return out


def make_provider(settings: Settings) -> BaseProvider:
    """The configured provider (imports only that provider's SDK adapter)."""
    key = resolve_api_key(settings)
    cls: type[BaseProvider]
    if settings.provider_id == "anthropic":
        from skawld_core.providers.anthropic import AnthropicProvider as cls
    elif settings.provider_id == "openai-chat":
        from skawld_core.providers.openai_chat import OpenAIChatProvider as cls
    elif settings.provider_id == "openai-responses":
        from skawld_core.providers.openai_responses import OpenAIResponsesProvider as cls
    else:
        raise ConfigError(f"Unknown provider {settings.provider_id!r}")
    options = provider_options(cls, settings.provider_options)
    if settings.provider_transport:
        options.setdefault("transport", settings.provider_transport)
    if settings.provider_compat and settings.provider_id == "openai-chat":
        options.setdefault("compat", settings.provider_compat)
    provider: BaseProvider = cls(api_key=key, base_url=settings.base_url, **options)  # type: ignore[call-arg]
    from .local_models import configure_windows

    configure_windows(provider, settings, key)
    if settings.no_cache:
        from .no_cache import NoCacheProvider

        provider = NoCacheProvider(provider)
    return provider


def store_label(settings: Settings) -> str:
    """Where sessions are stored, safe to print (a DSN's password is redacted)."""
    if settings.store_kind == "postgres":
        from skawld_core.sessions.dsn import redact_dsn

        return f"PostgreSQL {redact_dsn(settings.store_dsn or '')}"
    return str(settings.store_path) if settings.store_path else "(memory)"


def make_store(settings: Settings) -> SessionStore:
    """The session store the settings name (SQLite file, PostgreSQL, or in-memory)."""
    if settings.store_kind == "postgres" and not settings.store_dsn:
        raise ConfigError(
            "Invalid config (/sessionStore/dsn): required for a PostgreSQL store "
            "(postgresql://user@host/db); set sessionStore.dsn or SKAWLD_DATABASE_URL"
        )
    if settings.store_kind == "postgres":
        from skawld_core.sessions.postgres import PostgresSessionStore

        return PostgresSessionStore(settings.store_dsn or "")
    if settings.store_kind == "memory":
        from skawld_core.sessions.memory import InMemorySessionStore

        return InMemorySessionStore()
    from skawld_core.sessions.sqlite import SqliteSessionStore

    return SqliteSessionStore(settings.store_path, cwd=settings.cwd)


def build_agent(
    settings: Settings,
    *,
    can_use_tool: Any = None,
    ask_user: Any = None,
    include_partial_messages: bool = False,
    provider: BaseProvider | None = None,
    extra_hooks: Mapping[str, list[Any]] | None = None,
    extra_tools: Sequence[Any] = (),
) -> Agent:
    """An `Agent` configured from `settings` (raises `ConfigError` without a model)."""
    if not settings.model:
        raise ConfigError(
            "No model configured: pass --model (e.g. --model claude-sonnet-4-6), set SKAWLD_MODEL, "
            'or add "model" to ~/.skawld/config.json (`skawld models` lists what a server serves)'
        )
    from skawld_core.agent import Agent
    from skawld_core.tools import default_tools

    from .transcript_model import use_price_table

    if settings.sandbox_mode != "off":  # the first event reports it; bwrap starts meanwhile
        from skawld_core.sandbox.probe import probe_in_background

        probe_in_background()

    use_price_table(settings.pricing)
    hooks = None
    if settings.hooks:
        from .command_hooks import command_hooks

        hooks = command_hooks(settings.hooks, settings.env_passthrough)
    if extra_hooks:
        hooks = dict(hooks or {})
        for event, entries in extra_hooks.items():
            hooks[event] = [*hooks.get(event, []), *entries]
    model_provider = provider or make_provider(settings)
    warm_in_background(model_provider)
    agent = Agent(
        provider=model_provider,
        model=settings.model,
        tools=[*default_tools(background_shells=True, web_fetch=True, notebook_edit=True), *(extra_tools or ())],
        permission_mode=settings.permission_mode,  # type: ignore[arg-type]
        permission_rules=settings.permission_rules,
        can_use_tool=can_use_tool,
        session_store=make_store(settings),
        cwd=settings.cwd,
        system_prompt=settings.system_prompt,
        max_retries=settings.max_retries,
        max_output_tokens=settings.max_output_tokens,
        include_partial_messages=include_partial_messages,
        max_turns=settings.max_turns,
        cache_ttl=settings.cache_ttl,  # type: ignore[arg-type]
        config_dir=list(settings.config_dirs),
        mcp_servers=settings.mcp_servers or None,
        hooks=hooks,
        ask_user=ask_user,
        mcp_fail_fast=False,
        instruction_files=settings.instruction_files,
        nested_instructions=True,
        untrusted_config_dirs=settings.untrusted_config_dirs,
        plugins=settings.plugins,
        additional_directories=settings.additional_directories,
        sandbox=settings.sandbox,
        env_passthrough=settings.env_passthrough,
        max_budget_usd=settings.max_budget_usd,
        pricing=settings.pricing,
        record_usage=True,
        checkpoints=checkpoint_engine(settings),
    )
    from . import startup_gc

    startup_gc.resume()  # start-up is over: the collector comes back for the run
    return agent


_warming: set[Any] = set()


def warm_in_background(provider: BaseProvider) -> None:
    """On a running event loop, let the provider build its client and open its connection
    while the agent and the session are set up (`BaseProvider.warm`; it never raises)."""
    import asyncio

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(provider.warm(), name="skawld-provider-warm")
    _warming.add(task)
    task.add_done_callback(_warming.discard)


def checkpoint_engine(settings: Settings) -> Any:
    """The checkpoint engine for the project (``SKAWLD_CHECKPOINTS=0`` turns it off)."""
    if settings.env.get("SKAWLD_CHECKPOINTS", "").strip().lower() in ("0", "false", "off", "no"):
        return None
    from skawld_core.checkpoints import CheckpointEngine

    return CheckpointEngine(settings.cwd, env=settings.env)


def session_meta(settings: Settings, prompt: str | None = None) -> dict[str, Any]:
    """Meta stored with a new session: its working directory and a title."""
    meta: dict[str, Any] = {"cwd": str(settings.cwd)}
    if prompt:
        first = prompt.strip().splitlines()[0] if prompt.strip() else ""
        meta["title"] = first[:80]
    return meta
