"""`load_config`: layered `config.json` loading (reference §2.19) and project trust.

Layers, lowest to highest: defaults < user ``~/.skawld/config.json`` < project
``<cwd>/.skawld/config.json`` (or ``project_config_path``, or ``$SKAWLD_CONFIG``)
< ``SKAWLD_*`` environment variables < ``overrides`` (the CLI's flags). Every
layer is validated by the one schema, `skawld_core.config_model`.

Merge rules: scalars — the higher layer wins; ``limits`` — shallow merge;
``permissions.mode`` — the higher layer wins; ``permissions.rules`` — concatenated
lower layer first (first match wins, so the user's rules take precedence);
``provider`` / ``sessionStore`` — replaced wholesale when the higher layer names a
different ``id`` / ``kind``, otherwise merged shallowly; ``mcpServers`` — merged by
server name; ``pricing`` — merged by model; ``hooks`` — concatenated per event; ``configDirs`` and
``additionalDirectories`` — concatenated; ``env``/``sandbox`` — shallow merge.

The project's files are untrusted (a cloned repository may have written them).
Loading raises `UntrustedProjectConfigError` (a `ConfigError`) listing what the
project asks for — see `skawld_core.trust.config_requests`: what sends data
somewhere (provider id/key/URL/headers/options, HTTP MCP servers, a PostgreSQL
store), runs code (stdio MCP servers, hooks), reads outside the project
(``systemPromptFile``, ``configDirs``, the session database, ``cwd``, an
instruction file linking out) or widens permissions (mode, allow rules, added
directories, env passthrough, a looser sandbox) — unless
``accept_project_config=True`` or the user accepted that exact file before
(`trust_project_config`, remembered by path and SHA-256 in
``~/.skawld/trusted-projects.json``; editing the file asks again).

The loader never prints: problems that do not stop loading come back as `warnings`.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .claude_settings import PROJECT_SETTINGS_FILES, USER_SETTINGS_FILE, settings_document
from .config_files import home_dir, read_config_file, user_config_dir
from .config_model import PERMISSION_MODES, PROVIDER_IDS, ConfigFile, ConfigWarning, pointer, validate_document
from .errors import ConfigError
from .mcp_json import MCP_JSON_FILE, mcp_json_document
from .permissions.remembered import gated_settings
from .plugins.enabled import enabled_specs, plugin_fingerprint, plugin_layer, plugin_requests, resolve_plugins
from .plugins.types import Plugin
from .trust import TrustRequest, config_requests, describe_requests, inside

if TYPE_CHECKING:
    from .trust_items import TrustItem

__all__ = [
    "ConfigSource",
    "ConfigWarning",
    "LoadedConfig",
    "SkawldConfig",
    "UntrustedProjectConfigError",
    "file_sha256",
    "home_dir",
    "is_project_config_trusted",
    "load_config",
    "project_trust_state",
    "read_config_file",
    "trust_project_config",
    "trusted_projects_path",
    "user_config_dir",
]

SourceKind = Literal["default", "user", "project", "env", "override"]


@dataclass(frozen=True)
class ConfigSource:
    """One layer that contributed to the result."""

    source: SourceKind
    path: str | None = None


SkawldConfig = ConfigFile
"""The merged configuration as `load_config` returns it: the one schema's model
(`skawld_core.config_model.ConfigFile`; the spec calls it ``SkawldConfig``). Its snake_case
properties (`ConfigFile.provider_id`, `ConfigFile.max_retries`, …) give each value with
its default."""


@dataclass(frozen=True)
class LoadedConfig:
    """What `load_config` returns: the config, its layers and any warnings.

    `config` is the merged document validated by the schema, and `raw` the same document in
    the files' JSON shape (camelCase keys). `project_path` is the
    project file consulted (whether or not it existed); `project_trusted` says
    whether the user accepted the project (its skills and agents may then grant
    tools); `trust_extra` is what an acceptance covers besides the file's bytes.
    `origins` maps each set key (dotted path) to the file or layer it came from.
    """

    config: ConfigFile
    sources: list[ConfigSource]
    warnings: list[ConfigWarning]
    raw: dict[str, Any]
    project_path: Path | None = None
    project_trusted: bool = False
    trust_extra: tuple[str, ...] = ()
    origins: dict[str, str] = field(default_factory=dict)
    shadowed: tuple[str, ...] = ()
    """Name clashes lost to skawld's own config: "MCP server 'x' in /p/.mcp.json lost to /h/.skawld/config.json"."""
    plugins: tuple[Plugin, ...] = ()
    """The enabled Claude Code plugins (their hooks and MCP servers are already in `config`)."""


