"""Permission rule models (`ToolRule`, `PathRule`, `BashRule`, `DomainRule`) and `parse_rule`.

The JSON shapes are the reference's (the same dicts as in `config.json`)::

    {"kind": "tool", "tool": "Skill", "arg": "deploy", "decision": "ask"}
    {"kind": "path", "tools": ["Read"], "paths": ["**/.env"], "decision": "deny"}
    {"kind": "bash", "pattern": "git status", "decision": "allow"}
    {"kind": "bash", "pattern": {"regex": "^npm (test|run lint)$"}, "decision": "allow"}
    {"kind": "domain", "domains": ["docs.python.org", "*.example.com"], "decision": "allow"}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from ..errors import ConfigError
from ..model_base import DEFERRED, SkawldModel
from ..sandbox.domains import HostError, canonical_pattern
from .types import Decision

__all__ = ["BashRule", "DomainRule", "PathRule", "PermissionRule", "RegexPattern", "ToolRule", "parse_rule"]


class _Rule(SkawldModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolRule(_Rule):
    """Match a tool by exact name, `"*"`, or a glob with `*` (``mcp__github__*``); `arg`
    narrows `Skill` calls by skill name.

    A rule with `arg` never matches a tool other than `Skill`.
    """

    kind: Literal["tool"] = "tool"
    tool: str = Field(min_length=1)
    arg: str | None = None
    decision: Decision


class PathRule(_Rule):
    """Match the target path of file tools against picomatch-style globs.

    The targets are the input fields the tool's `PathPolicy` names (`file_path`
    for Read/Write/Edit, `path`, default the call cwd, for Glob/Grep). The rule
    applies to the tools it lists and, with `family`, to every tool of that family. Relative patterns resolve against the project root; a
    leading `!` inverts a pattern; any matching pattern matches the rule.
    Matching uses the resolved real path, so `..` and symlinks cannot reach a
    denied file.
    """

    kind: Literal["path"] = "path"
    tools: list[str] = Field(default_factory=lambda: ["Write", "Edit"])
    paths: list[str] = Field(min_length=1)
    decision: Decision
    # also every tool whose path policy is of this family (Claude's `Read(…)`: "read", `Edit(…)`: "edit")
    family: Literal["read", "edit"] | None = None

    @field_validator("paths")
    @classmethod
    def _non_empty_patterns(cls, v: list[str]) -> list[str]:
        if any(not p or p == "!" for p in v):
            raise ValueError("path patterns must be non-empty strings")
        return v


class RegexPattern(_Rule):
    """A bash-rule pattern tested (Python `re.search`, no flags) against the raw segment.

    A regex that does not compile never matches and never raises.
    """

    regex: str


class BashRule(_Rule):
    """Match each segment of a `Bash` command.

    A string pattern matches a shell-token prefix (quotes removed, so
    `git status` matches `git "status" --short` but not `git statusx`).
    """

    kind: Literal["bash"] = "bash"
    pattern: str | RegexPattern
    decision: Decision

    @field_validator("pattern")
    @classmethod
    def _non_empty_pattern(cls, v: str | RegexPattern) -> str | RegexPattern:
        if isinstance(v, str) and not v.strip():
            raise ValueError("bash pattern must be a non-empty string")
        return v


class DomainRule(_Rule):
    """Match the host of a network tool's `url` (WebFetch): Claude Code's `WebFetch(domain:…)`.

    A domain is a host name matched exactly (case-insensitive, no port),
    `*.example.com` for every subdomain of example.com (not example.com
    itself), or `*` for every host; each is kept in the sandbox's canonical
    form (`canonical_pattern`: punycode, IPv4 spellings as dotted quads).
    """

    kind: Literal["domain"] = "domain"
    tools: list[str] = Field(default_factory=lambda: ["WebFetch"])
    domains: list[str] = Field(min_length=1)
    decision: Decision

    @field_validator("domains")
    @classmethod
    def _plain_domains(cls, v: list[str]) -> list[str]:
        out = []
        for d in v:
            try:  # the sandbox's canonical form: punycode, IPv4 spellings as dotted quads
                out.append(canonical_pattern(d))
            except HostError as exc:
                raise ValueError(f"{d!r} is not a domain (expected a host name, *.host or *): {exc}") from None
        return out


AnyRule = ToolRule | PathRule | BashRule | DomainRule
PermissionRule = Annotated[AnyRule, Field(discriminator="kind")]
_RULE_ADAPTER: TypeAdapter[AnyRule] = TypeAdapter(PermissionRule, config=DEFERRED)
_KINDS = ("tool", "path", "bash", "domain")


def parse_rule(obj: AnyRule | Mapping[str, Any]) -> AnyRule:
    """Return a typed rule from a rule model or a reference JSON rule dict.

    Raises `ConfigError` ("Invalid permission rule: …") for anything else.
    """
    if isinstance(obj, ToolRule | PathRule | BashRule | DomainRule):
        return obj
    if not isinstance(obj, Mapping):
        raise ConfigError(f"Invalid permission rule: expected a rule object, got {type(obj).__name__}")
    kind = obj.get("kind")
    if kind not in _KINDS:
        raise ConfigError(f"Invalid permission rule: kind must be one of {', '.join(map(repr, _KINDS))} (got {kind!r})")
    try:
        return _RULE_ADAPTER.validate_python(dict(obj))
    except ValidationError as exc:
        parts = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"][1:]) or "rule"
            parts.append(f"{loc}: {err['msg']}")
        raise ConfigError(f"Invalid {kind} permission rule: {'; '.join(parts)}") from None
