"""Claude Code's settings files as config layers.

`~/.claude/settings.json` (the user's), `.claude/settings.json` and
`.claude/settings.local.json` (the project's) are read beside skawld's own config.
What they can say that skawld applies:

- ``permissions.allow`` / ``deny`` / ``ask``: Claude Code's rule strings
  (`skawld_core.permissions.claude_rules`), enforced like skawld's own rules;
- ``permissions.defaultMode``: ``default``, ``acceptEdits``, ``plan``, ``bypassPermissions``;
- ``permissions.additionalDirectories``; ``model``;
- ``sandbox.network.allowAllUnixSockets`` (the Bash sandbox's Unix socket filter off);
- ``enabledPlugins`` (`skawld_core.plugins`; a plugin the project enables is gated);
- ``sandbox.network.allowedDomains`` / ``deniedDomains`` (the sandbox's domain proxy);
- ``hooks`` in Claude Code's nested format, for the events skawld has
  (`skawld_core.hooks.claude_format`), run with Claude Code's JSON input and
  decision output (`skawld_core.hooks.commands`).

`skawld_core.config.load_config` reads the files (`_read_claude_settings`).

Everything else (``env``, ``apiKeyHelper``, …) is reported as a warning
naming the file and key, never silently dropped and never an error. The project's
files go through the same trust gate as `.skawld/config.json`: allow rules, a wider
mode, added directories and hooks need the user's acceptance; deny and ask rules always apply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .claude_modes import CLAUDE_MODES
from .errors import ConfigError

__all__ = ["CLAUDE_MODES", "PROJECT_SETTINGS_FILES", "USER_SETTINGS_FILE", "settings_document"]

USER_SETTINGS_FILE = Path(".claude") / "settings.json"
PROJECT_SETTINGS_FILES = (Path(".claude") / "settings.json", Path(".claude") / "settings.local.json")
_PERMISSION_KEYS = {"allow", "deny", "ask", "defaultMode", "additionalDirectories"}


def settings_document(doc: object, *, where: str) -> tuple[dict[str, Any], list[str]]:
    """A Claude Code settings object as a skawld config document, plus notes on what is
    not applied. `where` names the source in errors (a file, or ``--settings``)."""
    # lazy: config imports this module at its top, and permissions would bring the tools with it
    from .permissions.claude_rules import parse_claude_rules

    if not isinstance(doc, dict):
        raise ConfigError(f"Invalid Claude Code settings in {where}: expected a JSON object")
    out: dict[str, Any] = {}
    notes: list[str] = []
    perms = doc.get("permissions", {})
    if not isinstance(perms, dict):
        raise ConfigError(f"Invalid Claude Code settings in {where} (/permissions): expected an object")
    rules: list[dict[str, Any]] = []
    for key in ("deny", "ask", "allow"):
        specs = perms.get(key) or []
        if not isinstance(specs, list) or not all(isinstance(s, str) for s in specs):
            raise ConfigError(f"Invalid Claude Code settings in {where} (/permissions/{key}): expected rule strings")
        try:
            parsed = parse_claude_rules(specs, key)
        except ValueError as exc:
            raise ConfigError(f"Invalid Claude Code settings in {where} (/permissions/{key}): {exc}") from None
        rules += parsed.dicts()
        notes += parsed.notes
    section: dict[str, Any] = {"rules": rules} if rules else {}
    mode = perms.get("defaultMode")
    if mode is not None:
        if mode not in CLAUDE_MODES:
            raise ConfigError(
                f"Invalid Claude Code settings in {where} (/permissions/defaultMode): "
                f"expected one of {', '.join(CLAUDE_MODES)}, got {mode!r}"
            )
        section["mode"] = CLAUDE_MODES[mode]
    if section:
        out["permissions"] = section
    dirs = perms.get("additionalDirectories")
    if dirs is not None:
        if not isinstance(dirs, list) or not all(isinstance(d, str) and d for d in dirs):
            raise ConfigError(
                f"Invalid Claude Code settings in {where} (/permissions/additionalDirectories): expected directories"
            )
        out["additionalDirectories"] = list(dirs)
    plugins = doc.get("enabledPlugins")
    if plugins is not None:
        if not isinstance(plugins, dict) or not all(isinstance(v, bool) for v in plugins.values()):
            raise ConfigError(
                f'Invalid Claude Code settings in {where} (/enabledPlugins): expected {{"name@marketplace": true}}'
            )
        out["enabledPlugins"] = dict(plugins)
    if isinstance(doc.get("model"), str) and doc["model"]:
        out["model"] = doc["model"]
    if doc.get("hooks"):
        from .hooks.claude_format import flatten_claude_hooks  # lazy: only settings with hooks need it

        hooks, hook_notes = flatten_claude_hooks(doc["hooks"], where=where)
        if hooks:
            out["hooks"] = hooks
        notes += hook_notes
    notes += _sandbox(doc.get("sandbox"), out, where)
    notes += [f"permissions.{k} is not supported by skawld; ignored" for k in sorted(set(perms) - _PERMISSION_KEYS)]
    notes += [
        f"{k!r} is not supported by skawld; ignored"
        for k in sorted(set(doc) - {"permissions", "model", "hooks", "sandbox", "enabledPlugins", "$schema"})
    ]
    return out, notes


_DOMAIN_KEYS = ("allowedDomains", "deniedDomains")


def _sandbox(sandbox: object, out: dict[str, Any], where: str) -> list[str]:
    """``sandbox.network.allowAllUnixSockets`` into `out`; notes for the sandbox keys skawld ignores."""
    if sandbox is None:
        return []
    if not isinstance(sandbox, dict):
        raise ConfigError(f"Invalid Claude Code settings in {where} (/sandbox): expected an object")
    network = sandbox.get("network", {})
    if not isinstance(network, dict):
        raise ConfigError(f"Invalid Claude Code settings in {where} (/sandbox/network): expected an object")
    allow = network.get("allowAllUnixSockets")
    if allow is not None:
        if not isinstance(allow, bool):
            raise ConfigError(
                f"Invalid Claude Code settings in {where} (/sandbox/network/allowAllUnixSockets): expected true or false"
            )
        out.setdefault("sandbox", {}).setdefault("network", {})["allowAllUnixSockets"] = allow
    for key in _DOMAIN_KEYS:
        domains = network.get(key)
        if domains is None:
            continue
        if not isinstance(domains, list) or not all(isinstance(d, str) and d for d in domains):
            raise ConfigError(
                f"Invalid Claude Code settings in {where} (/sandbox/network/{key}): expected a list of host names"
            )
        out.setdefault("sandbox", {}).setdefault("network", {})[key] = domains
    notes = [f"sandbox.{k} is not supported by skawld; ignored" for k in sorted(set(sandbox) - {"network"})]
    notes += [
        f"sandbox.network.{k} is not supported by skawld; ignored"
        for k in sorted(set(network) - {"allowAllUnixSockets", *_DOMAIN_KEYS})
    ]
    return notes
