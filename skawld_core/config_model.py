"""The one schema of `config.json` (user ``~/.skawld/config.json`` and project ``.skawld/config.json``).

Every consumer reads these models: the loader (`skawld_core.config`), permission
rules (the rule models of `skawld_core.permissions.rules` are reused here), MCP
server entries (`skawld_core.mcp.config`), hooks, the provider and the sandbox.
Field names are the file's own camelCase keys, so a model and its JSON agree.

`validate_document(raw, file=...)` checks one parsed document and returns the
cleaned document (only the keys that were set, unknown keys dropped) plus
warnings. Problems raise `ConfigError` as
``Invalid config in <file> (<JSON pointer>): <what was expected>``; an unknown
key is a warning, with a "did you mean" when a declared key is close.
`config_json_schema()` is the JSON Schema (``skawld config schema``).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
)

from .errors import ConfigError
from .hooks.types import HOOK_EVENT_NAMES
from .model_base import SkawldModel
from .permissions.rules import BashRule, PermissionRule, RegexPattern

__all__ = [
    "HOOK_EVENTS",
    "PERMISSION_MODES",
    "PROVIDER_IDS",
    "SANDBOX_MODES",
    "ConfigFile",
    "ConfigWarning",
    "EnvSection",
    "HookCommand",
    "HooksSection",
    "HttpMcpServer",
    "LimitsSection",
    "McpServer",
    "PermissionsSection",
    "ProviderSection",
    "SandboxSection",
    "SessionStoreSection",
    "StdioMcpServer",
    "config_error",
    "config_json_schema",
    "declared_keys",
    "pointer",
    "validate_document",
    "validate_mcp_server",
]

PROVIDER_IDS = ("anthropic", "openai-chat", "openai-responses")
PERMISSION_MODES = ("default", "acceptEdits", "plan", "yolo")
HOOK_EVENTS = HOOK_EVENT_NAMES
SANDBOX_MODES = ("off", "auto", "required")
MCP_HTTP_TYPES = ("http", "streamable-http", "streamable_http", "streamablehttp", "sse")

NonEmpty = Annotated[str, Field(min_length=1, pattern=r"\S")]
PositiveInt = Annotated[int, Field(ge=1)]


def _scalar_to_str(value: object) -> object:
    """MCP args/env accept numbers and booleans (the MCP module always did)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


ScalarStr = Annotated[str, BeforeValidator(_scalar_to_str)]


class _Section(SkawldModel):
    """Unknown keys are kept aside (`model_extra`) to be reported as warnings."""

    model_config = ConfigDict(extra="allow", strict=True, frozen=True, populate_by_name=True)


# -- sections ------------------------------------------------------------------


class ProviderSection(_Section):
    """Which model API to call, where, and with which key."""

    id: Literal["anthropic", "openai-chat", "openai-responses"] | None = None
    apiKey: NonEmpty | None = Field(default=None, description="Prefer the provider's environment variable.")
    baseURL: NonEmpty | None = None
    headers: dict[str, str] | None = Field(default=None, description="Extra HTTP headers on every request.")
    options: dict[str, Any] | None = Field(default=None, description="Provider constructor keywords.")
    transport: Literal["http", "httpx", "sdk"] | None = None
    compat: Literal["auto", "strict", "lenient"] | None = None
    contextWindow: PositiveInt | None = None


class LimitsSection(_Section):
    """Turn, output and retry caps."""

    maxTurns: PositiveInt | None = None
    maxOutputTokens: PositiveInt | None = None
    maxRetries: Annotated[int, Field(ge=0)] | None = None


class PermissionsSection(_Section):
    """The permission mode and rules (first match wins; see `skawld_core.permissions.rules`)."""

    mode: Literal["default", "acceptEdits", "plan", "yolo"] | None = None
    rules: list[PermissionRule] | None = None


class SessionStoreSection(_Section):
    """Where sessions are kept."""

    kind: Literal["sqlite", "memory", "postgres"] = "sqlite"
    databasePath: NonEmpty | None = Field(default=None, description="SQLite file (kind sqlite).")
    dsn: NonEmpty | None = Field(default=None, description="PostgreSQL connection string (kind postgres).")