class UntrustedProjectConfigError(ConfigError):
    """The project's files need the user's approval before they are used.

    `requests` say what the project asks for (grouped by capability in the
    message), `pointers` name the config settings; accept with
    `trust_project_config(path, extra=exc.extra)` (remembered) or
    `load_config(..., accept_project_config=True)` (this run only).
    """

    def __init__(self, path: Path, requests: list[TrustRequest], extra: tuple[str, ...] = ()) -> None:
        self.path = path
        self.requests = requests
        self.pointers = [r.pointer for r in requests if r.pointer]
        self.extra = extra
        project = path.parent.parent if path.parent.name == ".skawld" else path.parent
        again = (
            "changed since you accepted it (the new or changed items are marked below) and needs your approval again"
            if any(r.changed for r in requests)
            else "needs your approval"
        )
        super().__init__(
            f"The project {project} {again} before skawld uses "
            f"{path if path.is_file() else 'its files'}. It asks for:\n"
            f"{describe_requests(requests)}\n"
            "Review it, then run once with --accept-project-config (or accept it in the app) "
            "to trust this version of it."
        )


# -- places -----------------------------------------------------------------


def trusted_projects_path(env: Mapping[str, str] | None = None) -> Path:
    """``~/.skawld/trusted-projects.json``."""
    return user_config_dir(env) / "trusted-projects.json"


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- trust ------------------------------------------------------------------


def _trust_digest(path: Path, extra: tuple[str, ...]) -> str:
    """SHA-256 of the file (of nothing when absent), folded with what else the acceptance covers."""
    digest = _file_digest(path)
    if not extra:
        return digest
    return hashlib.sha256("\n".join([digest, *sorted(extra)]).encode()).hexdigest()


def _file_digest(path: Path) -> str:
    try:
        return file_sha256(path)
    except FileNotFoundError:
        return hashlib.sha256(b"").hexdigest()


def _read_trust(env: Mapping[str, str] | None) -> dict[str, Any]:
    try:
        data = json.loads(trusted_projects_path(env).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects if isinstance(projects, dict) else {}


def project_trust_state(
    path: str | os.PathLike[str], *, env: Mapping[str, str] | None = None, extra: tuple[str, ...] = ()
) -> tuple[bool, frozenset[str] | None]:
    """(accepted as it is now, the item tokens the last acceptance covered or None if never accepted).

    Accepted means: the same file and items, or the same file with items that are all
    among the accepted ones (a command or a skill removed asks nothing).
    """
    p = Path(path).resolve()
    entry = _read_trust(env).get(str(p))
    if not isinstance(entry, dict):
        return False, None
    recorded = entry.get("items")
    tokens = frozenset(t for t in recorded if isinstance(t, str)) if isinstance(recorded, list) else frozenset()
    try:
        if entry.get("sha256") == _trust_digest(p, extra):
            return True, tokens
        narrowed = isinstance(recorded, list) and entry.get("file") == _file_digest(p) and set(extra) <= tokens
    except OSError:
        return False, tokens
    return narrowed, tokens


def is_project_config_trusted(
    path: str | os.PathLike[str], *, env: Mapping[str, str] | None = None, extra: tuple[str, ...] = ()
) -> bool:
    """True when the user accepted this file with exactly its current contents (and `extra`).

    A project without a config file can be accepted too (its digest is the empty file's).
    """
    return project_trust_state(path, env=env, extra=extra)[0]


def trust_project_config(
    path: str | os.PathLike[str], *, env: Mapping[str, str] | None = None, extra: tuple[str, ...] = ()
) -> str:
    """Remember that the user accepted this project config (path + current SHA-256).

    `extra` is what else the acceptance covers (`UntrustedProjectConfigError.extra`,
    `LoadedConfig.trust_extra`: the `TrustItem` tokens), recorded so a later change can
    say what is new. Writes ``~/.skawld/trusted-projects.json`` atomically; returns the digest.
    """
    p = Path(path).resolve()
    digest = _trust_digest(p, extra)
    projects = _read_trust(env)
    projects[str(p)] = {
        "sha256": digest,
        "file": _file_digest(p),
        "items": sorted(extra),
        "accepted_at": _dt.datetime.now(_dt.UTC).isoformat(),
    }
    target = trusted_projects_path(env)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"version": 1, "projects": projects}, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    return digest


