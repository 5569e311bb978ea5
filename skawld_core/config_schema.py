"""Validation of one `config.json` document (reference §2.19), with JSON-pointer errors.

`validate_config(raw, file=...)` checks a parsed JSON value against the
`SkawldConfig` schema and returns a cleaned copy in the file's own JSON shape
(camelCase keys) plus warnings. Errors raise `ConfigError` with the message
``Invalid config in <file> (<pointer>): <msg>``.

Schema (the reference's keys, then skawld's additions)::

    provider        {id?: anthropic|openai-chat|openai-responses, apiKey?, baseURL?, options?}
    model           string
    cwd             string
    systemPrompt    string
    systemPromptFile string (a path; resolved by the loader, never read here)
    permissions     {mode?: default|acceptEdits|yolo, rules?: [rule, ...]}
    limits          {maxTurns? >= 1, maxOutputTokens? >= 1, maxRetries? >= 0}  (integers)
    sessionStore    {kind: "sqlite", databasePath?} | {kind: "memory"} | {kind: "postgres", dsn}
    cacheTtl        "5m" | "1h"
    mcpServers      {name: {type?: "stdio", command, args?, env?, inheritEnv?, cwd?, timeoutMs?}
                          | {type: "http", url, headers?, timeoutMs?}}
    hooks           {PreToolUse|PostToolUse|UserPromptSubmit|Stop|PreCompact:
                          [{matcher?, command, timeoutMs?}]}
    configDirs      [string, ...]  extra skill/agent directories (after .skawld)

Unknown top-level keys are warnings; unknown nested keys are errors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ConfigError

__all__ = [
    "HOOK_EVENTS",
    "PERMISSION_MODES",
    "PROVIDER_IDS",
    "TOP_LEVEL_KEYS",
    "ConfigWarning",
    "config_error",
    "pointer",
    "validate_config",
]

PROVIDER_IDS = ("anthropic", "openai-chat", "openai-responses")
PERMISSION_MODES = ("default", "acceptEdits", "yolo")
HOOK_EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "PreCompact")
DECISIONS = ("allow", "deny", "ask")
TOP_LEVEL_KEYS = (
    "provider",
    "model",
    "cwd",
    "systemPrompt",
    "systemPromptFile",
    "permissions",
    "limits",
    "sessionStore",
    "cacheTtl",
    "mcpServers",
    "hooks",
    "configDirs",
)


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


class _Checker:
    """Walks one document; `fail` raises with the current file name."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.warnings: list[ConfigWarning] = []

    def fail(self, ptr: str, msg: str) -> ConfigError:
        return config_error(self.file, ptr, msg)

    def obj(self, value: object, ptr: str, allowed: tuple[str, ...] | None) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(ptr, f"expected an object, got {_type_name(value)}")
        if allowed is not None:
            for key in value:
                if key not in allowed:
                    raise self.fail(f"{ptr}/{key}", f"unknown key {key!r} (expected one of: {', '.join(allowed)})")
        return value

    def string(self, value: object, ptr: str, *, non_empty: bool = False) -> str:
        if not isinstance(value, str):
            raise self.fail(ptr, f"expected a string, got {_type_name(value)}")
        if non_empty and not value.strip():
            raise self.fail(ptr, "must be a non-empty string")
        return value

    def enum(self, value: object, ptr: str, choices: tuple[str, ...]) -> str:
        if value not in choices:
            raise self.fail(ptr, f"must be one of {', '.join(choices)} (got {value!r})")
        assert isinstance(value, str)
        return value

    def integer(self, value: object, ptr: str, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
            raise self.fail(ptr, f"expected an integer >= {minimum}, got {value!r}")
        if value < minimum:
            raise self.fail(ptr, f"must be an integer >= {minimum} (got {value!r})")
        return int(value)

    def boolean(self, value: object, ptr: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(ptr, f"expected a boolean, got {_type_name(value)}")
        return value

    def str_list(self, value: object, ptr: str) -> list[str]:
        if not isinstance(value, list):
            raise self.fail(ptr, f"expected an array, got {_type_name(value)}")
        return [self.string(v, f"{ptr}/{i}") for i, v in enumerate(value)]

    def str_map(self, value: object, ptr: str) -> dict[str, str]:
        d = self.obj(value, ptr, None)
        return {k: self.string(v, f"{ptr}/{pointer(k)[1:]}") for k, v in d.items()}

    # -- sections ---------------------------------------------------------

    def provider(self, value: object, ptr: str) -> dict[str, Any]:
        d = self.obj(value, ptr, ("id", "apiKey", "baseURL", "options"))
        out: dict[str, Any] = {}
        if "id" in d:
            out["id"] = self.enum(d["id"], f"{ptr}/id", PROVIDER_IDS)
        if "apiKey" in d:
            out["apiKey"] = self.string(d["apiKey"], f"{ptr}/apiKey", non_empty=True)
        if "baseURL" in d:
            out["baseURL"] = self.string(d["baseURL"], f"{ptr}/baseURL", non_empty=True)
        if "options" in d:
            out["options"] = dict(self.obj(d["options"], f"{ptr}/options", None))
        return out

    def permissions(self, value: object, ptr: str) -> dict[str, Any]:
        d = self.obj(value, ptr, ("mode", "rules"))
        out: dict[str, Any] = {}
        if "mode" in d:
            out["mode"] = self.enum(d["mode"], f"{ptr}/mode", PERMISSION_MODES)
        if "rules" in d:
            rules = d["rules"]
            if not isinstance(rules, list):
                raise self.fail(f"{ptr}/rules", f"expected an array, got {_type_name(rules)}")
            out["rules"] = [self.rule(r, f"{ptr}/rules/{i}") for i, r in enumerate(rules)]
        return out

    def rule(self, value: object, ptr: str) -> dict[str, Any]:
        d = self.obj(value, ptr, None)
        kind = d.get("kind")
        if kind not in ("tool", "path", "bash"):
            raise self.fail(f"{ptr}/kind", f"must be one of tool, path, bash (got {kind!r})")
        if "decision" not in d:
            raise self.fail(f"{ptr}/decision", "is required")
        out: dict[str, Any] = {"kind": kind}
        if kind == "tool":
            self.obj(d, ptr, ("kind", "tool", "arg", "decision"))
            if "tool" not in d:
                raise self.fail(f"{ptr}/tool", "is required")
            out["tool"] = self.string(d["tool"], f"{ptr}/tool", non_empty=True)
            if "arg" in d:
                out["arg"] = self.string(d["arg"], f"{ptr}/arg", non_empty=True)
        elif kind == "path":
            self.obj(d, ptr, ("kind", "tools", "paths", "decision"))
            if "tools" in d:
                out["tools"] = self.str_list(d["tools"], f"{ptr}/tools")
            if "paths" not in d:
                raise self.fail(f"{ptr}/paths", "is required")
            paths = self.str_list(d["paths"], f"{ptr}/paths")
            if not paths:
                raise self.fail(f"{ptr}/paths", "must list at least one pattern")
            for i, p in enumerate(paths):
                if not p or p == "!":
                    raise self.fail(f"{ptr}/paths/{i}", "must be a non-empty pattern")
            out["paths"] = paths
        else:
            self.obj(d, ptr, ("kind", "pattern", "decision"))
            if "pattern" not in d:
                raise self.fail(f"{ptr}/pattern", "is required")
            pattern = d["pattern"]
            if isinstance(pattern, str):
                out["pattern"] = self.string(pattern, f"{ptr}/pattern", non_empty=True)
            else:
                pd = self.obj(pattern, f"{ptr}/pattern", ("regex",))
                if "regex" not in pd:
                    raise self.fail(f"{ptr}/pattern/regex", "is required")
                regex = self.string(pd["regex"], f"{ptr}/pattern/regex")
                try:
                    re.compile(regex)
                except re.error as exc:
                    raise self.fail(f"{ptr}/pattern/regex", f"invalid regular expression: {exc}") from None
                out["pattern"] = {"regex": regex}
        out["decision"] = self.enum(d["decision"], f"{ptr}/decision", DECISIONS)
        return out

    def limits(self, value: object, ptr: str) -> dict[str, Any]:
        d = self.obj(value, ptr, ("maxTurns", "maxOutputTokens", "maxRetries"))
        minimums = {"maxTurns": 1, "maxOutputTokens": 1, "maxRetries": 0}
        return {k: self.integer(v, f"{ptr}/{k}", minimums[k]) for k, v in d.items()}

    def session_store(self, value: object, ptr: str) -> dict[str, Any]:
        d = self.obj(value, ptr, None)
        kind = d.get("kind")
        if kind == "sqlite":
            self.obj(d, ptr, ("kind", "databasePath"))
            out: dict[str, Any] = {"kind": "sqlite"}
            if "databasePath" in d:
                out["databasePath"] = self.string(d["databasePath"], f"{ptr}/databasePath", non_empty=True)
            return out
        if kind == "memory":
            self.obj(d, ptr, ("kind",))
            return {"kind": "memory"}
        if kind == "postgres":
            self.obj(d, ptr, ("kind", "dsn"))
            if "dsn" not in d:
                raise self.fail(f"{ptr}/dsn", "is required for kind postgres (postgresql://user@host/db)")
            # The DSN is a secret: the error never echoes it.
            return {"kind": "postgres", "dsn": self.string(d["dsn"], f"{ptr}/dsn", non_empty=True)}
        raise self.fail(f"{ptr}/kind", f"must be one of sqlite, memory, postgres (got {kind!r})")

    def mcp_servers(self, value: object, ptr: str) -> dict[str, Any]:
        d = self.obj(value, ptr, None)
        out: dict[str, Any] = {}
        for name, server in d.items():
            sp = f"{ptr}/{pointer(name)[1:]}"
            if not name.strip():
                raise self.fail(sp, "server names must be non-empty")
            out[name] = self.mcp_server(server, sp)
        return out

    def mcp_server(self, value: object, ptr: str) -> dict[str, Any]:
        d = self.obj(value, ptr, None)
        kind = d.get("type", "stdio")
        out: dict[str, Any] = {}
        if kind == "http":
            self.obj(d, ptr, ("type", "url", "headers", "timeoutMs", "connectTimeoutMs"))
            if "url" not in d:
                raise self.fail(f"{ptr}/url", "is required")
            out = {"type": "http", "url": self.string(d["url"], f"{ptr}/url", non_empty=True)}
            if "headers" in d:
                out["headers"] = self.str_map(d["headers"], f"{ptr}/headers")
        elif kind == "stdio":
            self.obj(d, ptr, ("type", "command", "args", "env", "inheritEnv", "cwd", "timeoutMs", "connectTimeoutMs"))
            if "command" not in d:
                raise self.fail(f"{ptr}/command", "is required")
            out = {"command": self.string(d["command"], f"{ptr}/command", non_empty=True)}
            if "type" in d:
                out["type"] = "stdio"
            if "args" in d:
                out["args"] = self.str_list(d["args"], f"{ptr}/args")
            if "env" in d:
                out["env"] = self.str_map(d["env"], f"{ptr}/env")
            if "inheritEnv" in d:
                out["inheritEnv"] = self.boolean(d["inheritEnv"], f"{ptr}/inheritEnv")
            if "cwd" in d:
                out["cwd"] = self.string(d["cwd"], f"{ptr}/cwd", non_empty=True)
        else:
            raise self.fail(f"{ptr}/type", f"must be one of stdio, http (got {kind!r})")
        for key in ("timeoutMs", "connectTimeoutMs"):
            if key in d:
                out[key] = self.integer(d[key], f"{ptr}/{key}", 1)
        return out

    def hooks(self, value: object, ptr: str) -> dict[str, Any]:
        d = self.obj(value, ptr, HOOK_EVENTS)
        out: dict[str, Any] = {}
        for event, entries in d.items():
            ep = f"{ptr}/{event}"
            if not isinstance(entries, list):
                raise self.fail(ep, f"expected an array, got {_type_name(entries)}")
            items = []
            for i, entry in enumerate(entries):
                e = self.obj(entry, f"{ep}/{i}", ("matcher", "command", "timeoutMs"))
                if "command" not in e:
                    raise self.fail(f"{ep}/{i}/command", "is required")
                item: dict[str, Any] = {"command": self.string(e["command"], f"{ep}/{i}/command", non_empty=True)}
                if "matcher" in e:
                    item["matcher"] = self.string(e["matcher"], f"{ep}/{i}/matcher")
                if "timeoutMs" in e:
                    item["timeoutMs"] = self.integer(e["timeoutMs"], f"{ep}/{i}/timeoutMs", 1)
                items.append(item)
            out[event] = items
        return out


_SECTIONS: dict[str, Callable[[_Checker, object, str], Any]] = {
    "provider": _Checker.provider,
    "model": lambda c, v, p: c.string(v, p, non_empty=True),
    "cwd": lambda c, v, p: c.string(v, p, non_empty=True),
    "systemPrompt": lambda c, v, p: c.string(v, p),
    "systemPromptFile": lambda c, v, p: c.string(v, p, non_empty=True),
    "permissions": _Checker.permissions,
    "limits": _Checker.limits,
    "sessionStore": _Checker.session_store,
    "cacheTtl": lambda c, v, p: c.enum(v, p, ("5m", "1h")),
    "mcpServers": _Checker.mcp_servers,
    "hooks": _Checker.hooks,
    "configDirs": _Checker.str_list,
}


def validate_config(raw: object, *, file: str) -> tuple[dict[str, Any], list[ConfigWarning]]:
    """Validate one parsed config document; return the cleaned document and warnings.

    Unknown top-level keys are dropped with a warning; everything else that is
    wrong raises `ConfigError` naming `file` and the JSON pointer.
    """
    checker = _Checker(file)
    if not isinstance(raw, Mapping):
        raise checker.fail("", f"the root must be an object, got {_type_name(raw)}")
    out: dict[str, Any] = {}
    for key, value in raw.items():
        section = _SECTIONS.get(key)
        if section is None:
            checker.warnings.append(ConfigWarning(f"Unknown config key {key!r} ignored", file, pointer(key)))
            continue
        out[key] = section(checker, value, pointer(key))
    if "apiKey" in out.get("provider", {}):
        checker.warnings.append(
            ConfigWarning(
                "provider.apiKey is set in a config file; prefer the provider's environment variable "
                "(the key is not shown)",
                file,
                "/provider/apiKey",
            )
        )
    return out, checker.warnings