class _McpCommon(_Section):
    timeoutMs: PositiveInt | None = Field(default=None, validation_alias=AliasChoices("timeoutMs", "timeout_ms"))
    connectTimeoutMs: PositiveInt | None = Field(
        default=None, validation_alias=AliasChoices("connectTimeoutMs", "connect_timeout_ms")
    )
    disabled: bool | None = Field(default=None, description="true leaves the server out.")


class StdioMcpServer(_McpCommon):
    """An MCP server started as a subprocess (the default type)."""

    type: Literal["stdio"] | None = None
    command: NonEmpty
    args: list[ScalarStr] | None = None
    env: dict[str, ScalarStr] | None = None
    inheritEnv: bool | None = Field(default=None, validation_alias=AliasChoices("inheritEnv", "inherit_env"))
    cwd: str | None = None


class McpOAuth(_Section):
    """OAuth for a remote MCP server (`skawld_core.mcp.oauth`)."""

    grant: Literal["authorization_code", "client_credentials", "identity_assertion"] | None = None
    clientId: NonEmpty | None = Field(default=None, description="A client registered beforehand.")
    clientSecret: NonEmpty | None = None
    scope: NonEmpty | None = None
    clientMetadataUrl: Annotated[str, Field(pattern=r"^https://")] | None = Field(
        default=None, description="A client ID metadata document (used when the server supports them)."
    )
    callbackPort: Annotated[int, Field(ge=1, le=65535)] | None = Field(
        default=None, description="The loopback port of the redirect URI (default: a free one, then kept)."
    )
    privateKeyFile: Annotated[str, Field(pattern=r"^(/|~/)")] | None = Field(
        default=None,
        description="client_credentials with private_key_jwt (RFC 7523): the PEM private key that signs the assertion.",
    )
    signingAlgorithm: (
        Literal["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"] | None
    ) = Field(default=None, description="The assertion's signing algorithm (default RS256).")
    issuer: Annotated[str, Field(pattern=r"^https?://")] | None = Field(
        default=None,
        description="identity_assertion: the MCP authorization server's issuer (configuration, not discovery).",
    )
    idpTokenEndpoint: Annotated[str, Field(pattern=r"^https?://")] | None = Field(
        default=None,
        description="identity_assertion: the identity provider's token endpoint (RFC 8693 token exchange).",
    )
    idpClientId: NonEmpty | None = Field(default=None, description="identity_assertion: skawld's client id at the IdP.")
    idpClientSecret: NonEmpty | None = None
    idTokenCommand: NonEmpty | None = Field(
        default=None, description="identity_assertion: a shell command that prints the user's ID token from the IdP."
    )


class HttpMcpServer(_McpCommon):
    """An MCP server reached over streamable HTTP (or the legacy SSE transport)."""

    type: Literal["http", "streamable-http", "streamable_http", "streamablehttp", "sse"] | None = None
    url: Annotated[str, Field(pattern=r"^https?://")]
    headers: dict[str, ScalarStr] | None = None
    oauth: McpOAuth | Literal[False] | None = Field(
        default=None, description="OAuth settings; false switches OAuth off (default: on when the server asks)."
    )


def _mcp_tag(value: object) -> str | None:
    if isinstance(value, BaseModel):
        return "http" if isinstance(value, HttpMcpServer) else "stdio"
    if not isinstance(value, Mapping):
        return None
    kind = value.get("type")
    if kind is None:
        return "http" if "url" in value and "command" not in value else "stdio"
    kind = str(kind).lower()
    return "http" if kind in MCP_HTTP_TYPES else kind


McpServer = Annotated[
    Annotated[StdioMcpServer, Tag("stdio")] | Annotated[HttpMcpServer, Tag("http")],
    Discriminator(
        _mcp_tag,
        custom_error_type="mcp_type",
        custom_error_message="type must be one of stdio, http, sse",
    ),
]


