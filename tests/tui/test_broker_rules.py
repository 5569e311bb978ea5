"""What "always allow in this project" offers and saves, and how the loader's trust gate treats it.

Real parts: the tree-sitter analyzer, the permission engine, real settings files, a real
git repository for the ignore check, and `load_config` with its trust file in a temporary HOME.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from skawld_core.config import UntrustedProjectConfigError, load_config, trust_project_config
from skawld_core.permissions import PendingToolCall, PermissionEngine
from skawld_core.permissions.claude_rules import parse_claude_rules
from skawld_core.permissions.remembered import (
    forget_allow_rule,
    ledger_path,
    local_settings_path,
    remember_allow_rules,
    remembered_rules,
)
from skawld_core.permissions.suggest import suggest_rules
from skawld_tui.permission_broker import session_key

ROOT = Path("/work/project")


@pytest.mark.parametrize(
    ("command", "rules"),
    [
        ("npm run test", ["Bash(npm run test:*)"]),
        ("npm run test:unit -- --watch", ["Bash(npm run test:unit:*)"]),
        ("git log --oneline -5", ["Bash(git log:*)"]),
        ("docker compose up -d", ["Bash(docker compose up:*)"]),
        ("python -m pytest -q", ["Bash(python -m pytest:*)"]),
        ("ls -la src", ["Bash(ls:*)"]),
        ("cd src && npm test", ["Bash(cd:*)", "Bash(npm test:*)"]),
        ("git status | head -5", ["Bash(git status:*)", "Bash(head:*)"]),
        # programs that run anything their arguments say: the exact command only
        ("rm -rf build", ["Bash(rm -rf build)"]),
        ("python script.py", ["Bash(python script.py)"]),
        ("git -c core.pager=cat push", ["Bash(git -c core.pager=cat push)"]),
    ],
)
def test_bash_prefix_rules_are_one_per_simple_command(command: str, rules: list[str]) -> None:
    offer = suggest_rules("Bash", {"command": command}, project_root=ROOT)
    assert list(offer.rules) == rules
    assert offer.why_not is None


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("echo $(whoami)", "command substitution"),
        ("ls > out.txt", "file redirection"),
        ("sudo apt install x", "through sudo"),
        ("FOO=1 make", "variable assignment"),
        ("bash -c 'ls'", "through bash"),
        ("xargs rm < list", "redirection"),
    ],
)
def test_commands_no_rule_can_allow_are_offered_once_only(command: str, why: str) -> None:
    offer = suggest_rules("Bash", {"command": command}, project_root=ROOT)
    assert offer.rules == ()
    assert offer.why_not is not None and why in offer.why_not


def test_the_offered_bash_rule_allows_the_command_and_nothing_wider(tmp_path: Path) -> None:
    offer = suggest_rules("Bash", {"command": "npm run test -- --ci"}, project_root=tmp_path)
    engine = PermissionEngine(rules=parse_claude_rules(list(offer.rules), "allow").rules, project_root=tmp_path)

    def decide(command: str) -> str:
        call = PendingToolCall(
            tool_name="Bash", tool_use_id="t", input={"command": command}, summary="", scope="exec", cwd=tmp_path
        )
        return engine.evaluate(call).behavior

    assert decide("npm run test -- --ci") == "allow"
    assert decide("npm run test") == "allow"
    assert decide("npm run build") == "ask"
    assert decide("npm run test && rm -rf /") == "ask"  # the other command is not covered


def test_webfetch_answers_cover_the_one_host(tmp_path: Path) -> None:
    offer = suggest_rules("WebFetch", {"url": "https://docs.python.org/3/library/"}, project_root=tmp_path)
    assert offer.rules == ("WebFetch(domain:docs.python.org)",)
    engine = PermissionEngine(rules=parse_claude_rules(list(offer.rules), "allow").rules, project_root=tmp_path)

    def decide(url: str) -> str:
        call = PendingToolCall(
            tool_name="WebFetch", tool_use_id="t", input={"url": url}, summary="", scope="read", cwd=tmp_path
        )
        return engine.evaluate(call).behavior

    assert decide("https://docs.python.org/3/tutorial/") == "allow"
    assert decide("https://evil.example/") == "ask"
    # "this session" is per host too, never every domain
    assert session_key("WebFetch", {"url": "https://docs.python.org/x"}) == ("WebFetch", "docs.python.org")
    assert session_key("WebFetch", {"url": "https://a.example/"}) != session_key(
        "WebFetch", {"url": "https://b.example/"}
    )


def test_edit_rules_are_the_files_directory_inside_the_project(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    edit = suggest_rules("Edit", {"file_path": str(tmp_path / "src" / "pkg" / "a.py")}, project_root=tmp_path)
    assert edit.rules == ("Edit(src/pkg/**)",)
    top = suggest_rules("Write", {"file_path": "notes.md"}, project_root=tmp_path, cwd=tmp_path)
    assert top.rules == ("Edit(./notes.md)",)
    outside = suggest_rules("Write", {"file_path": "/etc/hosts"}, project_root=tmp_path)
    assert outside.rules == () and "outside the project" in str(outside.why_not)
    assert suggest_rules("Read", {"file_path": "/etc/hosts"}, project_root=tmp_path).rules == ("Read(//etc/hosts)",)
    home = suggest_rules("Grep", {"pattern": "x", "path": str(Path.home())}, project_root=tmp_path)
    assert home.rules == () and "too wide" in str(home.why_not)
    assert suggest_rules("mcp__srv__tool", {}, project_root=tmp_path).rules == ("mcp__srv__tool",)
    assert suggest_rules("Skill", {"skill": "deploy"}, project_root=tmp_path).rules == ("Skill(deploy)",)


def _git_repo(path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True, capture_output=True)
    return path


def test_remember_keeps_other_keys_records_the_rule_and_gitignores_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    repo = _git_repo(tmp_path / "repo")
    settings = repo / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"model": "m", "permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(ls:*)"]}}))
    path = remember_allow_rules(repo, ["Bash(npm run test:*)", "Bash(ls:*)"])
    assert path == local_settings_path(repo)
    doc = json.loads(settings.read_text())
    assert doc == {
        "model": "m",
        "permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(ls:*)", "Bash(npm run test:*)"]},
    }
    assert remembered_rules(settings) == {"Bash(npm run test:*)", "Bash(ls:*)"}
    assert json.loads(ledger_path().read_text())["files"][str(settings.resolve())]
    check = subprocess.run(["git", "check-ignore", "-q", str(settings)], cwd=repo, check=False)
    assert check.returncode == 0, "the local settings file must be ignored by git"
    assert (repo / ".gitignore").read_text().count("/.claude/settings.local.json") == 1
    remember_allow_rules(repo, ["Bash(make:*)"])  # already ignored: .gitignore is not touched again
    assert (repo / ".gitignore").read_text().count("/.claude/settings.local.json") == 1

    assert forget_allow_rule(repo, "Bash(npm run test:*)")
    assert json.loads(settings.read_text())["permissions"]["allow"] == ["Bash(ls:*)", "Bash(make:*)"]
    assert "Bash(npm run test:*)" not in remembered_rules(settings)
    assert not forget_allow_rule(repo, "Bash(npm run test:*)")


def test_a_malformed_local_settings_file_is_an_error_and_stays_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skawld_core.errors import ConfigError

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    settings = tmp_path / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text("{not json")
    with pytest.raises(ConfigError, match=r"settings\.local\.json"):
        remember_allow_rules(tmp_path, ["Bash(ls:*)"])
    assert settings.read_text() == "{not json"
    with pytest.raises(ConfigError, match="Cannot remember"):
        remember_allow_rules(tmp_path, ["Bash(ls"])
    assert not ledger_path().exists()


def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home)}


def test_the_trust_gate_exempts_only_the_users_own_remembered_rules(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    repo.mkdir()
    settings = repo / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    # a cloned repository ships a pre-filled local file: it widens nothing before trust
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(curl:*)"]}}))
    with pytest.raises(UntrustedProjectConfigError):
        load_config(cwd=repo, env=_env(home))
    settings.unlink()
    # the user's own answer: no trust prompt, and the rule applies
    remember_allow_rules(repo, ["Bash(npm test:*)"], env=_env(home))
    loaded = load_config(cwd=repo, env=_env(home))
    assert {"kind": "bash", "pattern": "npm test", "decision": "allow"} in loaded.raw["permissions"]["rules"]
    # something added by hand (or by a repository) next to it still asks for trust
    doc = json.loads(settings.read_text())
    doc["permissions"]["allow"].append("Bash(curl:*)")
    settings.write_text(json.dumps(doc))
    with pytest.raises(UntrustedProjectConfigError) as err:
        load_config(cwd=repo, env=_env(home))
    assert "curl" in str(err.value) and "npm test" not in str(err.value)


def test_an_accepted_project_stays_accepted_when_the_user_saves_a_rule(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    repo.mkdir()
    (repo / ".skawld").mkdir()
    (repo / ".skawld" / "config.json").write_text(json.dumps({"permissions": {"mode": "acceptEdits"}}))
    settings = repo / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"permissions": {"allow": ["Bash(make:*)"], "deny": ["Read(./.env)"]}}))
    with pytest.raises(UntrustedProjectConfigError) as err:
        load_config(cwd=repo, env=_env(home))
    trust_project_config(err.value.path, env=_env(home), extra=err.value.extra)
    assert load_config(cwd=repo, env=_env(home)).project_trusted
    remember_allow_rules(repo, ["Bash(npm test:*)"], env=_env(home))
    loaded = load_config(cwd=repo, env=_env(home))  # no new trust prompt
    assert loaded.project_trusted
    assert {"kind": "bash", "pattern": "npm test", "decision": "allow"} in loaded.raw["permissions"]["rules"]
    forget_allow_rule(repo, "Bash(npm test:*)", env=_env(home))
    assert load_config(cwd=repo, env=_env(home)).project_trusted