# -- reading ----------------------------------------------------------------


def _read_file(path: Path) -> tuple[dict[str, Any], list[ConfigWarning]] | None:
    """Parse and validate one file; None when it does not exist."""
    raw = read_config_file(path)
    if raw is None:
        return None
    raw, notes = _nested_hooks(raw, str(path))
    _model, doc, warnings = validate_document(raw, file=str(path))
    return doc, [*warnings, *(ConfigWarning(note, file=str(path)) for note in notes)]


def _nested_hooks(raw: object, where: str) -> tuple[object, list[str]]:
    """Claude Code's nested hook groups (``{"matcher": …, "hooks": [{"type": "command", …}]}``)
    written in a skawld ``config.json`` are read as Claude Code's settings files read them."""
    hooks = raw.get("hooks") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or not isinstance(hooks, dict):
        return raw, []

    def nested(group: object) -> bool:
        return isinstance(group, dict) and "hooks" in group

    groups = {k: [g for g in v if nested(g)] for k, v in hooks.items() if isinstance(v, list)}
    groups = {k: v for k, v in groups.items() if v}
    if not groups:
        return raw, []
    from .hooks.claude_format import flatten_claude_hooks  # lazy: only settings with hooks need it

    flat, notes = flatten_claude_hooks(groups, where=where)
    out: dict[str, Any] = {}
    for event, entries in hooks.items():
        if event not in groups:
            out[event] = entries
        elif rest := [*(g for g in entries if not nested(g)), *flat.get(event, [])]:
            out[event] = rest
    return {**raw, "hooks": out}, notes


def _read_claude_settings(path: Path) -> tuple[dict[str, Any], list[ConfigWarning]] | None:
    """A Claude Code settings file as a validated config document; None when absent."""
    raw = read_config_file(path)
    return None if raw is None else _claude_settings_layer(raw, path)


def _claude_settings_layer(raw: object, path: Path) -> tuple[dict[str, Any], list[ConfigWarning]]:
    """A Claude Code settings object (read from `path`) as a validated config document."""
    converted, notes = settings_document(raw, where=str(path))
    _model, doc, warnings = validate_document(converted, file=str(path))
    return doc, [*warnings, *(ConfigWarning(note, file=str(path)) for note in notes)]


def _read_mcp_json(path: Path) -> tuple[dict[str, Any], list[ConfigWarning]] | None:
    """Claude Code's `.mcp.json` as a validated config document; None when absent."""
    raw = read_config_file(path)
    if raw is None:
        return None
    converted, notes = mcp_json_document(raw, where=str(path))
    _model, doc, warnings = validate_document(converted, file=str(path))
    return doc, [*warnings, *(ConfigWarning(note, file=str(path)) for note in notes)]


def _mcp_json_layer(
    path: Path, merged: Mapping[str, Any], origins: Mapping[str, str]
) -> tuple[dict[str, Any], list[ConfigWarning], list[str]] | None:
    """The servers of `.mcp.json` that no skawld config names (those win), the file's
    warnings, and a line per server that lost the clash; None when the file is absent."""
    loaded = _read_mcp_json(path)
    if loaded is None:
        return None
    doc, warnings = loaded
    own = merged.get("mcpServers", {})
    lost = [
        f"MCP server {name!r} in {path} lost to {origins.get(f'mcpServers.{name}', 'skawld config')}"
        for name in doc.get("mcpServers", {})
        if name in own
    ]
    servers = {k: v for k, v in doc.get("mcpServers", {}).items() if k not in own}
    return ({"mcpServers": servers} if servers else {}), warnings, lost


