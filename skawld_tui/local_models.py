"""OpenAI-compatible and local servers in the product: ``skawld models``, a default model,
and context windows from the server.

- ``skawld models [--provider ID] [--base-url URL] [--json]``: what the configured server
  serves (``GET /v1/models``), one model per line with its context window when known.
- `default_model`: with an OpenAI-compatible ``baseURL`` and no model configured, the
  server's only model is used (several: the error lists them).
- context windows: `skawld_core.from_config.configure_windows`.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from skawld_core.errors import ConfigError
from skawld_core.providers.registry import provider_entry

if TYPE_CHECKING:
    from skawld_core.settings import Settings

OPENAI_DEFAULT_BASE = "https://api.openai.com/v1"

UNKNOWN_WINDOW = 'context window unknown (the server does not say; set "provider": {"contextWindow": N} in config.json)'


def _base_url(settings: Settings) -> str:
    """The API root that ``/models`` is under (Anthropic's base URL has no ``/v1``)."""
    if settings.provider_id == "anthropic":
        root = settings.base_url or settings.env.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com"
        return root.rstrip("/") + "/v1"
    return settings.base_url or settings.env.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE


def _key(settings: Settings) -> str | None:
    return settings.api_key or settings.env.get(provider_entry(settings.provider_id).key_var) or None


def server_models(settings: Settings) -> list[str]:
    """The ids the provider's server lists at ``/models`` (raises `ProviderError` when it cannot)."""
    from skawld_core.providers.discovery import list_models

    headers = {"anthropic-version": "2023-06-01"} if settings.provider_id == "anthropic" else None
    return [m.id for m in list_models(_base_url(settings), _key(settings), headers=headers)]


def model_choices(settings: Settings) -> tuple[list[str], str | None]:
    """The models `/model` offers, or none and why, in words (never a raw `HTTP Error 404`)."""
    url = _base_url(settings).rstrip("/") + "/models"
    try:
        names = server_models(settings)
    except Exception as exc:
        return [], _list_problem(url, exc.__cause__ or exc)
    if not names:
        return [], f"{url} lists no models; name one with `/model NAME`."
    return names, None


def _list_problem(url: str, cause: BaseException) -> str:
    import urllib.error  # lazy: only when a model list failed

    if isinstance(cause, urllib.error.HTTPError):
        if cause.code == 404:
            return f"This server has no model list ({url} answers 404); name a model with `/model NAME`."
        return (
            f"The model list at {url} was refused (HTTP {cause.code} {cause.reason}); name a model with `/model NAME`."
        )
    if isinstance(cause, urllib.error.URLError):
        return f"Cannot reach {url} ({cause.reason}); name a model with `/model NAME`."
    return f"The model list at {url} is not available ({cause}); name a model with `/model NAME`."


def default_model(settings: Settings) -> str | None:
    """The server's only model, for a compatible ``baseURL`` with no model configured."""
    if not settings.base_url or settings.provider_id == "anthropic":
        return None
    from skawld_core.providers.discovery import list_models

    try:
        models = list_models(settings.base_url, _key(settings))
    except Exception:
        return None
    if len(models) == 1:
        return models[0].id
    if models:
        names = ", ".join(m.id for m in models[:20])
        raise ConfigError(f"{settings.base_url} serves {len(models)} models; pick one with --model ({names})")
    return None


def run_models(args: list[str]) -> int:
    """``skawld models``: list the configured server's models; returns the exit code."""
    import argparse

    from skawld_core.settings import CliOptions, resolve_settings

    parser = argparse.ArgumentParser(prog="skawld models", description="List the models a server serves.")
    parser.add_argument("--provider", choices=("anthropic", "openai-chat", "openai-responses"))
    parser.add_argument("--base-url")
    parser.add_argument("--json", action="store_true", help="one JSON object per model")
    ns = parser.parse_args(args)
    try:
        settings = resolve_settings(CliOptions(provider=ns.provider, base_url=ns.base_url))
    except ConfigError as exc:
        sys.stderr.write(f"skawld: {exc}\n")
        return 3
    from skawld_core.providers.discovery import discover

    base = _base_url(settings)
    headers = None
    if settings.provider_id == "anthropic":
        from skawld_core.providers.http_transport import ANTHROPIC_API_VERSION

        headers = {"anthropic-version": ANTHROPIC_API_VERSION}
    try:
        models = discover(base, _key(settings), headers=headers)
    except Exception as exc:
        sys.stderr.write(f"skawld: {exc}\n")
        return 1
    for m in models:
        if ns.json:
            sys.stdout.write(
                json.dumps({"id": m.id, "owned_by": m.owned_by, "context_window": m.context_window}) + "\n"
            )
        else:
            window = f"{m.context_window} tokens" if m.context_window else UNKNOWN_WINDOW
            sys.stdout.write(f"{m.id}\t{window}\n")
    return 0
