"""`skawld_core.settings`: flag specs, settings resolution, instruction files, provider choice."""

from __future__ import annotations

from pathlib import Path

import pytest

from skawld_core.errors import ConfigError
from skawld_core.providers.registry import MissingApiKeyError
from skawld_core.settings import CliOptions, resolve_api_key, resolve_settings, tool_rules


def test_tool_specs_become_rules() -> None:
    assert tool_rules(
        ["Read,Glob", "Bash(git status) Bash(npm:*)", "Edit(src/**)", "Skill(deploy)", "Bash(*)"], "allow"
    ) == [
        {"kind": "tool", "tool": "Read", "decision": "allow"},
        {"kind": "tool", "tool": "Glob", "decision": "allow"},
        {"kind": "bash", "pattern": {"regex": r"^\s*git\s+status\s*$"}, "decision": "allow"},
        {"kind": "bash", "pattern": "npm", "decision": "allow"},
        {"kind": "path", "tools": [], "paths": ["src/**"], "decision": "allow", "family": "edit"},
        {"kind": "tool", "tool": "Skill", "arg": "deploy", "decision": "allow"},
        {"kind": "tool", "tool": "Bash", "decision": "allow"},
    ]
    with pytest.raises(ValueError, match="bad tool spec"):
        tool_rules(["Bash(oops"], "deny")


def _env(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), **extra}


def test_settings_from_flags_and_files(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    (home / ".skawld").mkdir(parents=True)
    (repo / ".git").mkdir(parents=True)
    (home / ".skawld" / "config.json").write_text(
        '{"model": "from-user", "permissions": {"rules": [{"kind": "bash", "pattern": "ls", "decision": "allow"}]},'
        ' "configDirs": ["extra"]}'
    )
    settings = resolve_settings(
        CliOptions(
            cwd=str(repo),
            model="from-flag",
            allowed_tools=("Read",),
            disallowed_tools=("Bash(rm:*)",),
            max_turns=3,
        ),
        env=_env(home),
    )
    assert settings.model == "from-flag" and settings.max_turns == 3
    assert [getattr(r, "pattern", None) or getattr(r, "tool", None) for r in settings.permission_rules] == [
        "rm",
        "ls",
        "Read",
    ]
    assert settings.permission_rules[0].decision == "deny"
    assert settings.config_dirs == [
        repo / ".skawld",
        repo / ".claude",
        home / ".skawld" / "extra",
        home / ".skawld",
        home / ".claude",
    ]
    assert settings.store_path == repo / ".skawld" / "sessions.db"


def test_missing_cwd_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        resolve_settings(CliOptions(cwd=str(tmp_path / "nope")), env=_env(tmp_path))


def test_api_key_resolution(tmp_path: Path) -> None:
    settings = resolve_settings(CliOptions(cwd=str(tmp_path)), env=_env(tmp_path))
    with pytest.raises(MissingApiKeyError, match="ANTHROPIC_API_KEY"):
        resolve_api_key(settings)
    settings.env = {"ANTHROPIC_API_KEY": "k"}
    assert resolve_api_key(settings) == "k"
    local = resolve_settings(
        CliOptions(cwd=str(tmp_path), provider="openai-chat", base_url="http://127.0.0.1:1/v1"), env=_env(tmp_path)
    )
    assert resolve_api_key(local)  # a local OpenAI-compatible server needs no key


def test_provider_options_are_passed_as_keywords() -> None:
    from skawld_core.providers.anthropic import AnthropicProvider
    from skawld_core.providers.registry import provider_options

    assert provider_options(AnthropicProvider, {"timeout": 30, "defaultHeaders": {"x-team": "a"}}) == {
        "timeout": 30,
        "default_headers": {"x-team": "a"},
    }
    with pytest.raises(ConfigError, match=r"provider.options.apiKey"):
        provider_options(AnthropicProvider, {"apiKey": "k"})
