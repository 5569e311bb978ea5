"""WebFetch permissions: domain rules (Claude Code syntax), asking per domain, the trust gate,
and a run through `Agent` against the wire server and a real site on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from skawld_core import Agent
from skawld_core.config import UntrustedProjectConfigError, load_config
from skawld_core.permissions import CanUseToolRequest, PendingToolCall, PermissionAllow, PermissionEngine
from skawld_core.permissions.claude_rules import parse_claude_rule
from skawld_core.permissions.domains import always_allow_rule, domain_matches
from skawld_core.permissions.rules import DomainRule, parse_rule
from skawld_core.sessions.memory import InMemorySessionStore
from skawld_core.tools import WebFetchTool
from tests.support.events import tool_results
from tests.support.provider_kit import make_provider
from tests.support.wire_server import WireServer, text, tool_call, turn

from .web_site import Site, serve_site

pytestmark = pytest.mark.timeout(60)


def pending(url: str, tool: str = "WebFetch") -> PendingToolCall:
    return PendingToolCall(
        tool_name=tool, tool_use_id="t1", input={"url": url}, summary=f"WebFetch {url}", scope="read", cwd=Path("/")
    )


def decide(tmp_path: Path, url: str, rules: Sequence[Any] = (), mode: Any = "default") -> tuple[str, str | None]:
    engine = PermissionEngine(mode=mode, rules=rules, project_root=tmp_path)
    d = engine.evaluate(pending(url))
    return d.behavior, d.reason


def test_domain_matching() -> None:
    assert domain_matches("docs.python.org", "docs.python.org")
    assert not domain_matches("docs.python.org", "python.org")
    assert not domain_matches("python.org", "docs.python.org")
    assert domain_matches("*.example.com", "a.b.example.com")
    assert not domain_matches("*.example.com", "example.com")
    assert not domain_matches("*.example.com", "badexample.com")
    assert domain_matches("*", "anything.org")


def test_webfetch_asks_per_domain_by_default_in_every_mode_but_yolo(tmp_path: Path) -> None:
    for mode in ("default", "acceptEdits", "plan"):
        behavior, reason = decide(tmp_path, "https://docs.python.org/3/", mode=mode)
        assert behavior == "ask", mode
        assert reason == "WebFetch asks for each domain; no rule allows docs.python.org."
    assert decide(tmp_path, "https://docs.python.org/", mode="yolo")[0] == "allow"


def test_domain_rules_allow_deny_and_ask(tmp_path: Path) -> None:
    rules = [
        DomainRule(domains=["evil.example"], decision="deny"),
        DomainRule(domains=["*.python.org", "pypi.org"], decision="allow"),
        DomainRule(domains=["*"], decision="ask"),
    ]
    assert decide(tmp_path, "https://docs.python.org/3/", rules)[0] == "allow"
    assert decide(tmp_path, "http://PyPI.org./simple", rules)[0] == "allow"  # case and trailing dot ignored
    assert decide(tmp_path, "https://python.org/", rules)[0] == "ask"
    assert decide(tmp_path, "https://evil.example/x", rules)[0] == "deny"
    assert decide(tmp_path, "https://evil.example/x", rules, mode="yolo")[0] == "deny"  # a deny always wins
    # A domain rule decides only the tools it names (WebFetch by default).
    other = DomainRule(tools=["OtherFetch"], domains=["docs.python.org"], decision="allow")
    assert decide(tmp_path, "https://docs.python.org/", [other])[0] == "ask"


def test_domain_rules_match_the_sandboxs_canonical_form(tmp_path: Path) -> None:
    """One name, whatever its spelling: IDNA (Unicode rule, punycode URL and back), IPv4 spellings."""
    rules = [DomainRule(domains=["bücher.example", "xn--pyp-lhd.example", "127.0.0.2"], decision="deny")]
    assert decide(tmp_path, "https://xn--bcher-kva.example/", rules)[0] == "deny"
    assert decide(tmp_path, "https://pypі.example/", rules)[0] == "deny"
    assert decide(tmp_path, "http://2130706434/", rules)[0] == "deny"
    allow = [DomainRule(domains=["*"], decision="allow")]
    assert decide(tmp_path, "http://a%01b.example/", allow)[0] != "allow"  # no canonical form: never an allow


def test_rule_json_shape_and_bad_domains() -> None:
    rule = parse_rule({"kind": "domain", "domains": ["Docs.Python.org", "[::1]"], "decision": "allow"})
    assert isinstance(rule, DomainRule) and rule.domains == ["docs.python.org", "::1"]
    for bad in ("https://x.org", "x.org/path", "", "a b", "*x.org", "x.org:443"):
        with pytest.raises(Exception, match="domain"):
            parse_rule({"kind": "domain", "domains": [bad], "decision": "allow"})


def test_claude_code_syntax() -> None:
    allow = parse_claude_rule("WebFetch(domain:docs.python.org)", "allow")
    assert allow.dicts() == [
        {"kind": "domain", "tools": ["WebFetch"], "domains": ["docs.python.org"], "decision": "allow"}
    ]
    assert allow.notes == []
    assert parse_claude_rule("WebFetch(domain:*.example.com)", "deny").rules[0].domains == ["*.example.com"]  # type: ignore[union-attr]
    assert parse_claude_rule("WebFetch", "deny").dicts() == [{"kind": "tool", "tool": "WebFetch", "decision": "deny"}]
    for bad in ("WebFetch(example.com)", "WebFetch(domain:)", "WebFetch(domain:https://x.org)"):
        with pytest.raises(ValueError, match="bad tool spec"):
            parse_claude_rule(bad, "allow")


def test_always_allow_becomes_a_domain_rule(tmp_path: Path) -> None:
    rule = always_allow_rule("WebFetch", {"url": "https://docs.python.org/3/library/"})
    assert rule == DomainRule(domains=["docs.python.org"], decision="allow")
    assert always_allow_rule("Bash", {"command": "ls"}) is None
    engine = PermissionEngine(project_root=tmp_path)
    engine.add_rule(rule)
    assert engine.evaluate(pending("https://docs.python.org/3/tutorial/")).behavior == "allow"
    assert engine.evaluate(pending("https://pypi.org/")).behavior == "ask"


# -- the trust gate -------------------------------------------------------------------------------------


def _write(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


def test_project_config_cannot_preallow_a_domain_without_trust(tmp_path: Path) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    rules = [
        {"kind": "domain", "domains": ["evil.example"], "decision": "deny"},
        {"kind": "domain", "domains": ["exfil.example"], "decision": "allow"},
    ]
    _write(proj / ".skawld" / "config.json", {"permissions": {"rules": rules}})
    with pytest.raises(UntrustedProjectConfigError) as info:
        load_config(cwd=proj, env={"HOME": str(home)})
    assert info.value.pointers == ["/permissions/rules/1"]
    assert "WebFetch(domain:exfil.example)" in str(info.value)
    loaded = load_config(cwd=proj, env={"HOME": str(home)}, accept_project_config=True)
    assert loaded.raw["permissions"]["rules"] == rules


def test_claude_settings_allow_needs_trust_and_deny_does_not(tmp_path: Path) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    settings = proj / ".claude" / "settings.json"
    _write(settings, {"permissions": {"deny": ["WebFetch(domain:evil.example)"]}})
    rules = load_config(cwd=proj, env={"HOME": str(home)}).raw["permissions"]["rules"]
    assert rules == [{"kind": "domain", "tools": ["WebFetch"], "domains": ["evil.example"], "decision": "deny"}]
    _write(settings, {"permissions": {"allow": ["WebFetch(domain:exfil.example)"]}})
    with pytest.raises(UntrustedProjectConfigError) as info:
        load_config(cwd=proj, env={"HOME": str(home)})
    assert "WebFetch(domain:exfil.example)" in str(info.value)


# -- through the Agent ------------------------------------------------------------------------------------


@pytest.fixture
def site() -> Iterator[Site]:
    with serve_site() as s:
        yield s


@pytest.fixture
def wire() -> Iterator[WireServer]:
    with WireServer() as srv:
        yield srv


async def _run(wire: WireServer, tmp_path: Path, url: str, **agent_kw: Any) -> str:
    wire.anthropic.enqueue(turn(tool_call("WebFetch", {"url": url}, id="w1")), turn(text("done")))
    agent = Agent(
        provider=make_provider("anthropic", wire),
        model="m",
        tools=[WebFetchTool()],
        session_store=InMemorySessionStore(),
        cwd=tmp_path,
        **agent_kw,
    )
    session = await agent.session()
    events = [e async for e in session.run("fetch it")]
    assert events[-1].type == "result"
    return tool_results(events)["w1"]


async def test_denied_domain_is_never_requested(wire: WireServer, site: Site, tmp_path: Path) -> None:
    rules = parse_claude_rule("WebFetch(domain:127.0.0.1)", "deny").rules
    out = await _run(wire, tmp_path, site.url("/page"), permission_rules=rules, permission_mode="yolo")
    assert "denied" in out.lower()
    assert site.paths == []
    sent = json.dumps(wire.anthropic.requests[-1].body["messages"][-1])
    assert "Widget API" not in sent


async def test_allowed_domain_runs_without_asking(wire: WireServer, site: Site, tmp_path: Path) -> None:
    asked: list[CanUseToolRequest] = []

    async def ask(req: CanUseToolRequest) -> PermissionAllow:
        asked.append(req)
        return PermissionAllow()

    rules = parse_claude_rule("WebFetch(domain:127.0.0.1)", "allow").rules
    out = await _run(wire, tmp_path, site.url("/page"), permission_rules=rules, can_use_tool=ask)
    assert out.startswith("# Widget API") and asked == []
    assert "## Rate limits" in json.dumps(wire.anthropic.requests[-1].body["messages"][-1])


async def test_other_domain_asks_with_the_host_named(wire: WireServer, site: Site, tmp_path: Path) -> None:
    asked: list[CanUseToolRequest] = []

    async def ask(req: CanUseToolRequest) -> PermissionAllow:
        asked.append(req)
        return PermissionAllow()

    rules = parse_claude_rule("WebFetch(domain:docs.python.org)", "allow").rules
    out = await _run(wire, tmp_path, site.url("/plain"), permission_rules=rules, can_use_tool=ask)
    assert out == "just text\n"
    assert [r.tool_name for r in asked] == ["WebFetch"]
    assert asked[0].reason == "WebFetch asks for each domain; no rule allows 127.0.0.1."
