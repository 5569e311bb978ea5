"""Sandbox settings (`Agent(sandbox=...)`, config `sandbox`) and the status a run reports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ConfigDict, Field, ValidationError

from ..errors import ConfigError
from ..model_base import SkawldModel

__all__ = ["SANDBOX_MODES", "SandboxMode", "SandboxSettings", "SandboxStatus", "coerce_sandbox"]

SandboxMode = Literal["off", "auto", "required"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("off", "auto", "required")
GitHistory = Literal["auto", "hidden", "visible"]


class SandboxSettings(SkawldModel):
    """How Bash commands are confined.

    `mode`: `"auto"` (the default) runs Bash under bubblewrap when it works and
    unsandboxed otherwise; `"required"` refuses to run Bash without it; `"off"`
    never uses it. `network`: allow network access inside the sandbox.
    `allow_all_unix_sockets`: let commands create Unix sockets (and so reach the
    host's: docker, ssh-agent, D-Bus); off, a seccomp filter refuses them.
    `allowed_domains` / `denied_domains`: without `network`, the host names
    commands may reach through skawld's proxy (`*.example.com` for subdomains;
    denied wins); none allowed, the sandbox has no network.
    `git_history`: git's object store inside the sandbox: `"auto"` hides it when a
    path a Read deny rule hides is tracked by git (`sandbox.git_history`),
    `"hidden"` always, `"visible"` never.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: SandboxMode = "auto"
    network: bool = Field(default=False, strict=True)
    allow_all_unix_sockets: bool = Field(default=False, strict=True)
    allowed_domains: tuple[str, ...] = ()
    denied_domains: tuple[str, ...] = ()
    git_history: GitHistory = "auto"


class SandboxStatus(SkawldModel):
    """Whether Bash runs sandboxed, reported once per run on the `system` event.

    `reason` says why the sandbox is not active (and which package to install)
    when it is not.
    """

    model_config = ConfigDict(frozen=True)

    active: bool
    mode: SandboxMode
    network: bool = False
    reason: str | None = None
    unix_sockets: bool = Field(default=False, exclude_if=lambda v: not v)
    allowed_domains: tuple[str, ...] = Field(default=(), exclude_if=lambda v: not v)
    denied_domains: tuple[str, ...] = Field(default=(), exclude_if=lambda v: not v)
    git_history: GitHistory = Field(default="auto", exclude_if=lambda v: v == "auto")

    def network_text(self) -> str:
        """`network on`, `no network` or `network only to a.org, *.b.org (proxy; denied: c.org)`."""
        if self.network:
            return "network on"
        if not self.allowed_domains:
            return "no network"
        denied = f"; denied: {', '.join(self.denied_domains)}" if self.denied_domains else ""
        return f"network only to {', '.join(self.allowed_domains)} (proxy{denied})"

    def describe(self) -> str:
        """One line for the status bar and `skawld -v`."""
        if self.active:
            line = f"sandbox: bubblewrap ({self.network_text()})"
            if self.unix_sockets:
                line += (
                    "; warning: host Unix sockets are reachable"
                    " (sandbox.network.allowAllUnixSockets, or no seccomp filter for this machine)"
                )
            if self.git_history == "visible":
                line += "; warning: git history is readable even where it holds Read-denied files (sandbox.gitHistory)"
            return line
        if self.mode == "off":
            return "sandbox: off"
        return f"sandbox: unavailable ({self.reason})" if self.reason else "sandbox: unavailable"


def coerce_sandbox(value: SandboxSettings | str | Mapping[str, Any] | None) -> SandboxSettings:
    """Accept the model, a mode string or a `{"mode": ..., "network": ...}` mapping.

    Raises `ConfigError` naming the problem.
    """
    if value is None:
        return SandboxSettings()
    if isinstance(value, SandboxSettings):
        return value
    if isinstance(value, str):
        if value not in SANDBOX_MODES:
            raise ConfigError(f"sandbox must be one of {', '.join(SANDBOX_MODES)} (got {value!r})")
        return SandboxSettings(mode=value)
    if isinstance(value, Mapping):
        try:
            return SandboxSettings.model_validate(dict(value))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"]) or "sandbox"
            raise ConfigError(f"sandbox.{loc}: {first['msg']}") from None
    raise ConfigError(f"sandbox must be a mode string or a mapping (got {type(value).__name__})")
