"""`DomainPolicy`: which host names the sandbox's proxy lets through (no processes: the
proxy's own tests run it for real, `test_domain_proxy.py`)."""

from __future__ import annotations

import pytest

from skawld_core.sandbox.domains import DomainPolicy, HostError, canonical_host, domain_matches, shown_host


@pytest.mark.parametrize(
    ("raw", "host"),
    [
        ("PyPI.org", "pypi.org"),
        ("pypi.org.", "pypi.org"),
        ("[::1]", "::1"),
        ("[::ffff:127.0.0.2]", "127.0.0.2"),
        ("a.B.c", "a.b.c"),
        ("Bücher.test", "xn--bcher-kva.test"),
        ("_dmarc.example.com", "_dmarc.example.com"),
        ("2130706434", "127.0.0.2"),
        ("0x7f000002", "127.0.0.2"),
        ("127.2", "127.0.0.2"),
        ("0x7f.2", "127.0.0.2"),
        ("0177.0.0.2", "127.0.0.2"),
        ("0", "0.0.0.0"),
    ],
)
def test_canonical_host(raw: str, host: str) -> None:
    assert canonical_host(raw) == host


@pytest.mark.parametrize(
    "raw",
    ["", ".", "a..b", "bad.test..", " pypi.org", "bad.test\x00", "a\x1b[8m.b", "a b", "*", "*.example", "a/b",
     "xn--zz-.test", "1.2.3.4.5", "999.test.123", "a:b"],
)  # fmt: skip
def test_names_without_a_canonical_form_are_refused(raw: str) -> None:
    with pytest.raises(HostError):
        canonical_host(raw)
    assert DomainPolicy.of(["*"]).verdict(raw) == "invalid"


def test_a_name_is_shown_in_ascii_with_its_unicode_form_beside_it() -> None:
    assert shown_host("xn--pyp-lhd.test") == "xn--pyp-lhd.test (Unicode: pyp\u0456.test)"
    assert shown_host("pypi.test") == "pypi.test"
    assert shown_host("a\x1bb") == "'a\\x1bb'"


def test_numbers_and_loopback_names_match_only_an_exact_listing() -> None:
    star = DomainPolicy.of(["*", "*.localhost"])
    for host in ("2130706434", "0", "localhost", "a.localhost", "127.0.0.1", "::1"):
        assert star.verdict(host) == "unlisted", host
    listed = DomainPolicy.of(["127.0.0.2", "LocalHost."])
    assert listed.verdict("0x7f.2") == "allow" and listed.verdict("localhost") == "allow"
    assert DomainPolicy.of(["*.test"], ["Bücher.test"]).verdict("xn--bcher-kva.test") == "deny"


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
