"""An `Agent` from config files, the way the ``skawld`` command builds one: `agent_from_config`.

    agent = agent_from_config("path/to/project")            # ~/.skawld, the project's .skawld, env
    agent = agent_from_config(options=CliOptions(model="claude-haiku-4-5", permission_mode="plan"))

`resolve_settings` (`skawld_core.settings`) reads the config layers; `make_provider`
and `build_agent` here turn the result into a provider and an `Agent` through the
provider and store registries (`providers.registry`, `sessions.registry`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .agent import Agent
from .checkpoints import CheckpointEngine
from .errors import ConfigError
from .hooks.commands import command_hooks
from .permissions import PermissionEngine
from .permissions.sandbox_spec import read_denied_paths
from .providers.base import BaseProvider
from .providers.discovery import discover_in_background
from .providers.no_cache import NoCacheProvider
from .providers.registry import provider_entry, provider_options
from .providers.wire import WireProvider
from .sandbox.probe import probe_in_background
from .settings import CliOptions, Settings, make_store, resolve_api_key, resolve_settings
from .tools import default_tools

__all__ = ["agent_from_config", "build_agent", "checkpoint_engine", "make_provider"]


def make_provider(settings: Settings) -> BaseProvider:
    """The configured provider (imports only that provider's module and SDK adapter)."""
    key = resolve_api_key(settings)
    entry = provider_entry(settings.provider_id)
    cls = entry.load()
    options = provider_options(cls, settings.provider_options)
    if settings.provider_transport:
        options.setdefault("transport", settings.provider_transport)
    if settings.provider_compat and entry.takes_compat:
        options.setdefault("compat", settings.provider_compat)
    provider: BaseProvider = cls(api_key=key, base_url=settings.base_url, **options)  # type: ignore[call-arg]
    configure_windows(provider, settings, key)
    if settings.no_cache:
        provider = NoCacheProvider(provider)
    return provider


def configure_windows(provider: BaseProvider, settings: Settings, key: str) -> None:
    """Apply ``provider.contextWindow``, or start discovering windows for a compatible server."""
    inner = getattr(provider, "inner", provider)
    if not isinstance(inner, WireProvider):
        return
    if settings.provider_context_window:
        inner.configured_context_window = settings.provider_context_window
        return
    if settings.base_url and settings.provider_id != "anthropic":
        discover_in_background(settings.base_url, key, inner.discovered_windows)


def checkpoint_engine(settings: Settings) -> CheckpointEngine | None:
    """The checkpoint engine for the project (``SKAWLD_CHECKPOINTS=0`` turns it off)."""
    if settings.env.get("SKAWLD_CHECKPOINTS", "").strip().lower() in ("0", "false", "off", "no"):
        return None
    return project_checkpoints(settings)


def project_checkpoints(settings: Settings) -> CheckpointEngine:
    """A checkpoint engine for the project that never stores what the config's Read deny
    rules cover (the Agent sets the same exclusion from its own engine)."""
    rules = PermissionEngine(rules=settings.permission_rules, project_root=settings.cwd)
    return CheckpointEngine(settings.cwd, env=settings.env, exclude=lambda: read_denied_paths(rules))


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
    """An `Agent` configured from `settings` (raises `ConfigError` without a model).

    The provider (unless given) and the session store come from the registries; the
    config's shell-command hooks run before `extra_hooks`; the built-in tools (with
    background shells, WebFetch and NotebookEdit) before `extra_tools`.
    """
    if not settings.model:
        raise ConfigError(
            "No model configured: pass --model (e.g. --model claude-sonnet-4-6), set SKAWLD_MODEL, "
            'or add "model" to ~/.skawld/config.json (`skawld models` lists what a server serves)'
        )
    if settings.sandbox_mode != "off":  # the first event reports it; bwrap starts meanwhile
        probe_in_background()
    hooks = command_hooks(settings.hooks, settings.env_passthrough) if settings.hooks else None
    if extra_hooks:
        hooks = dict(hooks or {})
        for event, entries in extra_hooks.items():
            hooks[event] = [*hooks.get(event, []), *entries]
    model_provider = provider or make_provider(settings)
    warm_in_background(model_provider)
    return Agent(
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
        mcp_servers={name: server.model_dump(exclude_none=True) for name, server in settings.mcp_servers.items()}
        or None,
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
        agents=settings.agents,
    )


def agent_from_config(
    cwd: str | Path | None = None,
    *,
    options: CliOptions | None = None,
    env: Mapping[str, str] | None = None,
    **agent_options: Any,
) -> Agent:
    """An `Agent` built from the config files the ``skawld`` command reads for `cwd`.

    The layers are, lowest first: ``~/.skawld/config.json``, the project's
    ``.skawld/config.json`` (when the project is trusted), ``SKAWLD_*`` variables of
    `env` (default: the process environment), then `options` (what a command line
    would give). `agent_options` go to `build_agent` (``can_use_tool``, ``ask_user``,
    ``provider``, ``extra_hooks``, ``extra_tools``, ``include_partial_messages``).
    Raises `ConfigError` for invalid config and `MissingApiKeyError` without a key.
    """
    opts = options or CliOptions()
    if cwd is not None:
        opts = CliOptions(**{**vars(opts), "cwd": str(cwd)})
    return build_agent(resolve_settings(opts, env=env), **agent_options)


_warming: set[asyncio.Task[None]] = set()


def warm_in_background(provider: BaseProvider) -> None:
    """On a running event loop, let the provider build its client and open its connection
    while the agent and the session are set up (`BaseProvider.warm`; it never raises)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    task = loop.create_task(provider.warm(), name="skawld-provider-warm")
    _warming.add(task)
    task.add_done_callback(_warming.discard)
