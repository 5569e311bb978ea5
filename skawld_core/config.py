"""`load_config`: layered `config.json` loading (reference §2.19) and project trust.

Layers, lowest to highest: defaults < user ``~/.skawld/config.json`` < project
``<cwd>/.skawld/config.json`` (or ``project_config_path``, or ``$SKAWLD_CONFIG``)
< ``SKAWLD_*`` environment variables < ``overrides`` (the CLI's flags).

Merge rules: scalars — the higher layer wins; ``limits`` — shallow merge;
``permissions.mode`` — the higher layer wins; ``permissions.rules`` — concatenated
lower layer first (first match wins, so the user's rules take precedence);
``provider`` / ``sessionStore`` — replaced wholesale when the higher layer names a
different ``id`` / ``kind``, otherwise merged shallowly; ``mcpServers`` — merged by
server name; ``hooks`` — concatenated per event; ``configDirs`` — concatenated.

The project file is untrusted (a cloned repository may have written it). Loading
raises `UntrustedProjectConfigError` (a `ConfigError`) listing the offending JSON
pointers when it:

- sets ``permissions.mode`` to ``acceptEdits`` or ``yolo``, or has an ``allow`` rule
  (the reference's gate);
- sets ``provider.baseURL`` (that server would receive the user's API key), starts
  ``mcpServers`` or runs ``hooks`` commands (they execute code), or sets a ``cwd``
  outside the project directory (the agent would work elsewhere) — skawld's stricter gate;

unless ``accept_project_config=True`` or the user accepted that exact file before
(`trust_project_config`, remembered by path and SHA-256 in
``~/.skawld/trusted-projects.json``; editing the file revokes the trust).

The loader never prints: problems that do not stop loading come back as `warnings`.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .config_schema import PERMISSION_MODES, PROVIDER_IDS, ConfigWarning, pointer, validate_config
from .errors import ConfigError

__all__ = [
    "ConfigSource",
    "ConfigWarning",
    "LoadedConfig",
    "ProviderConfig",
    "SessionStoreConfig",
    "SkawldConfig",
    "UntrustedProjectConfigError",
    "file_sha256",
    "home_dir",
    "is_project_config_trusted",
    "load_config",
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


@dataclass(frozen=True)
class ProviderConfig:
    id: str = "anthropic"
    api_key: str | None = None
    base_url: str | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SessionStoreConfig:
    kind: Literal["sqlite", "memory", "postgres"] = "sqlite"
    database_path: str | None = None
    dsn: str | None = field(default=None, repr=False)  # a secret: never shown


@dataclass(frozen=True)
class SkawldConfig:
    """The merged configuration, with defaults filled in and paths made absolute."""

    provider: ProviderConfig = field(default_factory=ProviderConfig)
    model: str | None = None
    cwd: str | None = None
    system_prompt: str | None = None
    system_prompt_file: str | None = None
    permission_mode: str = "default"
    permission_rules: list[dict[str, Any]] = field(default_factory=list)
    max_turns: int | None = None
    max_output_tokens: int | None = None
    max_retries: int = 5
    session_store: SessionStoreConfig = field(default_factory=SessionStoreConfig)
    cache_ttl: str | None = None
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    hooks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    config_dirs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class LoadedConfig:
    """What `load_config` returns: the config, its layers and any warnings.

    `raw` is the merged document in the files' JSON shape (camelCase keys).
    `project_path` is the project file consulted (whether or not it existed).
    """

    config: SkawldConfig
    sources: list[ConfigSource]
    warnings: list[ConfigWarning]
    raw: dict[str, Any]
    project_path: Path | None = None


class UntrustedProjectConfigError(ConfigError):
    """The project config needs the user's approval before it is used.

    `pointers` name the settings that need it; accept with `trust_project_config(path)`
    (remembered) or `load_config(..., accept_project_config=True)` (this run only).
    """

    def __init__(self, path: Path, pointers: list[str]) -> None:
        self.path = path
        self.pointers = pointers
        super().__init__(
            f"The project config {path} needs your approval before skawld uses it: it sets "
            f"{', '.join(pointers)} (these can grant tool permissions, send your API key to another server, "
            "or run programs). Review the file, then run once with --accept-project-config "
            "(or accept it in the app) to trust this version of it."
        )


# -- places -----------------------------------------------------------------


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """The user's home: ``HOME``, else ``USERPROFILE``, else `Path.home()`."""
    e = os.environ if env is None else env
    home = e.get("HOME") or e.get("USERPROFILE")
    return Path(home) if home else Path.home()


