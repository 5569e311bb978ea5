"""Claude Code's model aliases (`sonnet`, `opus`, `haiku`, `fable`, `best`, `opusplan`, `…[1m]`).

A file or flag written for Claude Code names a model by alias. On the Anthropic
provider an alias becomes the model id Claude Code's docs give for the Anthropic
API (mid-2026: opus → Opus 4.8, sonnet → Sonnet 4.6, haiku → Haiku 4.5, fable and
best → Fable 5); Claude Code's `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU,FABLE}_MODEL`
variables pin them. `opusplan` is opus in plan mode and sonnet otherwise. A `[1m]`
suffix asks for the 1M-token window: the models named here have it natively, so
the suffix is dropped (no 1M beta header is sent). Other providers serve other
names, so there an alias is not resolved.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ANTHROPIC_ALIAS_MODELS", "api_model", "is_claude_alias", "unresolved_alias_warning"]

ANTHROPIC_ALIAS_MODELS: Mapping[str, str] = {
    "opus": "claude-opus-4-8",
    "sonnet": "claude-sonnet-4-6",
    "haiku": "claude-haiku-4-5",
    "fable": "claude-fable-5",
}
_ENV = {family: f"ANTHROPIC_DEFAULT_{family.upper()}_MODEL" for family in ANTHROPIC_ALIAS_MODELS}
_SAME_AS = {"best": "fable"}
_ONE_MILLION = "[1m]"


def _family(name: str) -> str:
    return name.strip().lower().removesuffix(_ONE_MILLION)


def is_claude_alias(name: str) -> bool:
    """True for a Claude Code alias (`Sonnet`, `opus[1m]`, `opusplan`, `best`…)."""
    family = _family(name)
    return family in ANTHROPIC_ALIAS_MODELS or family in _SAME_AS or family == "opusplan"


def api_model(name: str, *, anthropic: bool, env: Mapping[str, str], plan_mode: bool = False) -> str:
    """The model id to send for `name`: an alias resolved on the Anthropic provider
    (and a `[1m]` suffix dropped there); every name unchanged on other providers."""
    if not anthropic:
        return name
    family = _family(name)
    if family == "opusplan":
        family = "opus" if plan_mode else "sonnet"
    family = _SAME_AS.get(family, family)
    if family in ANTHROPIC_ALIAS_MODELS:
        return env.get(_ENV[family], "").strip() or ANTHROPIC_ALIAS_MODELS[family]
    return name.strip().removesuffix(_ONE_MILLION)


def unresolved_alias_warning(name: str, provider_id: str) -> str | None:
    """The warning for a Claude Code alias chosen on a provider that does not know it."""
    if provider_id == "anthropic" or not is_claude_alias(name):
        return None
    return (
        f"model {name!r} is a Claude Code alias, resolved only for the anthropic provider; "
        f"the {provider_id} provider gets it as written"
    )
