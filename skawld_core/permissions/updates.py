"""Claude Code's ``updatedPermissions`` (in a ``can_use_tool`` answer), read in one place.

    [{"type": "addRules", "behavior": "allow", "destination": "localSettings",
      "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}]},
     {"type": "setMode", "mode": "acceptEdits"}]

`parse_permission_updates` turns the list into typed items, in order: a `RuleUpdate` per
rule (as a Claude Code rule string), a `ModeUpdate`, or an `UnsupportedUpdate` naming a
type skawld does not apply. Entries that are not objects, and rules without a
``toolName``, are skipped. The engine reads the mode from it (`PermissionAllow.set_mode`);
the Claude Code control protocol applies the rules to the running agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ModeUpdate",
    "PermissionUpdate",
    "RuleUpdate",
    "UnsupportedUpdate",
    "parse_permission_updates",
    "requested_mode",
]


@dataclass(frozen=True)
class RuleUpdate:
    """One rule of an ``addRules`` update: ``Bash(npm test:*)`` with its behavior."""

    spec: str
    behavior: Literal["allow", "deny", "ask"]
    destination: str | None = None
    """Where the host wants it kept (``session``, ``localSettings``, …)."""

    @property
    def remember(self) -> bool:
        """An allow rule for ``localSettings``: saved for later sessions too."""
        return self.destination == "localSettings" and self.behavior == "allow"


@dataclass(frozen=True)
class ModeUpdate:
    """A ``setMode`` update; `mode` is as sent (Claude Code's name, not yet checked)."""

    mode: object


@dataclass(frozen=True)
class UnsupportedUpdate:
    """An update of a type (or shape) skawld does not apply."""

    kind: object


PermissionUpdate = RuleUpdate | ModeUpdate | UnsupportedUpdate


def parse_permission_updates(updates: object) -> list[PermissionUpdate]:
    """The updates of an ``updatedPermissions`` value, in order (none unless it is a list)."""
    if not isinstance(updates, list):
        return []
    out: list[PermissionUpdate] = []
    for update in updates:
        if not isinstance(update, Mapping):
            continue
        kind = update.get("type")
        behavior = update.get("behavior")
        if kind == "addRules" and behavior in ("allow", "deny", "ask"):
            destination = update.get("destination")
            out.extend(
                RuleUpdate(spec, behavior, destination if isinstance(destination, str) else None)
                for spec in _rule_specs(update.get("rules"))
            )
        elif kind == "setMode":
            out.append(ModeUpdate(update.get("mode")))
        else:
            out.append(UnsupportedUpdate(kind))
    return out


def requested_mode(updates: object) -> object:
    """The mode the last ``setMode`` update asks for (as sent), or None."""
    modes = [u.mode for u in parse_permission_updates(updates) if isinstance(u, ModeUpdate)]
    return modes[-1] if modes else None


def _rule_specs(rules: object) -> list[str]:
    specs: list[str] = []
    for rule in rules if isinstance(rules, list) else []:
        name = rule.get("toolName") if isinstance(rule, Mapping) else None
        if not isinstance(name, str):
            continue
        content = rule.get("ruleContent")
        specs.append(f"{name}({content})" if isinstance(content, str) and content else name)
    return specs