def user_config_dir(env: Mapping[str, str] | None = None) -> Path:
    """``~/.skawld``."""
    return home_dir(env) / ".skawld"


def trusted_projects_path(env: Mapping[str, str] | None = None) -> Path:
    """``~/.skawld/trusted-projects.json``."""
    return user_config_dir(env) / "trusted-projects.json"


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- trust ------------------------------------------------------------------


def _read_trust(env: Mapping[str, str] | None) -> dict[str, Any]:
    try:
        data = json.loads(trusted_projects_path(env).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects if isinstance(projects, dict) else {}


def is_project_config_trusted(path: str | os.PathLike[str], *, env: Mapping[str, str] | None = None) -> bool:
    """True when the user accepted this file, with exactly its current contents."""
    p = Path(path).resolve()
    try:
        digest = file_sha256(p)
    except OSError:
        return False
    entry = _read_trust(env).get(str(p))
    return isinstance(entry, dict) and entry.get("sha256") == digest


def trust_project_config(path: str | os.PathLike[str], *, env: Mapping[str, str] | None = None) -> str:
    """Remember that the user accepted this project config (path + current SHA-256).

    Writes ``~/.skawld/trusted-projects.json`` atomically; returns the digest.
    """
    p = Path(path).resolve()
    digest = file_sha256(p)
    projects = _read_trust(env)
    projects[str(p)] = {"sha256": digest, "accepted_at": _dt.datetime.now(_dt.UTC).isoformat()}
    target = trusted_projects_path(env)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"version": 1, "projects": projects}, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    return digest


# -- reading ----------------------------------------------------------------


def _read_file(path: Path) -> tuple[dict[str, Any], list[ConfigWarning]] | None:
    """Parse and validate one file; None when it does not exist."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"Cannot read config file {path}: {exc.strerror or exc}") from None
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"Invalid JSON in config file {path}: {exc}") from None
    return validate_config(raw, file=str(path))


def _resolve_paths(doc: dict[str, Any], base: Path) -> None:
    """Make the path-valued keys of one layer absolute against `base`."""
    if "systemPromptFile" in doc:
        doc["systemPromptFile"] = str((base / Path(doc["systemPromptFile"]).expanduser()).resolve())
    if "configDirs" in doc:
        doc["configDirs"] = [str((base / Path(d).expanduser()).resolve()) for d in doc["configDirs"]]


def _gate_pointers(doc: Mapping[str, Any]) -> list[str]:
    """The settings of an untrusted file that need the user's approval."""
    found: list[str] = []
    perms = doc.get("permissions", {})
    if perms.get("mode") in ("acceptEdits", "yolo"):
        found.append("/permissions/mode")
    for i, rule in enumerate(perms.get("rules", [])):
        if rule.get("decision") == "allow":
            found.append(f"/permissions/rules/{i}")
    if "baseURL" in doc.get("provider", {}):
        found.append("/provider/baseURL")
    if "dsn" in doc.get("sessionStore", {}):
        found.append("/sessionStore/dsn")
    for name in doc.get("mcpServers", {}):
        found.append(pointer("mcpServers", name))
    for event, entries in doc.get("hooks", {}).items():
        found.extend(pointer("hooks", event, i) for i in range(len(entries)))
    return found


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


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


def _merge(low: dict[str, Any], high: Mapping[str, Any]) -> dict[str, Any]:
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
        elif key == "mcpServers":
            out[key] = {**out.get(key, {}), **value}
        elif key == "hooks":
            hooks = {k: list(v) for k, v in out.get(key, {}).items()}
            for event, entries in value.items():
                hooks[event] = [*hooks.get(event, []), *entries]
            out[key] = hooks
        elif key == "configDirs":
            out[key] = [*out.get(key, []), *value]
        else:
            out[key] = value
    return out