class HookCommand(_Section):
    """One shell-command hook."""

    command: NonEmpty
    matcher: str | None = None
    timeoutMs: PositiveInt | None = None
    format: Literal["skawld", "claude-code"] | None = Field(
        default=None,
        description="claude-code: the matcher is Claude Code's (a tool list or regex) and a failing "
        "command does not block (only exit 2 does), as in Claude Code's settings files.",
    )
    env: dict[str, ScalarStr] | None = Field(
        default=None, description="Extra environment variables for the command (a plugin's CLAUDE_PLUGIN_ROOT)."
    )


class HooksSection(_Section):
    """Hook commands per event."""

    PreToolUse: list[HookCommand] | None = None
    PostToolUse: list[HookCommand] | None = None
    UserPromptSubmit: list[HookCommand] | None = None
    Stop: list[HookCommand] | None = None
    PreCompact: list[HookCommand] | None = None
    SessionStart: list[HookCommand] | None = None
    SessionEnd: list[HookCommand] | None = None
    Notification: list[HookCommand] | None = None
    SubagentStop: list[HookCommand] | None = None


class SandboxNetworkSection(_Section):
    """``sandbox.network`` as an object (Claude Code's shape)."""

    enabled: bool | None = Field(default=None, description="Allow network access inside the sandbox.")
    allowAllUnixSockets: bool | None = Field(
        default=None,
        description="Let sandboxed commands create Unix sockets, and so reach the host's (docker, ssh-agent, D-Bus).",
    )
    allowedDomains: list[NonEmpty] | None = Field(
        default=None,
        description="Host names sandboxed commands may reach through skawld's proxy (`*.example.com` for subdomains).",
    )
    deniedDomains: list[NonEmpty] | None = Field(
        default=None, description="Host names the proxy always refuses (wins over allowedDomains)."
    )


class SandboxSection(_Section):
    """The Bash sandbox: ``auto`` (default) uses it when it works, ``required`` refuses without it."""

    mode: Literal["off", "auto", "required"] = "auto"
    network: bool | SandboxNetworkSection | None = Field(
        default=None, description="Allow network access inside the sandbox (true/false, or an object)."
    )
    gitHistory: Literal["auto", "hidden", "visible"] | None = Field(
        default=None,
        description="Git's object store inside the sandbox: auto (hidden when a Read-denied file is tracked), "
        "hidden, or visible (history may show denied files).",
    )

    @property
    def network_enabled(self) -> bool:
        """Whether the sandbox has network (``network: true`` or ``{"enabled": true}``)."""
        if isinstance(self.network, SandboxNetworkSection):
            return bool(self.network.enabled)
        return bool(self.network)

    def domains(self, key: Literal["allowedDomains", "deniedDomains"]) -> list[str]:
        """``network.allowedDomains`` or ``network.deniedDomains`` (empty when unset)."""
        if not isinstance(self.network, SandboxNetworkSection):
            return []
        return list(getattr(self.network, key) or [])

    @property
    def allow_all_unix_sockets(self) -> bool:
        """``network.allowAllUnixSockets``: the Unix socket filter is off."""
        return isinstance(self.network, SandboxNetworkSection) and bool(self.network.allowAllUnixSockets)


class EnvSection(_Section):
    """Environment variables passed through to commands (provider keys are scrubbed otherwise)."""

    passthrough: list[NonEmpty] | None = None


