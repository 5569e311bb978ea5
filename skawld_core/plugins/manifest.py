"""Reading a plugin directory in Claude Code's format.

```
my-plugin/
  .claude-plugin/plugin.json   {"name", "version", "description", "commands"?, "agents"?,
                                "skills"?, "hooks"?, "mcpServers"?}
  commands/*.md  (subfolders: /my-plugin:sub:name)   agents/**/*.md   skills/<name>/SKILL.md
  hooks/hooks.json             {"hooks": {Event: [{"matcher", "hooks": [{"type": "command", ...}]}]}}
  .mcp.json                    {"mcpServers": {...}} (or the servers object itself)
```

Custom paths in ``plugin.json`` (a string or a list, relative to the plugin root,
``./``-prefixed) add to the default folders, as in Claude Code; ``hooks`` and
``mcpServers`` may be a path or the object inline. A plugin without
``plugin.json`` is named after its directory. ``${CLAUDE_PLUGIN_ROOT}`` is replaced
by the plugin's absolute path in hook commands and MCP entries, and set in their
environments.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..hooks.claude_format import flatten_claude_hooks
from .types import Plugin, PluginError

__all__ = ["MANIFEST", "ROOT_VAR", "expand_root", "load_plugin", "plugin_name_ok"]

MANIFEST = Path(".claude-plugin") / "plugin.json"
ROOT_VAR = "CLAUDE_PLUGIN_ROOT"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_ROOT_REF = re.compile(r"\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b")


def plugin_name_ok(name: str) -> bool:
    """Plugin and marketplace names: letters, digits, `.`, `_`, `-` (no `:`, `@` or `/`)."""
    return bool(_NAME.match(name))


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise PluginError(f"cannot read {what} {path}: {exc}") from None
    except ValueError as exc:
        raise PluginError(f"{what} {path} is not valid JSON: {exc}") from None


def _inside(root: Path, rel: object, where: str) -> Path:
    if not isinstance(rel, str) or not rel.strip():
        raise PluginError(f"{where}: expected a relative path, got {rel!r}")
    path = (root / rel).resolve()
    if path != root and root not in path.parents:
        raise PluginError(f"{where}: {rel!r} points outside the plugin")
    return path


def _paths(root: Path, manifest: dict[str, Any], key: str, default: str, where: str) -> tuple[Path, ...]:
    value = manifest.get(key)
    extra = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    if value is not None and not isinstance(value, str | list):
        raise PluginError(f"{where} /{key}: expected a path or a list of paths")
    found = [root / default] if (root / default).is_dir() else []
    found += [_inside(root, rel, f"{where} /{key}") for rel in extra]
    return tuple(dict.fromkeys(p for p in found if p.exists()))


def expand_root(value: Any, root: Path) -> Any:
    """`${CLAUDE_PLUGIN_ROOT}` replaced by `root` in every string of a JSON value."""
    if isinstance(value, str):
        return _ROOT_REF.sub(lambda _m: str(root), value)
    if isinstance(value, list):
        return [expand_root(v, root) for v in value]
    if isinstance(value, dict):
        return {k: expand_root(v, root) for k, v in value.items()}
    return value


def _hooks(root: Path, manifest: dict[str, Any], where: str) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    sources: list[tuple[Any, str]] = []
    default = root / "hooks" / "hooks.json"
    if default.is_file():
        sources.append((_read_json(default, "plugin hooks file"), str(default)))
    value = manifest.get("hooks")
    if isinstance(value, str):
        path = _inside(root, value, f"{where} /hooks")
        if path != default.resolve():
            sources.append((_read_json(path, "plugin hooks file"), str(path)))
    elif isinstance(value, dict):
        sources.append((value, f"{where} /hooks"))
    elif value is not None:
        raise PluginError(f"{where} /hooks: expected a path or an object")
    out: dict[str, list[dict[str, Any]]] = {}
    notes: list[str] = []
    for doc, source in sources:
        groups = doc.get("hooks", doc) if isinstance(doc, dict) else doc
        try:
            flat, more = flatten_claude_hooks(groups, where=source)
        except Exception as exc:  # ConfigError: the file's shape is wrong
            raise PluginError(str(exc)) from None
        notes += more
        for event, entries in flat.items():
            for entry in entries:
                entry = {**expand_root(entry, root), "env": {ROOT_VAR: str(root)}}
                out.setdefault(event, []).append(entry)
    return out, notes


def _servers(root: Path, name: str, manifest: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    value = manifest.get("mcpServers")
    doc: Any
    if value is None:
        default = root / ".mcp.json"
        doc = _read_json(default, "plugin MCP file") if default.is_file() else {}
    elif isinstance(value, str):
        doc = _read_json(_inside(root, value, f"{where} /mcpServers"), "plugin MCP file")
    else:
        doc = value
    if isinstance(doc, dict) and isinstance(doc.get("mcpServers"), dict):
        doc = doc["mcpServers"]
    if not isinstance(doc, dict) or not all(isinstance(v, dict) for v in doc.values()):
        raise PluginError(f"{where}: the plugin's MCP servers must be an object of server entries")
    out: dict[str, dict[str, Any]] = {}
    for server, entry in doc.items():
        entry = expand_root(entry, root)
        if "command" in entry:
            entry["env"] = {**entry.get("env", {}), ROOT_VAR: str(root)}
        out[f"plugin:{name}:{server}"] = entry
    return out


def load_plugin(directory: Path, *, origin: str = "") -> Plugin:
    """The plugin at `directory`. Raises `PluginError` naming the file and what is wrong."""
    root = Path(directory).expanduser().resolve()
    if not root.is_dir():
        raise PluginError(f"plugin directory {root} does not exist")
    manifest_path = root / MANIFEST
    manifest: Any = _read_json(manifest_path, "plugin manifest") if manifest_path.is_file() else {}
    where = str(manifest_path)
    if not isinstance(manifest, dict):
        raise PluginError(f"plugin manifest {where} must be a JSON object")
    name = manifest.get("name", root.name)
    if not isinstance(name, str) or not plugin_name_ok(name):
        raise PluginError(f"plugin manifest {where} /name: {name!r} is not a valid plugin name")
    hooks, notes = _hooks(root, manifest, where)
    description = manifest.get("description")
    version = manifest.get("version")
    return Plugin(
        name=name,
        root=root,
        description=description if isinstance(description, str) else "",
        version=version if isinstance(version, str) else None,
        origin=origin,
        commands=_paths(root, manifest, "commands", "commands", where),
        agents=_paths(root, manifest, "agents", "agents", where),
        skills=_paths(root, manifest, "skills", "skills", where),
        hooks=hooks,
        mcp_servers=_servers(root, name, manifest, where),
        notes=tuple(f"plugin {name}: {n}" for n in notes),
    )
