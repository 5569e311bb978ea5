"""`DomainPolicy`: which host names the sandbox's proxy lets through (no processes: the
proxy's own tests run it for real, `test_domain_proxy.py`)."""

from __future__ import annotations

import pytest

from skawld_core.sandbox.domains import DomainPolicy, domain_matches, normalize_host


@pytest.mark.parametrize(
    ("raw", "host"),
    [("PyPI.org", "pypi.org"), (" pypi.org. ", "pypi.org"), ("[::1]", "::1"), ("a.B.c", "a.b.c")],
)
def test_normalize_host(raw: str, host: str) -> None:
    assert normalize_host(raw) == host


@pytest.mark.parametrize(
    ("pattern", "host", "matches"),
    [
        ("*", "anything.at.all", True),
        ("pypi.org", "pypi.org", True),
        ("pypi.org", "files.pypi.org", False),
        ("pypi.org", "evilpypi.org", False),
        ("*.example.com", "a.example.com", True),
        ("*.example.com", "b.a.example.com", True),
        ("*.example.com", "example.com", False),
        ("*.example.com", ".example.com", False),  # no name before the dot
        ("*.example.com", "badexample.com", False),
        ("*.example.com", "example.com.evil", False),
    ],
)
def test_domain_matches(pattern: str, host: str, matches: bool) -> None:
    assert domain_matches(pattern, host) is matches


def test_verdicts_deny_wins_then_allow_then_unlisted() -> None:
    policy = DomainPolicy.of(["*.test", "pypi.org"], ["bad.test"])
    assert policy.verdict("pkgs.test") == "allow"
    assert policy.verdict("PyPI.org.") == "allow"  # normalized before matching
    assert policy.verdict("bad.test") == "deny"
    assert policy.verdict("BAD.test") == "deny"
    assert policy.verdict("other.example") == "unlisted"
    assert DomainPolicy.of([], ["*"]).verdict("pypi.org") == "deny"


def test_an_ip_literal_matches_only_itself() -> None:
    policy = DomainPolicy.of(["*", "10.0.0.1", "[::1]"])
    assert policy.verdict("10.0.0.1") == "allow"
    assert policy.verdict("::1") == "allow"
    assert policy.verdict("0:0:0:0:0:0:0:1") == "allow"  # the same address spelled out
    assert policy.verdict("127.0.0.1") == "unlisted"  # `*` covers names, never addresses
    assert policy.verdict("example.org") == "allow"
    assert DomainPolicy.of(["*.0.0.1"]).verdict("10.0.0.1") == "unlisted"
    assert DomainPolicy.of(["pypi.org"]).verdict("10.0.0.1") == "unlisted"
    assert DomainPolicy.of([], ["10.0.0.1"]).verdict("10.0.0.1") == "deny"
    assert DomainPolicy.of(["10.0.0.2"]).verdict("10.0.0.1") == "unlisted"


def test_of_cleans_the_patterns() -> None:
    policy = DomainPolicy.of(["PyPI.org", "pypi.org", "", "  ", "*.X.test"], ["Bad.test."])
    assert policy.allowed == ("pypi.org", "*.x.test")
    assert policy.denied == ("bad.test",)


def test_enabled_and_describe() -> None:
    assert not DomainPolicy.of([], ["bad.test"]).enabled
    assert DomainPolicy.of(["pypi.org"]).enabled
    assert DomainPolicy.of(["pypi.org", "*.npmjs.org"]).describe() == "pypi.org, *.npmjs.org"
    assert DomainPolicy.of(["pypi.org"], ["evil.example"]).describe() == "pypi.org (denied: evil.example)"
    assert DomainPolicy.of([]).describe() == "none"