class ModelPrice(_Section):
    """USD per million tokens for one model (or model-id prefix)."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cacheRead: float | None = Field(default=None, ge=0)
    cacheWrite: float | None = Field(default=None, ge=0)


class ConfigFile(_Section):
    """A whole `config.json` document."""

    schema_: str | None = Field(default=None, alias="$schema", description="Editor hint; ignored.")
    provider: ProviderSection | None = None
    model: NonEmpty | None = None
    cwd: NonEmpty | None = None
    systemPrompt: str | None = None
    systemPromptFile: NonEmpty | None = None
    permissions: PermissionsSection | None = None
    limits: LimitsSection | None = None
    sessionStore: SessionStoreSection | None = None
    cacheTtl: Literal["5m", "1h"] | None = None
    mcpServers: dict[str, McpServer] | None = None
    hooks: HooksSection | None = None
    configDirs: list[NonEmpty] | None = Field(default=None, description="Extra skill/agent directories.")
    sandbox: Literal["off", "auto", "required"] | SandboxSection | None = None
    env: EnvSection | None = None
    additionalDirectories: list[NonEmpty] | None = Field(
        default=None, description="Directories outside the project the agent may work in."
    )
    pricing: dict[str, ModelPrice] | None = Field(
        default=None, description="Custom prices by model id prefix (see skawld_core/pricing.json)."
    )
    enabledPlugins: dict[str, bool] | None = Field(
        default=None, description='Claude Code plugins on or off: {"name@marketplace": true}.'
    )
    pluginDirs: list[NonEmpty] | None = Field(default=None, description="Plugin directories to load (--plugin-dir).")

    # -- the values a reader uses, with their defaults (written here and nowhere else) --

    @property
    def provider_id(self) -> str:
        """``provider.id``; default ``anthropic``."""
        return (self.provider.id if self.provider else None) or "anthropic"

    @property
    def base_url(self) -> str | None:
        """``provider.baseURL``; default: the provider's own API."""
        return self.provider.baseURL if self.provider else None

    @property
    def permission_mode(self) -> str:
        """``permissions.mode``; default ``default``."""
        return (self.permissions.mode if self.permissions else None) or "default"

    @property
    def permission_rules(self) -> list[PermissionRule]:
        """``permissions.rules``, every layer's, lowest layer first."""
        return list(self.permissions.rules or []) if self.permissions else []

    @property
    def max_turns(self) -> int | None:
        """``limits.maxTurns``; default: no limit."""
        return self.limits.maxTurns if self.limits else None

    @property
    def max_output_tokens(self) -> int | None:
        """``limits.maxOutputTokens``; default: the provider's."""
        return self.limits.maxOutputTokens if self.limits else None

    @property
    def max_retries(self) -> int:
        """``limits.maxRetries``; default 5."""
        retries = self.limits.maxRetries if self.limits else None
        return 5 if retries is None else retries

    @property
    def session_store(self) -> SessionStoreSection:
        """``sessionStore``; default: SQLite at ``<cwd>/.skawld/sessions.db``."""
        return self.sessionStore or SessionStoreSection()

    @property
    def sandbox_settings(self) -> SandboxSection:
        """``sandbox`` in its object form (``"required"`` is ``{"mode": "required"}``); default ``auto``."""
        if isinstance(self.sandbox, SandboxSection):
            return self.sandbox
        return SandboxSection(mode=self.sandbox or "auto")

    @property
    def mcp_servers(self) -> dict[str, StdioMcpServer | HttpMcpServer]:
        """``mcpServers`` by name (``${VAR}`` already expanded by the loader)."""
        return dict(self.mcpServers or {})

    @property
    def hook_commands(self) -> dict[str, list[HookCommand]]:
        """``hooks``: the commands of each event that has any."""
        if self.hooks is None:
            return {}
        return {event: list(getattr(self.hooks, event) or []) for event in HOOK_EVENTS if getattr(self.hooks, event)}

    @property
    def env_passthrough(self) -> list[str]:
        """``env.passthrough``: variables commands see although they look like secrets."""
        return list(self.env.passthrough or []) if self.env else []


# -- warnings, pointers, errors -------------------------------------------------------


@dataclass(frozen=True)
class ConfigWarning:
    """A non-fatal config problem. `file` and `pointer` say where, when known."""

    message: str
    file: str | None = None
    pointer: str | None = None

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f" ({self.file}{' ' + self.pointer if self.pointer else ''})"
        return f"{self.message}{where}"