def _expand_mcp_servers(
    merged: dict[str, Any], env: Mapping[str, str], origins: Mapping[str, str]
) -> list[ConfigWarning]:
    """Expand ``${VAR}`` in every MCP entry; an entry naming an unset variable (without a
    default) is left out with a warning naming the file, the server and the variable."""
    servers = merged.get("mcpServers")
    if not servers:
        return []
    from .mcp.expand import UnsetVariableError, expand_server_entry  # lazy: only configs with MCP servers

    out: dict[str, Any] = {}
    warnings: list[ConfigWarning] = []
    for name, entry in servers.items():
        try:
            out[name] = expand_server_entry(entry, env)
        except UnsetVariableError as exc:
            where = origins.get(f"mcpServers.{name}")
            warnings.append(
                ConfigWarning(
                    f"MCP server {name!r} is not started: the environment variable {exc.variable} is not set "
                    f"and ${{{exc.variable}}} has no default (write ${{{exc.variable}:-default}} for one)",
                    file=where,
                    pointer=pointer("mcpServers", name) + exc.pointer,
                )
            )
    merged["mcpServers"] = out
    return warnings


def _resolve_paths(doc: dict[str, Any], base: Path, work: Path | None = None) -> None:
    """Make the path-valued keys of one layer absolute: files against `base` (the
    directory of the file that sets them), added directories against `work`."""
    if "systemPromptFile" in doc:
        doc["systemPromptFile"] = str((base / Path(doc["systemPromptFile"]).expanduser()).resolve())
    if "configDirs" in doc:
        doc["configDirs"] = [str((base / Path(d).expanduser()).resolve()) for d in doc["configDirs"]]
    if "pluginDirs" in doc:
        doc["pluginDirs"] = [str((base / Path(d).expanduser()).resolve()) for d in doc["pluginDirs"]]
    if "additionalDirectories" in doc:
        root = work or base
        doc["additionalDirectories"] = [
            str((root / Path(d).expanduser()).resolve()) for d in doc["additionalDirectories"]
        ]


def _work_dir(merged: Mapping[str, Any], base: Path) -> Path:
    return (base / Path(merged["cwd"]).expanduser()).resolve() if merged.get("cwd") else base


def _project_config_dirs(merged: Mapping[str, Any], base: Path, user_dir: Path) -> list[Path]:
    """The project's own skill/agent directories: ``.skawld/``, ``.claude/`` and ``configDirs`` inside it."""
    work = _work_dir(merged, base)
    dirs = [work / ".skawld", work / ".claude", *(Path(d) for d in merged.get("configDirs", []))]
    user = user_dir.resolve()
    return [d for d in dict.fromkeys(p.resolve() for p in dirs) if d != user and inside(d, base)]


def _env_layer(env: Mapping[str, str], cwd: Path) -> dict[str, Any]:
    doc: dict[str, Any] = {}

    def bad(var: str, msg: str) -> ConfigError:
        return ConfigError(f"Invalid {var} in the environment: {msg}")

    if env.get("SKAWLD_MODEL"):
        doc["model"] = env["SKAWLD_MODEL"]
    if env.get("SKAWLD_PROVIDER"):
        value = env["SKAWLD_PROVIDER"]
        if value not in PROVIDER_IDS:
            raise bad("SKAWLD_PROVIDER", f"must be one of {', '.join(PROVIDER_IDS)} (got {value!r})")
        doc.setdefault("provider", {})["id"] = value
    if env.get("SKAWLD_BASE_URL"):
        doc.setdefault("provider", {})["baseURL"] = env["SKAWLD_BASE_URL"]
    if env.get("SKAWLD_PERMISSION_MODE"):
        value = env["SKAWLD_PERMISSION_MODE"]
        if value not in PERMISSION_MODES:
            raise bad("SKAWLD_PERMISSION_MODE", f"must be one of {', '.join(PERMISSION_MODES)} (got {value!r})")
        doc["permissions"] = {"mode": value}
    if env.get("SKAWLD_SYSTEM_PROMPT_FILE"):
        doc["systemPromptFile"] = env["SKAWLD_SYSTEM_PROMPT_FILE"]
    if env.get("SKAWLD_MAX_TURNS"):
        value = env["SKAWLD_MAX_TURNS"].strip()
        if not value.isdigit() or int(value) < 1:
            raise bad("SKAWLD_MAX_TURNS", f"must be an integer >= 1 (got {value!r})")
        doc["limits"] = {"maxTurns": int(value)}
    if env.get("SKAWLD_DB_PATH"):
        doc["sessionStore"] = {"kind": "sqlite", "databasePath": env["SKAWLD_DB_PATH"]}
    if env.get("SKAWLD_DATABASE_URL"):
        doc["sessionStore"] = {"kind": "postgres", "dsn": env["SKAWLD_DATABASE_URL"]}
    _resolve_paths(doc, cwd)
    return doc


