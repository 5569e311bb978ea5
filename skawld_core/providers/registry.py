"""The providers a config file can name, by id: `ProviderEntry`, `register_provider`, `provider_entry`.

Each entry says where its class lives (imported only when the provider is made, so a
vendor SDK never loads for a provider that is not used), which environment variable
holds its API key, and the model used when none is configured. Adding a provider is
one module (a `BaseProvider`, usually a `WireProvider`) plus one `register_provider`
call, here for the built-in ones or in your own code for yours.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import AuthError, ConfigError
from .base import BaseProvider

__all__ = [
    "MissingApiKeyError",
    "ProviderEntry",
    "missing_key_message",
    "provider_entry",
    "provider_ids",
    "provider_options",
    "register_provider",
]


class MissingApiKeyError(AuthError):
    """No API key for the chosen provider; the message says what to set."""


@dataclass(frozen=True)
class ProviderEntry:
    """One provider a config file can name as ``provider.id``."""

    id: str
    target: str
    """``"package.module:ClassName"``, imported when the provider is made."""
    key_var: str
    """The environment variable read for the API key when none is configured."""
    default_model: str | None = None
    """The model used when none is configured (never for a custom ``baseURL``: skawld
    cannot guess what another server serves)."""
    takes_compat: bool = False
    """Whether the class takes ``compat`` (``provider.compat`` in config)."""

    def load(self) -> type[BaseProvider]:
        """The provider class (imports its module, and only that one)."""
        module, _, name = self.target.partition(":")
        cls: type[BaseProvider] = getattr(importlib.import_module(module), name)
        return cls


_PROVIDERS: dict[str, ProviderEntry] = {}


def register_provider(entry: ProviderEntry) -> None:
    """Make `entry` available as ``provider.id`` (an entry with the same id is replaced)."""
    _PROVIDERS[entry.id] = entry


def provider_ids() -> tuple[str, ...]:
    """The registered provider ids, in registration order."""
    return tuple(_PROVIDERS)


def provider_entry(provider_id: str) -> ProviderEntry:
    """The entry registered as `provider_id`; `ConfigError` naming the known ids if none is."""
    entry = _PROVIDERS.get(provider_id)
    if entry is None:
        raise ConfigError(f"Unknown provider {provider_id!r} (expected one of: {', '.join(_PROVIDERS)})")
    return entry


def missing_key_message(provider_id: str) -> str:
    """The first-run paragraph shown when no API key is available."""
    entry = _PROVIDERS.get(provider_id)
    var = entry.key_var if entry else "ANTHROPIC_API_KEY"
    return (
        f"skawld needs an API key for the {provider_id} provider, and {var} is not set. "
        f"Set it with `export {var}=...` (or put it in your shell profile) and run skawld again. "
        "To use another provider pass --provider openai-chat or --provider openai-responses "
        "with OPENAI_API_KEY set; to use a local OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio) "
        "no key is needed: pass --provider openai-chat --base-url http://localhost:11434/v1 --model <name>."
    )


_RESERVED_OPTIONS = frozenset({"api_key", "base_url", "retry_policy", "context_window_override"})


def provider_options(cls: type[BaseProvider], options: Mapping[str, Any]) -> dict[str, Any]:
    """``provider.options`` from config as constructor keywords (camelCase → snake_case).

    Raises `ConfigError` naming any key the provider does not take.
    """
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


register_provider(
    ProviderEntry(
        "anthropic", "skawld_core.providers.anthropic:AnthropicProvider", "ANTHROPIC_API_KEY", "claude-sonnet-4-6"
    )
)
register_provider(
    ProviderEntry(
        "openai-chat", "skawld_core.providers.openai_chat:OpenAIChatProvider", "OPENAI_API_KEY", "gpt-5", True
    )
)
register_provider(
    ProviderEntry(
        "openai-responses", "skawld_core.providers.openai_responses:OpenAIResponsesProvider", "OPENAI_API_KEY", "gpt-5"
    )
)
