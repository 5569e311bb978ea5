"""The user's plugins: known marketplaces and installed plugins under ``~/.skawld/plugins/``.

```
~/.skawld/plugins/marketplaces.json   {"marketplaces": {name: {"source": ..., "path": ...}}}
~/.skawld/plugins/marketplaces/<name>/  a marketplace cloned from a git URL
~/.skawld/plugins/installed.json      {"plugins": {"name@marketplace": {"path", "enabled", "version", ...}}}
~/.skawld/plugins/cache/<marketplace>/<name>/  an installed plugin's copy
```

A marketplace is a directory (or git repository) with ``.claude-plugin/marketplace.json``:
``{"name", "owner"?, "plugins": [{"name", "source", "description"?, "version"?, "strict"?, ...}]}``.
A plugin's ``source`` is a path inside the marketplace (``./plugins/x``), a git URL
(``{"source": "url", "url": ...}``) or a GitHub repository (``{"source": "github", "repo": "o/r"}``).
An entry with ``"strict": false`` may carry the plugin's manifest fields itself (its
``commands``, ``agents``, ``skills``, ``hooks``, ``mcpServers``); they are written into the
installed copy's ``plugin.json``. Installing copies the plugin, so a later change to the
marketplace does not change what runs until it is installed again.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config_files import user_config_dir
from .manifest import MANIFEST, load_plugin, plugin_name_ok
from .types import Plugin, PluginError

__all__ = [
    "MARKETPLACE_MANIFEST",
    "Marketplace",
    "add_marketplace",
    "installed_plugins",
    "known_marketplaces",
    "marketplace_entry",
    "prepare_install",
    "commit_install",
    "plugins_home",
    "read_marketplace",
    "remove_plugin",
    "set_plugin_enabled",
    "update_marketplaces",
    "OutdatedPlugin",
]

MARKETPLACE_MANIFEST = Path(".claude-plugin") / "marketplace.json"
_MANIFEST_KEYS = ("name", "version", "description", "author", "commands", "agents", "skills", "hooks", "mcpServers")


@dataclass(frozen=True)
class Marketplace:
    """A known marketplace: its name, where it came from and its local directory."""

    name: str
    source: str
    path: Path
    plugins: tuple[dict[str, Any], ...] = ()


def plugins_home(env: Mapping[str, str] | None = None) -> Path:
    """``~/.skawld/plugins``."""
    return user_config_dir(env) / "plugins"


def _load_state(path: Path, key: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise PluginError(f"cannot read {path}: {exc}") from None
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _save_state(path: Path, key: str, value: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"version": 1, key: value}, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_marketplace(directory: Path) -> tuple[str, tuple[dict[str, Any], ...]]:
    """The name and plugin entries of the marketplace at `directory`. Raises `PluginError`."""
    path = directory / MARKETPLACE_MANIFEST
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PluginError(f"{directory} is not a plugin marketplace: {MARKETPLACE_MANIFEST} is missing") from None
    except (OSError, ValueError) as exc:
        raise PluginError(f"cannot read the marketplace manifest {path}: {exc}") from None
    name = doc.get("name") if isinstance(doc, dict) else None
    if not isinstance(name, str) or not plugin_name_ok(name):
        raise PluginError(f"marketplace manifest {path} /name: {name!r} is not a valid marketplace name")
    plugins = doc.get("plugins", [])
    if not isinstance(plugins, list) or not all(
        isinstance(p, dict) and isinstance(p.get("name"), str) for p in plugins
    ):
        raise PluginError(f"marketplace manifest {path} /plugins: expected a list of plugin entries with a name")
    return name, tuple(plugins)


def _git_clone(url: str, dest: Path) -> None:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "clone", "--quiet", "--depth", "1", "--", url, str(dest)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PluginError(f"cannot clone {url}: {exc}") from None
    if done.returncode != 0:
        raise PluginError(f"cannot clone {url}: {done.stderr.strip() or f'git exited with {done.returncode}'}")


def _git_url(source: str) -> str | None:
    if source.startswith(("https://", "http://", "git@", "ssh://", "file://")) or source.endswith(".git"):
        return source
    parts = source.split("/")
    if len(parts) == 2 and all(plugin_name_ok(p) for p in parts):  # GitHub's owner/repo
        return f"https://github.com/{source}.git"
    return None


def known_marketplaces(env: Mapping[str, str] | None = None) -> dict[str, Marketplace]:
    """The marketplaces added with `add_marketplace`, by name (unreadable ones with no plugins)."""
    out: dict[str, Marketplace] = {}
    for name, entry in _load_state(plugins_home(env) / "marketplaces.json", "marketplaces").items():
        path = Path(str(entry.get("path", "")))
        try:
            plugins = read_marketplace(path)[1]
        except PluginError:
            plugins = ()
        out[name] = Marketplace(name=name, source=str(entry.get("source", "")), path=path, plugins=plugins)
    return out


def add_marketplace(source: str, env: Mapping[str, str] | None = None) -> Marketplace:
    """Remember a marketplace from a local directory (used in place) or a git URL or
    GitHub ``owner/repo`` (cloned under ``~/.skawld/plugins/marketplaces/``).
    Adding the same name again refreshes it. Raises `PluginError`."""
    home = plugins_home(env)
    local = Path(source).expanduser()
    if local.is_dir():
        path = local.resolve()
        name, plugins = read_marketplace(path)
    else:
        url = _git_url(source)
        if url is None:
            raise PluginError(f"{source} is neither a directory nor a git URL")
        (home / "marketplaces").mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".clone-", dir=home / "marketplaces"))
        try:
            _git_clone(url, staging / "repo")
            name, plugins = read_marketplace(staging / "repo")
            path = home / "marketplaces" / name
            if path.exists():
                shutil.rmtree(path)
            os.replace(staging / "repo", path)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    state = _load_state(home / "marketplaces.json", "marketplaces")
    state[name] = {"source": source, "path": str(path)}
    _save_state(home / "marketplaces.json", "marketplaces", state)
    return Marketplace(name=name, source=source, path=path, plugins=plugins)


def marketplace_entry(spec: str, env: Mapping[str, str] | None = None) -> tuple[Marketplace, dict[str, Any]]:
    """The marketplace and entry of ``name@marketplace``. Raises `PluginError`."""
    name, sep, market = spec.partition("@")
    if not sep or not plugin_name_ok(name) or not plugin_name_ok(market):
        raise PluginError(f"{spec!r}: expected name@marketplace (letters, digits, '.', '_', '-')")
    known = known_marketplaces(env)
    if market not in known:
        listed = ", ".join(sorted(known)) or "none"
        raise PluginError(
            f"unknown marketplace {market!r} (known: {listed}); add it with: skawld plugin marketplace add"
        )
    found = next((p for p in known[market].plugins if p.get("name") == name), None)
    if found is None:
        raise PluginError(f"marketplace {market!r} has no plugin {name!r}")
    return known[market], found


def _fetch_source(market: Marketplace, entry: dict[str, Any], dest: Path) -> None:
    source = entry.get("source")
    if isinstance(source, str) and not _git_url(source):
        src = (market.path / source).resolve()
        if src != market.path.resolve() and market.path.resolve() not in src.parents:
            raise PluginError(f"plugin {entry['name']!r}: source {source!r} points outside the marketplace")
        if not src.is_dir():
            raise PluginError(f"plugin {entry['name']!r}: source {source!r} is not a directory in {market.path}")
        shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        return
    if isinstance(source, str):
        url: str | None = _git_url(source)
    elif isinstance(source, dict) and source.get("source") == "github" and isinstance(source.get("repo"), str):
        url = f"https://github.com/{source['repo']}.git"
    elif isinstance(source, dict) and isinstance(source.get("url"), str):
        url = source["url"]
    else:
        url = None
    if url is None:
        raise PluginError(f"plugin {entry['name']!r}: source {source!r} is not supported")
    _git_clone(url, dest)
    shutil.rmtree(dest / ".git", ignore_errors=True)


def prepare_install(spec: str, env: Mapping[str, str] | None = None) -> tuple[Plugin, Path]:
    """Copy ``name@marketplace`` to a staging directory and read it, so its hooks and
    servers can be shown before the user agrees. Returns the plugin (read from the
    staging copy) and the staging directory; `commit_install` makes it installed,
    deleting the staging directory is declining. Raises `PluginError`."""
    market, entry = marketplace_entry(spec, env)
    cache = plugins_home(env) / "cache" / market.name
    cache.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{entry['name']}-", dir=cache))
    try:
        _fetch_source(market, entry, staging / entry["name"])
        manifest = staging / entry["name"] / MANIFEST
        if not manifest.is_file() and entry.get("strict") is False:
            manifest.parent.mkdir(parents=True, exist_ok=True)
            fields = {k: entry[k] for k in _MANIFEST_KEYS if k in entry}
            manifest.write_text(json.dumps(fields, indent=2) + "\n", encoding="utf-8")
        plugin = load_plugin(staging / entry["name"], origin=spec)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return plugin, staging


def commit_install(spec: str, staging: Path, env: Mapping[str, str] | None = None) -> Plugin:
    """Move a `prepare_install` copy in place and record the plugin as installed and enabled."""
    name, _, market = spec.partition("@")
    dest = plugins_home(env) / "cache" / market / name
    if dest.exists():
        shutil.rmtree(dest)
    os.replace(staging / name, dest)
    shutil.rmtree(staging, ignore_errors=True)
    plugin = load_plugin(dest, origin=spec)
    state = _load_state(plugins_home(env) / "installed.json", "plugins")
    state[spec] = {
        "path": str(dest),
        "enabled": True,
        "version": plugin.version,
        "installedAt": _dt.datetime.now(_dt.UTC).isoformat(),
    }
    _save_state(plugins_home(env) / "installed.json", "plugins", state)
    return plugin


def installed_plugins(env: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """``name@marketplace`` → its record (``path``, ``enabled``, ``version``)."""
    return _load_state(plugins_home(env) / "installed.json", "plugins")


def set_plugin_enabled(spec: str, enabled: bool, env: Mapping[str, str] | None = None) -> None:
    """Enable or disable an installed plugin. Raises `PluginError` when it is not installed."""
    path = plugins_home(env) / "installed.json"
    state = _load_state(path, "plugins")
    if spec not in state:
        raise PluginError(f"plugin {spec} is not installed")
    state[spec]["enabled"] = enabled
    _save_state(path, "plugins", state)


def remove_plugin(spec: str, env: Mapping[str, str] | None = None) -> None:
    """Uninstall a plugin (its copy and its record). Raises `PluginError` when it is not installed."""
    path = plugins_home(env) / "installed.json"
    state = _load_state(path, "plugins")
    entry = state.pop(spec, None)
    if entry is None:
        raise PluginError(f"plugin {spec} is not installed")
    target = Path(str(entry.get("path", "")))
    if plugins_home(env) in target.parents:
        shutil.rmtree(target, ignore_errors=True)
    _save_state(path, "plugins", state)


@dataclass(frozen=True)
class OutdatedPlugin:
    """An installed plugin whose marketplace now offers another version."""

    spec: str  # name@marketplace
    installed: str | None
    available: str


def _available_version(market: Marketplace, entry: Mapping[str, Any]) -> str | None:
    """The version a marketplace offers: its entry's, else the manifest's at a path source."""
    version = entry.get("version")
    source = entry.get("source")
    if version is None and isinstance(source, str) and not _git_url(source):
        try:
            manifest = json.loads((market.path / source / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        version = manifest.get("version") if isinstance(manifest, dict) else None
    return str(version) if isinstance(version, str | int | float) else None


def update_marketplaces(
    names: Sequence[str] = (), env: Mapping[str, str] | None = None
) -> list[tuple[Marketplace, list[OutdatedPlugin]]]:
    """Fetch the named marketplaces (all when `names` is empty) again from their source (a git
    marketplace is cloned again; a directory one is read in place) and list the installed plugins
    each now offers in another version. Installed plugins are not changed: updating one is
    installing it again, which shows what it runs and asks. Raises `PluginError` (an unknown
    name, a failed clone: the old copy is kept)."""
    known = known_marketplaces(env)
    unknown = [n for n in names if n not in known]
    if unknown:
        listed = ", ".join(sorted(known)) or "none"
        raise PluginError(f"unknown marketplace {unknown[0]!r} (known: {listed})")
    installed = installed_plugins(env)
    out = []
    for name in names or list(known):
        market = add_marketplace(known[name].source, env)
        outdated = []
        for entry in market.plugins:
            spec = f"{entry['name']}@{market.name}"
            if spec not in installed:
                continue
            available = _available_version(market, entry)
            current = installed[spec].get("version")
            if available is not None and available != current:
                outdated.append(OutdatedPlugin(spec, current, available))
        out.append((market, outdated))
    return out