# -- merging ----------------------------------------------------------------


def _merge_tagged(low: Mapping[str, Any] | None, high: Mapping[str, Any], tag: str, default: str) -> dict[str, Any]:
    if low is None or high.get(tag, low.get(tag, default)) != low.get(tag, default):
        return dict(high)
    return {**low, **high}


def merge_layers(low: dict[str, Any], high: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(low)
    for key, value in high.items():
        if key == "limits":
            out[key] = {**out.get(key, {}), **value}
        elif key == "permissions":
            merged = dict(out.get(key, {}))
            if "mode" in value:
                merged["mode"] = value["mode"]
            if "rules" in value:
                merged["rules"] = [*merged.get("rules", []), *value["rules"]]
            out[key] = merged
        elif key == "provider":
            out[key] = _merge_tagged(out.get(key), value, "id", "anthropic")
        elif key == "sessionStore":
            out[key] = _merge_tagged(out.get(key), value, "kind", "sqlite")
        elif key in ("mcpServers", "pricing", "enabledPlugins"):
            out[key] = {**out.get(key, {}), **value}
        elif key == "hooks":
            hooks = {k: list(v) for k, v in out.get(key, {}).items()}
            for event, entries in value.items():
                hooks[event] = [*hooks.get(event, []), *entries]
            out[key] = hooks
        elif key in ("configDirs", "additionalDirectories", "pluginDirs"):
            out[key] = [*out.get(key, []), *value]
        elif key == "sandbox":
            low = out.get(key, {})
            low = {"mode": low} if isinstance(low, str) else low
            high = {"mode": value} if isinstance(value, str) else value
            if isinstance(value, str) and not low:
                out[key] = value
                continue
            merged = {**low, **high}
            if "network" in low and "network" in high:
                merged["network"] = {**network_object(low["network"]), **network_object(high["network"])}
            out[key] = merged
        elif key == "env":
            passthrough = [*out.get(key, {}).get("passthrough", []), *value.get("passthrough", [])]
            out[key] = {**out.get(key, {}), **value, "passthrough": passthrough}
        else:
            out[key] = value
    return out


def network_object(value: bool | Mapping[str, Any]) -> dict[str, Any]:
    """``sandbox.network`` as its object form (``true`` is ``{"enabled": true}``)."""
    return {"enabled": value} if isinstance(value, bool) else dict(value)


_CONCATENATED = frozenset({"permissions.rules", "configDirs", "additionalDirectories", "pluginDirs"})


def _record_origins(origins: dict[str, str], doc: Mapping[str, Any], origin: str, prefix: str = "") -> None:
    """Remember which layer set each key (two levels deep: `provider.baseURL`, `mcpServers.time`)."""
    for key, value in doc.items():
        path = f"{prefix}{key}"
        if path in _CONCATENATED and path in origins and origins[path] != origin:
            origins[path] = f"{origins[path]} + {origin}"
        else:
            origins[path] = origin
        if isinstance(value, Mapping) and not prefix:
            _record_origins(origins, value, origin, f"{path}.")


def _merged_model(merged: dict[str, Any]) -> ConfigFile:
    """The merged document as the schema's model (every layer was validated, so this holds)."""
    from pydantic import ValidationError

    try:
        return ConfigFile.model_validate(merged)
    except ValidationError as exc:  # a merge rule produced something the schema rejects
        raise ConfigError(f"Invalid merged config: {exc.errors(include_url=False)[0]['msg']}") from None


def _gate(
    project_path: Path,
    environ: Mapping[str, str],
    requests: list[TrustRequest],
    items: list[TrustItem],
    accept: bool,
) -> tuple[bool, list[TrustRequest], list[TrustRequest], tuple[str, ...]]:
    """The trust gate: (trusted, blocking requests, withheld requests, acceptance tokens).

    Raises `UntrustedProjectConfigError` when a blocking request is not accepted, or
    when an accepted project gained an item that asks for something (listed as changed).
    """
    extra = tuple(i.token for i in items)
    accepted, recorded = project_trust_state(project_path, env=environ, extra=extra)
    trusted = accept or accepted
    fresh = set() if recorded is None else {i.token for i in items if i.requests and i.token not in recorded}
    shown = [*requests, *(replace(r, changed=i.token in fresh) for i in items for r in i.requests)]
    blocking = [*requests, *(r for i in items if not i.withheld for r in i.requests)]
    if not trusted and (blocking or fresh):
        raise UntrustedProjectConfigError(project_path, shown, extra)
    return trusted, blocking, [r for i in items if i.withheld for r in i.requests], extra


def load_config(
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    project_config_path: str | os.PathLike[str] | None = None,
    ignore_user_config: bool = False,
    accept_project_config: bool = False,
) -> LoadedConfig:
    """Load and merge every config layer. Never prints.

    `env` is the environment snapshot (default: `os.environ`); `overrides` is a
    document in the config file's JSON shape (validated like a file, reported as
    "overrides"). Raises `ConfigError` for a malformed file, invalid values (with
    the file and JSON pointer) and bad ``SKAWLD_*`` variables, and
    `UntrustedProjectConfigError` when the project needs approval.
    """
    # lazy: the skills, subagents and command readers (and the tools they bring) are only needed here
    from .trust_items import TrustItem, TrustScope, project_items

    environ: Mapping[str, str] = os.environ if env is None else env
    base = Path(cwd).resolve() if cwd is not None else Path.cwd()
    layers = _Layers()
    if not ignore_user_config:
        _user_layers(layers, environ)
    user_specs = set(enabled_specs(layers.merged.get("enabledPlugins", {}), environ))
    user_plugin_dirs = set(layers.merged.get("pluginDirs", []))
    chosen = project_config_path or environ.get("SKAWLD_CONFIG")
    project_path = (base / Path(chosen).expanduser()) if chosen else base / ".skawld" / "config.json"
    project_path = project_path.resolve()
    requests, fingerprints = _project_layers(layers, project_path, base, environ)
    project_specs = [s for s in enabled_specs(layers.merged.get("enabledPlugins", {}), environ) if s not in user_specs]
    project_dirs = [d for d in layers.merged.get("pluginDirs", []) if d not in user_plugin_dirs]
    for plugin in resolve_plugins(project_specs, project_dirs, environ)[0]:  # plugins only the project enables
        requests.extend(
            plugin_requests(plugin, "/pluginDirs" if plugin.origin == "--plugin-dir" else "/enabledPlugins")
        )
        fingerprints.append(("plugin", str(plugin.root), plugin_fingerprint(plugin)))
    items = [TrustItem(kind, key, digest) for kind, key, digest in fingerprints]
    config_dirs = tuple(_project_config_dirs(layers.merged, base, user_config_dir(environ)))
    items[:0] = project_items(TrustScope(_work_dir(layers.merged, base), base, home_dir(environ), config_dirs))
    trusted, _blocking, withheld, extra = _gate(project_path, environ, requests, items, accept_project_config)
    if withheld and not trusted:
        layers.warnings.append(
            ConfigWarning(
                f"this project's files ask for: {'; '.join(r.what for r in withheld)}; "
                "they run without it until you accept the project (--accept-project-config)"
            )
        )

    env_doc = _env_layer(environ, base)
    if env_doc:
        layers.add(env_doc, "environment", [], ConfigSource("env"))
    if overrides:
        _m, doc, warns = validate_document(dict(overrides), file="overrides")
        _resolve_paths(doc, base)
        layers.add(doc, "command line", warns, ConfigSource("override"))

    plugins = _plugin_layer(layers, environ)
    merged = layers.merged
    warnings = layers.warnings
    warnings.extend(_expand_mcp_servers(merged, environ, layers.origins))
    if merged.get("systemPrompt") and merged.get("systemPromptFile"):
        warnings.append(
            ConfigWarning(f"systemPromptFile {merged['systemPromptFile']} is ignored because systemPrompt is set")
        )
    return LoadedConfig(
        config=_merged_model(merged),
        sources=layers.sources,
        warnings=warnings,
        raw=merged,
        project_path=project_path,
        project_trusted=trusted,
        trust_extra=extra,
        origins=layers.origins,
        shadowed=tuple(layers.shadowed),
        plugins=tuple(plugins),
    )


def _plugin_layer(layers: _Layers, environ: Mapping[str, str]) -> list[Plugin]:
    """The enabled plugins' hooks and MCP servers merged in (a server of the config's own wins)."""
    plugins, notes = resolve_plugins(
        enabled_specs(layers.merged.get("enabledPlugins", {}), environ), layers.merged.get("pluginDirs", []), environ
    )
    layers.warnings.extend(ConfigWarning(note) for note in notes)
    if plugins:
        layer = plugin_layer(plugins)
        layer["mcpServers"] = {
            k: v for k, v in layer.get("mcpServers", {}).items() if k not in layers.merged.get("mcpServers", {})
        }
        layers.merged = merge_layers(layers.merged, layer)
        for plugin in plugins:
            _record_origins(layers.origins, plugin_layer([plugin]), f"plugin {plugin.name} ({plugin.root})")
    return plugins


@dataclass
class _Layers:
    """The layers merged so far, lowest first: the document, where each key came from, and
    the warnings and sources of every layer."""

    merged: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)
    warnings: list[ConfigWarning] = field(default_factory=list)
    sources: list[ConfigSource] = field(default_factory=lambda: [ConfigSource("default")])
    shadowed: list[str] = field(default_factory=list)

    def add(self, doc: dict[str, Any], origin: str, warnings: list[ConfigWarning], source: ConfigSource) -> None:
        self.merged = merge_layers(self.merged, doc)
        _record_origins(self.origins, doc, origin)
        self.warnings.extend(warnings)
        self.sources.append(source)


