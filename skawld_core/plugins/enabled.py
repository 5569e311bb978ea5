"""Which plugins a configuration enables, what they add to it, and what they ask the trust gate.

Enabled plugins come from three places: plugins installed with ``skawld plugin install``
(enabled unless switched off), ``enabledPlugins`` in a settings file
(``{"name@marketplace": true|false}``, Claude Code's key; a higher layer wins) and
``--plugin-dir DIR`` (``pluginDirs``). A plugin enabled only by the *project's* files is
code the project asks to run: it is listed in the trust prompt with its hooks and MCP
servers, and the acceptance covers the plugin's files (a changed plugin asks again).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..trust import TrustRequest
from .manifest import load_plugin
from .store import installed_plugins
from .types import Plugin, PluginError

__all__ = ["enabled_specs", "plugin_fingerprint", "plugin_layer", "plugin_requests", "resolve_plugins"]


def enabled_specs(settings: Mapping[str, bool], env: Mapping[str, str] | None = None) -> list[str]:
    """``name@marketplace`` of every enabled plugin: installed ones unless `settings`
    says false, plus every one `settings` says true (sorted)."""
    installed = installed_plugins(env)
    specs = {s for s, e in installed.items() if e.get("enabled", True) is not False}
    specs |= {s for s, on in settings.items() if on is True}
    return sorted(s for s in specs if settings.get(s) is not False)


def _load_spec(spec: str, env: Mapping[str, str] | None) -> Plugin:
    entry = installed_plugins(env).get(spec)
    if entry is None:
        raise PluginError(f"plugin {spec} is enabled but not installed; install it with: skawld plugin install {spec}")
    return load_plugin(Path(str(entry.get("path", ""))), origin=spec)


def resolve_plugins(
    specs: Iterable[str], plugin_dirs: Sequence[str], env: Mapping[str, str] | None = None
) -> tuple[list[Plugin], list[str]]:
    """Load the enabled plugins and the `--plugin-dir` ones; a plugin that cannot be read,
    or whose name another plugin already has, is left out with a warning."""
    plugins: list[Plugin] = []
    warnings: list[str] = []
    sources = [(spec, True) for spec in specs] + [(d, False) for d in plugin_dirs]
    for label, named in sources:
        try:
            plugin = _load_spec(label, env) if named else load_plugin(Path(label), origin="--plugin-dir")
        except PluginError as exc:
            warnings.append(str(exc))
            continue
        clash = next((p for p in plugins if p.name == plugin.name), None)
        if clash is not None:
            warnings.append(
                f"plugin {label} is not loaded: the plugin {clash.origin or clash.root} is also named {plugin.name!r}"
            )
            continue
        plugins.append(plugin)
        warnings.extend(plugin.notes)
    return plugins, warnings


def plugin_layer(plugins: Sequence[Plugin]) -> dict[str, Any]:
    """The hooks and MCP servers the plugins add, as a config document (hooks concatenated per event)."""
    hooks: dict[str, list[dict[str, Any]]] = {}
    servers: dict[str, dict[str, Any]] = {}
    for plugin in plugins:
        for event, entries in plugin.hooks.items():
            hooks.setdefault(event, []).extend(dict(e) for e in entries)
        servers.update({k: dict(v) for k, v in plugin.mcp_servers.items()})
    return {k: v for k, v in (("hooks", hooks), ("mcpServers", servers)) if v}


def plugin_requests(plugin: Plugin, where: str) -> list[TrustRequest]:
    """What enabling `plugin` runs and where it sends data, for the trust prompt."""
    out = [
        TrustRequest(
            "runs",
            where,
            f"the plugin {plugin.origin or plugin.name} from {plugin.root}: its commands, agents and skills",
        )
    ]
    for event, entries in plugin.hooks.items():
        out += [TrustRequest("runs", where, f"the plugin's {event} hook: {e['command']}") for e in entries]
    for name, server in plugin.mcp_servers.items():
        if "url" in server and "command" not in server:
            out.append(TrustRequest("sends", where, f"the plugin's MCP server {name!r} at {server['url']}"))
        else:
            command = " ".join([str(server.get("command", "")), *map(str, server.get("args", []))])
            out.append(TrustRequest("runs", where, f"the plugin's MCP server {name!r}: {command}"))
    return out


def plugin_fingerprint(plugin: Plugin) -> str:
    """SHA-256 over every file of the plugin (path and bytes), for the trust acceptance.
    Python's byte-code caches are left out: running a plugin's hooks writes them."""
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(plugin.root):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "__pycache__"))
        for name in sorted(f for f in filenames if not f.endswith(".pyc")):
            path = Path(dirpath) / name
            digest.update(str(path.relative_to(plugin.root)).encode() + b"\0")
            try:
                digest.update(path.read_bytes() if not path.is_symlink() else os.readlink(path).encode())
            except OSError:
                digest.update(b"unreadable")
    return digest.hexdigest()