def _typed(doc: Mapping[str, Any]) -> SkawldConfig:
    p = doc.get("provider", {})
    perms = doc.get("permissions", {})
    limits = doc.get("limits", {})
    store = doc.get("sessionStore", {})
    return SkawldConfig(
        provider=ProviderConfig(
            id=p.get("id", "anthropic"),
            api_key=p.get("apiKey"),
            base_url=p.get("baseURL"),
            options=dict(p.get("options", {})),
        ),
        model=doc.get("model"),
        cwd=doc.get("cwd"),
        system_prompt=doc.get("systemPrompt"),
        system_prompt_file=doc.get("systemPromptFile"),
        permission_mode=perms.get("mode", "default"),
        permission_rules=[dict(r) for r in perms.get("rules", [])],
        max_turns=limits.get("maxTurns"),
        max_output_tokens=limits.get("maxOutputTokens"),
        max_retries=limits.get("maxRetries", 5),
        session_store=SessionStoreConfig(
            kind=store.get("kind", "sqlite"), database_path=store.get("databasePath"), dsn=store.get("dsn")
        ),
        cache_ttl=doc.get("cacheTtl"),
        mcp_servers={k: dict(v) for k, v in doc.get("mcpServers", {}).items()},
        hooks={k: [dict(e) for e in v] for k, v in doc.get("hooks", {}).items()},
        config_dirs=list(doc.get("configDirs", [])),
    )


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
    "overrides"). Raises `ConfigError` for bad JSON, invalid values (with the
    file and JSON pointer) and bad ``SKAWLD_*`` variables, and
    `UntrustedProjectConfigError` when the project file needs approval.
    """
    environ: Mapping[str, str] = os.environ if env is None else env
    base = Path(cwd).resolve() if cwd is not None else Path.cwd()
    sources = [ConfigSource("default")]
    warnings: list[ConfigWarning] = []
    merged: dict[str, Any] = {}

    if not ignore_user_config:
        user_path = user_config_dir(environ) / "config.json"
        loaded = _read_file(user_path)
        if loaded is not None:
            doc, warns = loaded
            _resolve_paths(doc, user_path.parent)
            merged = _merge(merged, doc)
            warnings.extend(warns)
            sources.append(ConfigSource("user", str(user_path)))

    chosen = project_config_path or environ.get("SKAWLD_CONFIG")
    project_path = (base / Path(chosen).expanduser()) if chosen else base / ".skawld" / "config.json"
    project_path = project_path.resolve()
    loaded = _read_file(project_path)
    if loaded is not None:
        doc, warns = loaded
        gated = _gate_pointers(doc)
        if "cwd" in doc and not _inside((base / Path(doc["cwd"]).expanduser()).resolve(), base):
            gated.append("/cwd")
        if gated and not accept_project_config and not is_project_config_trusted(project_path, env=environ):
            raise UntrustedProjectConfigError(project_path, gated)
        _resolve_paths(doc, project_path.parent)
        merged = _merge(merged, doc)
        warnings.extend(warns)
        sources.append(ConfigSource("project", str(project_path)))

    env_doc = _env_layer(environ, base)
    if env_doc:
        merged = _merge(merged, env_doc)
        sources.append(ConfigSource("env"))

    if overrides:
        doc, warns = validate_config(dict(overrides), file="overrides")
        _resolve_paths(doc, base)
        merged = _merge(merged, doc)
        warnings.extend(warns)
        sources.append(ConfigSource("override"))

    if merged.get("systemPrompt") and merged.get("systemPromptFile"):
        warnings.append(
            ConfigWarning(f"systemPromptFile {merged['systemPromptFile']} is ignored because systemPrompt is set")
        )
    return LoadedConfig(
        config=_typed(merged), sources=sources, warnings=warnings, raw=merged, project_path=project_path
    )
