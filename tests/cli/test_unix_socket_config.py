"""`sandbox.network.allowAllUnixSockets` (skawld's config and Claude Code's settings): it
reaches the sandbox, the project's copy needs the user's trust, and `skawld -v` warns."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skawld_core.config import UntrustedProjectConfigError, load_config
from skawld_core.errors import ConfigError
from skawld_core.sandbox import ShellPolicy, probe_bwrap
from skawld_core.settings import CliOptions, resolve_settings
from tests.cli.harness import CliEnv
from tests.support.wire_server import text, turn

pytestmark = pytest.mark.timeout(60)

ALLOW = {"sandbox": {"network": {"allowAllUnixSockets": True}}}


def write(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    return tmp_path / "proj"


def test_the_user_key_reaches_the_sandbox_settings(home: Path, proj: Path) -> None:
    write(home / ".skawld" / "config.json", {"sandbox": {"mode": "required", "network": True}})
    write(home / ".claude" / "settings.json", ALLOW)
    settings = resolve_settings(CliOptions(cwd=str(proj)), env={"HOME": str(home)})
    # network: true (bool) and the object from another layer merge key by key
    assert settings.sandbox == {"mode": "required", "network": True, "allow_all_unix_sockets": True}
    policy = ShellPolicy(sandbox=settings.sandbox)
    assert policy.settings.allow_all_unix_sockets


def test_off_by_default(home: Path, proj: Path) -> None:
    settings = resolve_settings(CliOptions(cwd=str(proj)), env={"HOME": str(home)})
    assert "allow_all_unix_sockets" not in settings.sandbox


@pytest.mark.parametrize("where", [Path(".skawld") / "config.json", Path(".claude") / "settings.json"])
def test_a_project_that_allows_unix_sockets_needs_trust(home: Path, proj: Path, where: Path) -> None:
    write(proj / where, ALLOW)
    with pytest.raises(UntrustedProjectConfigError) as info:
        load_config(cwd=proj, env={"HOME": str(home)})
    assert "/sandbox/network/allowAllUnixSockets" in info.value.pointers
    loaded = load_config(cwd=proj, env={"HOME": str(home)}, accept_project_config=True)
    assert loaded.config.sandbox_settings.allow_all_unix_sockets


def test_a_bad_value_names_the_pointer(home: Path, proj: Path) -> None:
    write(home / ".claude" / "settings.json", {"sandbox": {"network": {"allowAllUnixSockets": "yes"}}})
    with pytest.raises(ConfigError, match="/sandbox/network/allowAllUnixSockets"):
        load_config(cwd=proj, env={"HOME": str(home)})


def test_other_claude_sandbox_keys_are_reported_not_applied(home: Path, proj: Path) -> None:
    write(home / ".claude" / "settings.json", {"sandbox": {"enabled": True, "network": {"allowLocalBinding": True}}})
    settings = resolve_settings(CliOptions(cwd=str(proj)), env={"HOME": str(home)})
    notes = " ".join(str(w) for w in settings.warnings)
    assert "sandbox.enabled" in notes and "sandbox.network.allowLocalBinding" in notes
    assert "allow_all_unix_sockets" not in settings.sandbox


@pytest.mark.skipif(
    not probe_bwrap().ok and os.environ.get("CI") != "true", reason=f"bubblewrap cannot start: {probe_bwrap().reason}"
)
def test_skawld_v_warns(cli: CliEnv) -> None:
    cli.write_user_config(ALLOW)
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--json", "--sandbox", "-v"))
    assert out.returncode == 0, out.stderr
    assert "warning: host Unix sockets are reachable (sandbox.network.allowAllUnixSockets" in out.stderr
    system = json.loads(out.stdout.splitlines()[0])
    assert system["sandbox"]["unix_sockets"] is True


DOMAINS = {"sandbox": {"network": {"allowedDomains": ["pypi.org", "*.npmjs.org"], "deniedDomains": ["evil.npmjs.org"]}}}


@pytest.mark.parametrize("where", [Path(".skawld") / "config.json", Path(".claude") / "settings.json"])
def test_domains_reach_the_policy_and_a_projects_allowed_domains_need_trust(
    home: Path, proj: Path, where: Path
) -> None:
    write(proj / where, DOMAINS)
    with pytest.raises(UntrustedProjectConfigError) as info:
        load_config(cwd=proj, env={"HOME": str(home)})
    assert "pypi.org, *.npmjs.org" in str(info.value)
    settings = resolve_settings(CliOptions(cwd=str(proj), accept_project_config=True), env={"HOME": str(home)})
    policy = ShellPolicy(sandbox=settings.sandbox)
    assert policy.domains.allowed == ("pypi.org", "*.npmjs.org") and policy.domains.denied == ("evil.npmjs.org",)
    assert policy.domains.verdict("registry.npmjs.org") == "allow"
    assert policy.domains.verdict("evil.npmjs.org") == "deny"
    assert policy.domains.verdict("example.com") == "unlisted"


def test_malformed_claude_domains_are_a_config_error(home: Path, proj: Path) -> None:
    write(home / ".claude" / "settings.json", {"sandbox": {"network": {"allowedDomains": "pypi.org"}}})
    with pytest.raises(ConfigError, match="allowedDomains"):
        load_config(cwd=proj, env={"HOME": str(home)})
