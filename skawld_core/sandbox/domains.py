"""Which host names sandboxed commands may reach through the proxy
(`sandbox.network.allowedDomains` / `deniedDomains`, `WebFetch(domain:…)` allow rules).

Every requested name and every pattern is put in one canonical form first
(`canonical_host`): one trailing dot dropped, lower case, international names
IDNA-encoded to ASCII (punycode), and every IPv4 spelling `inet_aton` takes
(`2130706434`, `0x7f.2`, `127.1`, `0`) turned into its dotted quad. A name
that is none of these (control characters, spaces, `*`, empty labels, bad
punycode) is refused with a reason (`HostError`), never asked about.

Patterns are matched as WebFetch's domain rules are (`domain_matches`):
names (`pypi.org`), wildcards for subdomains (`*.example.com` matches
`a.example.com` and `b.a.example.com`, not `example.com`), `*` for every name;
IP literals and loopback names (`localhost`, `*.localhost`) match only an exact
listing, never `*` or a wildcard. The requested name is checked, never an
address it resolves to. `deniedDomains` wins over every allow.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "DomainPolicy",
    "DomainSource",
    "HostError",
    "Verdict",
    "canonical_host",
    "canonical_pattern",
    "domain_matches",
    "host_problem",
    "is_loopback_name",
    "shown_host",
]

Verdict = Literal["allow", "deny", "unlisted", "invalid"]

_LABEL = re.compile(r"[a-z0-9_-]{1,63}")  # LDH, plus `_` (real names use it: _dmarc, some CDN hosts)
_IPV4_SPELLING = re.compile(r"[0-9a-fx.]+")  # what inet_aton reads (checked first: it ignores trailing junk)
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")


class HostError(ValueError):
    """A requested name (or pattern) that is neither a host name nor an IP address; the message says why."""


def canonical_host(host: str) -> str:
    """The one form a name is checked, asked about, saved and connected to in.

    IPv6 (brackets dropped, `::ffff:a.b.c.d` as its IPv4) and every IPv4 spelling
    become the address's text; names lose one trailing dot, are lowercased and
    IDNA-encoded to punycode. Raises `HostError` for anything else.
    """
    name = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if ":" in name:
        try:
            address = ipaddress.IPv6Address(name)
        except ValueError:
            raise HostError("not a host name or an IP address") from None
        return str(address.ipv4_mapped or address)
    name = name.removesuffix(".").lower()
    if not name:
        raise HostError("an empty name")
    if not name.isprintable() or any(c.isspace() for c in name):
        raise HostError("the name holds control characters or spaces")
    if _IPV4_SPELLING.fullmatch(name):
        try:
            return socket.inet_ntoa(socket.inet_aton(name))
        except OSError:
            pass
    if "*" in name:
        raise HostError("`*` is a pattern, not a host name")
    try:
        ascii_name = name.encode("idna").decode("ascii")
    except UnicodeError:
        raise HostError("not a valid international (IDNA) name") from None
    labels = ascii_name.split(".")
    if len(ascii_name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        raise HostError("a host name takes letters, digits, `-` and `_` in non-empty labels")
    if _NUMERIC_LABEL.fullmatch(labels[-1]):
        raise HostError("a numeric last label that is not an IPv4 address")
    for label in labels:
        if label.startswith("xn--"):
            try:
                label.encode("ascii").decode("idna")
            except UnicodeError:
                raise HostError(f"`{label}` is not valid punycode") from None
    return ascii_name


def host_problem(host: str) -> str | None:
    """Why `host` is refused before any rule is checked (None: it has a canonical form)."""
    try:
        canonical_host(host)
    except HostError as exc:
        return str(exc)
    return None


def shown_host(host: str) -> str:
    """`host` for a question or message: its canonical ASCII form, with the Unicode form beside it
    when they differ (`xn--pyp-lhd.test (Unicode: pypі.test)`); a refused name as a Python literal."""
    try:
        name = canonical_host(host)
    except HostError:
        return ascii(host)
    if "xn--" not in name:
        return name
    try:
        unicode = name.encode("ascii").decode("idna")
    except UnicodeError:
        return name
    return f"{name} (Unicode: {ascii(unicode)[1:-1] if not unicode.isprintable() else unicode})"


def canonical_pattern(pattern: str) -> str:
    """A rule's pattern in canonical form: `*`, `*.` plus a canonical name, or a canonical host."""
    pattern = pattern.strip()
    if pattern == "*":
        return pattern
    if pattern.startswith("*."):
        return "*." + canonical_host(pattern[2:])
    return canonical_host(pattern)


def is_loopback_name(host: str) -> bool:
    """`localhost` and names under it: matched only by an exact listing, never by `*` or a wildcard."""
    return host in ("localhost", "ip6-localhost", "ip6-loopback") or host.endswith(".localhost")


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
    """`host` and `pattern` are canonical; addresses and loopback names match only themselves."""
    if _is_ip(host) or is_loopback_name(host):
        return host == pattern
    return domain_matches(pattern, host)


@dataclass(frozen=True)
class DomainPolicy:
    """The allowed and denied name patterns (canonical: `canonical_pattern`)."""

    allowed: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()

    @classmethod
    def of(cls, allowed: Iterable[str], denied: Iterable[str] = ()) -> DomainPolicy:
        """From raw patterns, canonicalised (duplicates and invalid ones dropped, order kept: an
        invalid pattern could never match a canonical name)."""

        def clean(patterns: Iterable[str]) -> tuple[str, ...]:
            kept: dict[str, None] = {}
            for raw in patterns:
                with contextlib.suppress(HostError):
                    kept[canonical_pattern(raw)] = None
            return tuple(kept)

        return cls(clean(allowed), clean(denied))

    @property
    def enabled(self) -> bool:
        """Whether any name is open (without one the sandbox has no network)."""
        return bool(self.allowed)

    def verdict(self, host: str) -> Verdict:
        """`invalid` (no canonical form: `host_problem`), `deny` (a denied pattern matches), `allow`
        or `unlisted`."""
        try:
            name = canonical_host(host)
        except HostError:
            return "invalid"
        if any(_matches(name, p) for p in self.denied):
            return "deny"
        if any(_matches(name, p) for p in self.allowed):
            return "allow"
        return "unlisted"

    def describe(self) -> str:
        """`pypi.org, *.npmjs.org (denied: evil.example)` for `skawld -v` and the status line."""
        text = ", ".join(self.allowed) or "none"
        return text + (f" (denied: {', '.join(self.denied)})" if self.denied else "")
