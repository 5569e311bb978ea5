"""Claude Code's model aliases (`sonnet`, `opus`, `haiku`, `fable`, `best`, `opusplan`, `…[1m]`).

A file or flag written for Claude Code names a model by alias. On the Anthropic
provider an alias becomes the model Claude Code resolves it to on the Anthropic API:
the newest of its family (Claude Code's model-config page: "The opus, sonnet, and haiku
aliases resolve to the newest version on the Anthropic API", and fable "to Fable 5.2"),
whose ids are those of Anthropic's models overview (autumn 2026: Opus 5.5, Sonnet 5.5,
Haiku 5.5, Fable 5.2). `best` is Fable where the organization has it, which skawld cannot
know, so it is Fable. Claude Code's `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU,FABLE}_MODEL`
variables pin them. `opusplan` is opus in plan mode and sonnet otherwise. A `[1m]`
suffix asks for the 1M-token window: the models named here have it natively, so
the suffix is dropped (no 1M beta header is sent). Other providers serve other
names, so there an alias is not resolved. The table moves when Anthropic ships a new
model; the variables are the way to follow it before skawld does.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["ANTHROPIC_ALIAS_MODELS", "api_model", "is_claude_alias", "unresolved_alias_warning"]

ANTHROPIC_ALIAS_MODELS: Mapping[str, str] = {
    "opus": "claude-opus-5-5",
    "sonnet": "claude-sonnet-5-5",
    "haiku": "claude-haiku-5-5",
    "fable": "claude-fable-5-2",
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