def _user_layers(layers: _Layers, environ: Mapping[str, str]) -> None:
    """``~/.skawld/config.json``, then Claude Code's ``~/.claude/settings.json`` above it."""
    user_layers = (
        (user_config_dir(environ) / "config.json", _read_file),
        (home_dir(environ) / USER_SETTINGS_FILE, _read_claude_settings),
    )
    for user_path, read in user_layers:
        loaded = read(user_path)
        if loaded is None:
            continue
        doc, warns = loaded
        _resolve_paths(doc, user_path.parent, home_dir(environ))
        layers.add(doc, str(user_path), warns, ConfigSource("user", str(user_path)))


def _project_layers(
    layers: _Layers, project_path: Path, base: Path, environ: Mapping[str, str]
) -> tuple[list[TrustRequest], list[tuple[str, str, str]]]:
    """The project's config file, Claude Code's project settings and ``.mcp.json``: merged,
    with what they ask the user to trust and the (kind, key, digest) of each file an
    acceptance covers besides the config file."""
    loaded = _read_file(project_path)
    requests: list[TrustRequest] = []
    if loaded is not None:
        doc, warns = loaded
        requests = config_requests(doc, file=project_path, project_root=base, lower=layers.merged)
        _resolve_paths(doc, project_path.parent, base)
        layers.add(doc, str(project_path), warns, ConfigSource("project", str(project_path)))
    fingerprints: list[tuple[str, str, str]] = []
    for rel in PROJECT_SETTINGS_FILES:  # Claude Code's project settings: gated like the project config
        settings_path = (base / rel).resolve()
        raw = read_config_file(settings_path)
        if raw is None:
            continue
        doc, warns = _claude_settings_layer(raw, settings_path)
        # the user's own remembered answers are exempt from the gate (`permissions.remembered`)
        gated, digest = gated_settings(raw, settings_path, environ)
        gated_doc = _claude_settings_layer(gated, settings_path)[0] if gated != {} else {}
        requests.extend(config_requests(gated_doc, file=settings_path, project_root=base, lower=layers.merged))
        if digest is not None:
            fingerprints.append(("claude-settings", str(settings_path), digest))
        _resolve_paths(doc, settings_path.parent, base)
        layers.add(doc, str(settings_path), warns, ConfigSource("project", str(settings_path)))
    mcp_json_path = (base / MCP_JSON_FILE).resolve()
    mcp_layer = _mcp_json_layer(mcp_json_path, layers.merged, layers.origins)
    if mcp_layer is not None:  # Claude Code's project MCP servers: gated like the project's mcpServers
        doc, warns, layers.shadowed = mcp_layer
        requests.extend(
            TrustRequest(r.capability, f"{MCP_JSON_FILE} {r.pointer}", r.what)
            for r in config_requests(doc, file=mcp_json_path, project_root=base, lower=layers.merged)
        )
        fingerprints.append(("mcp-json", str(mcp_json_path), file_sha256(mcp_json_path)))
        layers.add(doc, str(mcp_json_path), warns, ConfigSource("project", str(mcp_json_path)))
    return requests, fingerprints
