"""Which host names sandboxed commands may reach through the proxy
(`sandbox.network.allowedDomains` / `deniedDomains`, `WebFetch(domain:…)` allow rules).

Patterns are matched as WebFetch's domain rules are (`domain_matches`):
names (`pypi.org`), wildcards for subdomains (`*.example.com` matches
`a.example.com` and `b.a.example.com`, not `example.com`), `*` for every name;
IP literals match only themselves: a request for an IP is allowed only when
that IP is listed. The requested name is checked, never an address it resolves
to. `deniedDomains` wins over every allow.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = ["DomainPolicy", "DomainSource", "Verdict", "domain_matches", "normalize_host"]

Verdict = Literal["allow", "deny", "unlisted"]


def normalize_host(host: str) -> str:
    """Lower case, no trailing dot, no IPv6 brackets."""
    return host.strip().strip("[]").rstrip(".").lower()


def domain_matches(domain: str, host: str) -> bool:
    """`*` is every host; `*.example.com` every subdomain (not example.com); else an exact host.
    (WebFetch's domain rules match with this too: `permissions.domains`.)"""
    if domain == "*":
        return True
    if domain.startswith("*."):
        return host.endswith(domain[1:]) and len(host) > len(domain) - 1
    return host == domain


class DomainSource(Protocol):
    """Adds domains to the settings' lists (the permission engine: its `WebFetch(domain:…)` rules)."""

    def sandbox_domains(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(allowed, denied) domain patterns."""
        ...


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _matches(host: str, pattern: str) -> bool:
    if _is_ip(host):  # an address only matches itself: never a wildcard
        return _is_ip(pattern) and ipaddress.ip_address(pattern) == ipaddress.ip_address(host)
    return domain_matches(pattern, host)


@dataclass(frozen=True)
class DomainPolicy:
    """The allowed and denied name patterns (normalized)."""

    allowed: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()

    @classmethod
    def of(cls, allowed: Iterable[str], denied: Iterable[str] = ()) -> DomainPolicy:
        """From raw patterns (duplicates and empty ones dropped, order kept)."""

        def clean(patterns: Iterable[str]) -> tuple[str, ...]:
            return tuple(dict.fromkeys(p for p in (normalize_host(x) for x in patterns) if p))

        return cls(clean(allowed), clean(denied))

    @property
    def enabled(self) -> bool:
        """Whether any name is open (without one the sandbox has no network)."""
        return bool(self.allowed)

    def verdict(self, host: str) -> Verdict:
        """`deny` (a denied pattern matches), `allow` or `unlisted`."""
        name = normalize_host(host)
        if any(_matches(name, p) for p in self.denied):
            return "deny"
        if any(_matches(name, p) for p in self.allowed):
            return "allow"
        return "unlisted"

    def describe(self) -> str:
        """`pypi.org, *.npmjs.org (denied: evil.example)` for `skawld -v` and the status line."""
        text = ", ".join(self.allowed) or "none"
        return text + (f" (denied: {', '.join(self.denied)})" if self.denied else "")
