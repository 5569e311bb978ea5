"""Domain matching for the network tools: which host a call reaches, and whether a rule names it.

WebFetch asks once per domain by default; `WebFetch(domain:docs.python.org)` in
Claude Code's syntax becomes a `DomainRule`. The host compared is the URL's
host name, lowercased, without port or trailing dot (`urllib.parse` rules).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ..sandbox.domains import HostError, canonical_host, domain_matches
from .rules import DomainRule

__all__ = [
    "NETWORK_TOOLS",
    "always_allow_rule",
    "call_host",
    "claude_permission_suggestions",
    "domain_matches",
    "domain_rule_matches",
    "sandbox_domains",
    "url_host",
]

NETWORK_TOOLS = frozenset({"WebFetch"})


def url_host(url: str) -> str | None:
    """The lowercased host of an http(s) URL, or None when it has none (or is not a URL)."""
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError:
        return None
    if not host:
        return None
    return host.rstrip(".") or None


def call_host(tool_name: str, tool_input: Mapping[str, Any]) -> str | None:
    """The host a network tool's call reaches (None for other tools or a URL without a host)."""
    if tool_name not in NETWORK_TOOLS:
        return None
    url = tool_input.get("url")
    return url_host(url) if isinstance(url, str) else None


def domain_rule_matches(rule: DomainRule, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
    """Whether `rule` decides this call: its tool, and a host one of its domains names.

    A call whose host cannot be told matches a deny or ask rule (fail closed),
    never an allow rule.
    """
    if tool_name not in rule.tools and "*" not in rule.tools:
        return False
    host = call_host(tool_name, tool_input)
    try:  # the sandbox's canonical form: `bücher.test` and `xn--bcher-kva.test` are one name
        host = None if host is None else canonical_host(host)
    except HostError:
        host = None
    if host is None:
        return rule.decision != "allow"
    return any(domain_matches(d, host) for d in rule.domains)  # the rule's domains are canonical


def always_allow_rule(tool_name: str, tool_input: Mapping[str, Any]) -> DomainRule | None:
    """The rule an "always allow" answer to a network tool's ask should add: its exact domain.

    None when the call is not a network tool's or has no host. Its Claude Code
    spelling is `WebFetch(domain:<host>)`.
    """
    host = call_host(tool_name, tool_input)
    if host is None:
        return None
    return DomainRule(tools=[tool_name], domains=[host], decision="allow")


def claude_permission_suggestions(tool_name: str, tool_input: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Claude Code's `permission_suggestions` for an ask: allow this call's domain for the session.

    A host answering with these as `updatedPermissions` adds the `always_allow_rule`.
    """
    host = call_host(tool_name, tool_input)
    if host is None:
        return []
    rule = {"toolName": tool_name, "ruleContent": f"domain:{host}"}
    return [{"type": "addRules", "rules": [rule], "behavior": "allow", "destination": "session"}]


def sandbox_domains(rules: Sequence[object]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The domains of `WebFetch(domain:…)` allow and deny rules, for the sandbox's proxy
    (allowed, denied), as Claude Code merges them into `sandbox.network`."""
    allowed: list[str] = []
    denied: list[str] = []
    for rule in rules:
        if isinstance(rule, DomainRule) and ("WebFetch" in rule.tools or "*" in rule.tools):
            if rule.decision == "allow":
                allowed += rule.domains
            elif rule.decision == "deny":
                denied += rule.domains
    return tuple(allowed), tuple(denied)