def pointer(*parts: str | int) -> str:
    """An RFC 6901 JSON pointer for `parts` ("" is the root)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def config_error(file: str, ptr: str, msg: str) -> ConfigError:
    """The one error shape for invalid config."""
    return ConfigError(f"Invalid config in {file} ({ptr or '/'}): {msg}")


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _located(raw: object, loc: tuple[int | str, ...], missing: bool = False) -> list[str | int]:
    """The JSON path of a pydantic error location, without union tags.

    A location part that is not a key of the document at that point is a tag
    (skipped), unless it is the last part of a missing-key error."""
    parts: list[str | int] = []
    cur = raw
    for i, part in enumerate(loc):
        in_map = isinstance(cur, Mapping) and part in cur
        if in_map or (isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur)):
            parts.append(part)
            cur = cur[part]  # type: ignore[index]
        elif isinstance(cur, Mapping) and missing and i == len(loc) - 1:
            parts.append(part)
        elif not isinstance(cur, Mapping | list):
            break
    return parts


_SECRET_PARTS = ("apikey", "headers", "env", "dsn")


def _message(err: Any, ptr: str) -> str:
    kind, value = err["type"], err.get("input")
    secret = any(s in ptr.lower() for s in _SECRET_PARTS)
    if kind == "missing":
        return "is required (url must be an http(s) URL)" if ptr.endswith("/url") else "is required"
    if kind == "literal_error":
        expected = err.get("ctx", {}).get("expected", "")
        return f"must be one of {expected.replace(' or ', ', ')} (got {'a value' if secret else repr(value)})"
    if kind == "union_tag_invalid":
        ctx = err.get("ctx", {})
        return f"must be one of {ctx.get('expected_tags', '').replace(chr(39), '')} (got {ctx.get('tag')!r})"
    if kind == "union_tag_not_found":
        return "is required"
    if kind == "mcp_type":
        return (
            f"type must be one of stdio, http, sse (got {value.get('type') if isinstance(value, Mapping) else value!r})"
        )
    if kind in ("greater_than_equal", "greater_than"):
        bound = err.get("ctx", {}).get("ge", err.get("ctx", {}).get("gt"))
        return f"must be an integer >= {bound} (got {value!r})"
    if kind in ("string_too_short", "string_pattern_mismatch"):
        if ptr.endswith("/url"):
            return "url must be an http(s) URL"
        return "must be a non-empty string"
    if kind.startswith(("string_", "int_", "bool_", "dict_", "list_", "model_", "float_", "union_")) or kind in (
        "model_type",
        "model_attributes_type",
    ):
        expected = {
            "string_type": "a string",
            "int_type": "an integer",
            "int_from_float": "an integer",
            "bool_type": "a boolean (true or false)",
            "dict_type": "an object",
            "list_type": "an array",
            "model_type": "an object",
            "model_attributes_type": "an object",
        }.get(kind)
        if expected:
            return f"expected {expected}, got {_type_name(value)}"
    return str(err["msg"])


def _first_error(exc: ValidationError, raw: object, file: str) -> ConfigError:
    errors = exc.errors(include_url=False)
    # a union reports one error per member: the deepest one is the most specific
    err = max(errors, key=lambda e: len(_located(raw, e["loc"], e["type"] == "missing")))
    parts = _located(raw, err["loc"], err["type"] == "missing")
    if err["type"] in ("union_tag_invalid", "union_tag_not_found", "mcp_type"):
        parts.append("type" if "mcpServers" in parts else "kind")
    ptr = pointer(*parts)
    return config_error(file, ptr, _message(err, ptr))


def _suggest(key: str, known: list[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _field_keys(model: BaseModel) -> list[str]:
    return [f.alias or name for name, f in type(model).model_fields.items()]


def _clean(value: object, path: tuple[str | int, ...], file: str, warnings: list[ConfigWarning]) -> Any:
    """The validated value in its JSON shape: set keys only, unknown keys dropped with a warning."""
    if isinstance(value, BaseModel):
        for key in value.model_extra or {}:
            warnings.append(
                ConfigWarning(
                    f"Unknown config key {key!r} ignored{_suggest(key, _field_keys(value))}", file, pointer(*path, key)
                )
            )
        out: dict[str, Any] = {}
        for name, info in type(value).model_fields.items():
            if name not in value.model_fields_set:
                continue
            field_value = getattr(value, name)
            if field_value is None:
                continue
            key = info.alias or name
            out[key] = _clean(field_value, (*path, key), file, warnings)
        return out
    if isinstance(value, dict):
        return {k: _clean(v, (*path, k), file, warnings) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v, (*path, i), file, warnings) for i, v in enumerate(value)]
    return value


def _check_extra(doc: ConfigFile, file: str) -> None:
    """Checks a field type cannot express: regexes compile, server names are non-empty."""
    for i, rule in enumerate((doc.permissions.rules if doc.permissions else None) or []):
        if isinstance(rule, BashRule) and isinstance(rule.pattern, RegexPattern):
            try:
                re.compile(rule.pattern.regex)
            except re.error as exc:
                raise config_error(
                    file, pointer("permissions", "rules", i, "pattern", "regex"), f"invalid regular expression: {exc}"
                ) from None
    for name in doc.mcpServers or {}:
        if not name.strip():
            raise config_error(file, pointer("mcpServers", name), "server names must be non-empty")


def validate_document(raw: object, *, file: str) -> tuple[ConfigFile, dict[str, Any], list[ConfigWarning]]:
    """Validate one parsed `config.json` document.

    Returns the model, the cleaned document in the file's JSON shape (the keys
    that were set, unknown keys dropped) and the warnings. Raises `ConfigError`
    naming `file`, the JSON pointer and what was expected.
    """
    if not isinstance(raw, Mapping):
        raise config_error(file, "", f"the root must be an object, got {_type_name(raw)}")
    try:
        model = ConfigFile.model_validate(dict(raw))
    except ValidationError as exc:
        raise _first_error(exc, raw, file) from None
    _check_extra(model, file)
    warnings: list[ConfigWarning] = []
    cleaned = _clean(model, (), file, warnings)
    cleaned.pop("$schema", None)
    provider = cleaned.get("provider", {})
    if "apiKey" in provider:
        warnings.append(
            ConfigWarning(
                "provider.apiKey is set in this file; prefer the provider's environment variable (the key is not shown)",
                file,
                "/provider/apiKey",
            )
        )
    return model, cleaned, warnings


def validate_mcp_server(name: str, raw: object) -> StdioMcpServer | HttpMcpServer:
    """Validate one MCP server entry; raises `ConfigError` ("MCP server 'name' (/ptr): …")."""
    from pydantic import TypeAdapter

    try:
        entry: StdioMcpServer | HttpMcpServer = TypeAdapter(McpServer).validate_python(raw)
    except ValidationError as exc:
        err = _first_error(exc, raw, f"MCP server '{name}'")
        raise ConfigError(str(err).removeprefix("Invalid config in ")) from None
    return entry


def config_json_schema() -> dict[str, Any]:
    """The JSON Schema of `config.json` (for editor completion)."""
    schema = ConfigFile.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "skawld config.json"
    return schema


def declared_keys() -> list[str]:
    """Every declared key as a dotted path: ``provider.apiKey``, ``mcpServers.*.command`` (any
    server name), ``hooks.<Event>[].command`` (each hook event, each entry)."""
    out: list[str] = []

    def walk(model: type[BaseModel], prefix: str) -> None:
        for name, info in model.model_fields.items():
            key = f"{prefix}{info.alias or name}"
            if model is HooksSection:
                key = f"{prefix}<Event>"
            out.append(key)
            for sub in _models_in(info.annotation):
                sep = ".*." if _contains(info.annotation, dict) else "[]." if _contains(info.annotation, list) else "."
                walk(sub, f"{key}{sep}")

    walk(ConfigFile, "")
    return list(dict.fromkeys(out))


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [] if annotation.__module__.endswith("permissions.rules") else [annotation]
    found: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        found.extend(_models_in(arg))
    return list(dict.fromkeys(found))


def _contains(annotation: Any, origin: type) -> bool:
    import typing

    if typing.get_origin(annotation) is origin:
        return True
    return any(_contains(a, origin) for a in typing.get_args(annotation))
