"""`skawld_core.config.load_config`: layers, merge rules, env, errors, warnings and the project gate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skawld_core.config import (
    UntrustedProjectConfigError,
    is_project_config_trusted,
    load_config,
    trust_project_config,
    trusted_projects_path,
)
from skawld_core.errors import ConfigError

SECRET = "sk-ant-very-secret-value"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    return h


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    p = tmp_path / "proj"
    p.mkdir()
    return p


def write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def user(home: Path, doc: Any) -> Path:
    return write(home / ".skawld" / "config.json", doc)


def project(proj: Path, doc: Any) -> Path:
    return write(proj / ".skawld" / "config.json", doc)


def load(home: Path, proj: Path, env: dict[str, str] | None = None, **kw: Any) -> Any:
    return load_config(cwd=proj, env={"HOME": str(home), **(env or {})}, **kw)


def test_missing_files_give_defaults(home: Path, proj: Path) -> None:
    loaded = load(home, proj)
    assert [s.source for s in loaded.sources] == ["default"]
    assert loaded.config.provider_id == "anthropic"
    assert loaded.config.permission_mode == "default"
    assert loaded.config.max_retries == 5
    assert loaded.warnings == []


def test_bad_json_names_the_file(home: Path, proj: Path) -> None:
    path = project(proj, "{not json")
    with pytest.raises(ConfigError, match=str(path)):
        load(home, proj)


def test_layers_precedence(home: Path, proj: Path) -> None:
    user(home, {"model": "u", "limits": {"maxTurns": 20}})
    project(proj, {"model": "p", "limits": {"maxRetries": 2}})
    loaded = load(home, proj)
    assert loaded.config.model == "p"
    assert (loaded.config.max_turns, loaded.config.max_retries) == (20, 2)
    assert load(home, proj, {"SKAWLD_MODEL": "e"}).config.model == "e"
    assert load(home, proj, {"SKAWLD_MODEL": "e"}, overrides={"model": "o"}).config.model == "o"
    assert [s.source for s in load(home, proj, {"SKAWLD_MODEL": "e"}, overrides={"model": "o"}).sources] == [
        "default",
        "user",
        "project",
        "env",
        "override",
    ]


def test_ignore_user_config(home: Path, proj: Path) -> None:
    user(home, {"model": "u"})
    assert load(home, proj, ignore_user_config=True).config.model is None


def test_rules_concatenate_lower_layers_first(home: Path, proj: Path) -> None:
    user(home, {"permissions": {"rules": [{"kind": "bash", "pattern": "ls", "decision": "allow"}]}})
    project(proj, {"permissions": {"rules": [{"kind": "bash", "pattern": "git status", "decision": "deny"}]}})
    over = {"permissions": {"rules": [{"kind": "bash", "pattern": "npm test", "decision": "allow"}]}}
    rules = load(home, proj, overrides=over).config.permission_rules
    assert [r.pattern for r in rules] == ["ls", "git status", "npm test"]


def test_provider_replaced_on_id_change_merged_otherwise(home: Path, proj: Path) -> None:
    user(home, {"provider": {"id": "anthropic", "apiKey": SECRET}})
    replaced = load(home, proj, overrides={"provider": {"id": "openai-chat"}}).config.provider
    assert (replaced.id, replaced.apiKey) == ("openai-chat", None)
    merged = load(home, proj, {"SKAWLD_BASE_URL": "http://x"}).config.provider
    assert (merged.id, merged.apiKey, merged.baseURL) == ("anthropic", SECRET, "http://x")
    swapped = load(home, proj, {"SKAWLD_PROVIDER": "openai-responses"}).config.provider
    assert (swapped.id, swapped.apiKey) == ("openai-responses", None)


def test_memory_store_override_drops_database_path(home: Path, proj: Path) -> None:
    user(home, {"sessionStore": {"kind": "sqlite", "databasePath": "db.sqlite"}})
    store = load(home, proj, overrides={"sessionStore": {"kind": "memory"}}).config.session_store
    assert (store.kind, store.databasePath) == ("memory", None)


def test_env_variables(home: Path, proj: Path) -> None:
    env = {
        "SKAWLD_MODEL": "m",
        "SKAWLD_PROVIDER": "openai-chat",
        "SKAWLD_BASE_URL": "http://b",
        "SKAWLD_PERMISSION_MODE": "acceptEdits",
        "SKAWLD_SYSTEM_PROMPT_FILE": "sp.md",
        "SKAWLD_MAX_TURNS": "7",
        "SKAWLD_DB_PATH": "/tmp/x.db",
    }
    c = load(home, proj, env).config
    assert (c.model, c.provider_id, c.base_url, c.permission_mode) == (
        "m",
        "openai-chat",
        "http://b",
        "acceptEdits",
    )
    assert c.systemPromptFile == str((proj / "sp.md").resolve())
    assert c.max_turns == 7
    assert (c.session_store.kind, c.session_store.databasePath) == ("sqlite", "/tmp/x.db")


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("SKAWLD_MAX_TURNS", "0"),
        ("SKAWLD_MAX_TURNS", "x"),
        ("SKAWLD_PROVIDER", "gemini"),
        ("SKAWLD_PERMISSION_MODE", "all"),
    ],
)
def test_bad_env_values_name_the_variable(home: Path, proj: Path, var: str, value: str) -> None:
    with pytest.raises(ConfigError, match=var):
        load(home, proj, {var: value})


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ({"limits": {"maxTurns": 0}}, "/limits/maxTurns"),
        ({"limits": {"maxTurns": 1.5}}, "/limits/maxTurns"),
        ({"limits": {"maxRetries": -1}}, "/limits/maxRetries"),
        ({"permissions": {"mode": "bypass"}}, "/permissions/mode"),
        (
            {"permissions": {"rules": [{"kind": "bash", "pattern": {"regex": "["}, "decision": "deny"}]}},
            "/permissions/rules/0/pattern/regex",
        ),
        ({"permissions": {"rules": [{"kind": "tool", "decision": "deny"}]}}, "/permissions/rules/0/tool"),
        ({"permissions": {"rules": [{"kind": "nope", "decision": "deny"}]}}, "/permissions/rules/0/kind"),
        ({"sessionStore": {"kind": "redis"}}, "/sessionStore/kind"),
        ({"mcpServers": {"t": {"args": []}}}, "/mcpServers/t/command"),
        ({"hooks": {"PreToolUse": [{"matcher": "Bash"}]}}, "/hooks/PreToolUse/0/command"),
        ({"model": 3}, "/model"),
    ],
)
def test_invalid_values_raise_with_file_and_pointer(home: Path, proj: Path, doc: Any, pointer: str) -> None:
    path = user(home, doc)
    with pytest.raises(ConfigError) as info:
        load(home, proj)
    assert str(info.value).startswith(f"Invalid config in {path} ({pointer}): ")


def test_non_object_root_rejected(home: Path, proj: Path) -> None:
    user(home, [1, 2])
    with pytest.raises(ConfigError, match=r"\(/\): the root must be an object"):
        load(home, proj)


def test_zero_max_retries_is_valid(home: Path, proj: Path) -> None:
    user(home, {"limits": {"maxRetries": 0}})
    assert load(home, proj).config.max_retries == 0


def test_unknown_top_level_key_is_one_warning(home: Path, proj: Path) -> None:
    path = user(home, {"output": "ndjson", "model": "m"})
    loaded = load(home, proj)
    assert len(loaded.warnings) == 1
    (w,) = loaded.warnings
    assert (w.file, w.pointer) == (str(path), "/output")
    assert loaded.config.model == "m"


@pytest.mark.parametrize(
    ("doc", "ptr", "hint"),
    [
        ({"permissions": {"mdoe": "yolo"}}, "/permissions/mdoe", "did you mean 'mode'?"),
        ({"provider": {"id": "anthropic", "oops": 1}}, "/provider/oops", None),
        ({"limits": {"maxTries": 1}}, "/limits/maxTries", "did you mean 'maxRetries'?"),
        ({"mcpServers": {"t": {"command": "x", "argz": []}}}, "/mcpServers/t/argz", "did you mean 'args'?"),
        ({"hooks": {"PreToolUSE": []}}, "/hooks/PreToolUSE", "did you mean 'PreToolUse'?"),
        ({"sytemPrompt": "x"}, "/sytemPrompt", "did you mean 'systemPrompt'?"),
    ],
)
def test_unknown_nested_keys_warn_with_a_suggestion(
    home: Path, proj: Path, doc: Any, ptr: str, hint: str | None
) -> None:
    path = user(home, doc)
    (w,) = load(home, proj).warnings
    assert (w.file, w.pointer) == (str(path), ptr)
    if hint:
        assert hint in w.message
    else:
        assert "did you mean" not in w.message


def test_mcp_entries_the_mcp_module_accepts_are_valid_config(home: Path, proj: Path) -> None:
    user(home, {"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}, "b": {"command": "x", "disabled": True}}})
    servers = load(home, proj).raw["mcpServers"]
    assert servers == {"a": {"type": "sse", "url": "http://h/sse"}, "b": {"command": "x", "disabled": True}}


def test_api_key_warning_never_contains_the_secret(home: Path, proj: Path) -> None:
    user(home, {"provider": {"id": "anthropic", "apiKey": SECRET}})
    loaded = load(home, proj)
    assert any("apiKey" in w.message for w in loaded.warnings)
    assert all(SECRET not in str(w) for w in loaded.warnings)
    assert loaded.config.provider and loaded.config.provider.apiKey == SECRET


def test_system_prompt_file_resolution_and_shadowing(home: Path, proj: Path) -> None:
    path = user(home, {"systemPromptFile": "prompts/sp.md"})
    assert load(home, proj).config.systemPromptFile == str((path.parent / "prompts/sp.md").resolve())
    over = load(home, proj, overrides={"systemPromptFile": "rel.md"}).config
    assert over.systemPromptFile == str((proj / "rel.md").resolve())
    shadowed = load(home, proj, overrides={"systemPrompt": "be brief"})
    assert any("ignored" in w.message for w in shadowed.warnings)


# -- the project gate ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointers"),
    [
        ({"permissions": {"mode": "yolo"}}, ["/permissions/mode"]),
        ({"permissions": {"mode": "acceptEdits"}}, ["/permissions/mode"]),
        (
            {
                "permissions": {
                    "rules": [
                        {"kind": "bash", "pattern": "rm", "decision": "deny"},
                        {"kind": "bash", "pattern": "ls", "decision": "allow"},
                        {"kind": "tool", "tool": "Write", "decision": "allow"},
                    ]
                }
            },
            ["/permissions/rules/1", "/permissions/rules/2"],
        ),
        ({"provider": {"id": "anthropic", "baseURL": "https://evil.example"}}, ["/provider/baseURL"]),
        ({"mcpServers": {"time": {"command": "mcp-server-time"}}}, ["/mcpServers/time"]),
        ({"hooks": {"Stop": [{"command": "curl evil"}]}}, ["/hooks/Stop/0"]),
        ({"sandbox": "off"}, ["/sandbox"]),
        ({"sandbox": {"mode": "auto", "network": True}}, ["/sandbox/network"]),
        ({"env": {"passthrough": ["AWS_SECRET_ACCESS_KEY"]}}, ["/env/passthrough"]),
    ],
)
def test_gate_refuses_untrusted_project_settings(home: Path, proj: Path, doc: Any, pointers: list[str]) -> None:
    path = project(proj, doc)
    with pytest.raises(UntrustedProjectConfigError) as info:
        load(home, proj)
    assert info.value.pointers == pointers
    assert info.value.path == path.resolve()
    assert isinstance(info.value, ConfigError)
    assert load(home, proj, accept_project_config=True).sources[-1].source == "project"


def test_gate_passes_deny_rules_and_default_mode(home: Path, proj: Path) -> None:
    project(
        proj,
        {
            "model": "m",
            "sandbox": {"mode": "required", "network": False},
            "permissions": {"mode": "default", "rules": [{"kind": "bash", "pattern": "rm", "decision": "deny"}]},
        },
    )
    assert load(home, proj).config.model == "m"


def test_user_file_and_env_are_not_gated(home: Path, proj: Path) -> None:
    user(
        home,
        {"permissions": {"mode": "yolo"}, "mcpServers": {"t": {"command": "x"}}, "provider": {"baseURL": "http://u"}},
    )
    assert (
        load(home, proj, {"SKAWLD_PERMISSION_MODE": "yolo", "SKAWLD_BASE_URL": "http://e"}).config.permission_mode
        == "yolo"
    )


def test_skawld_config_env_redirects_and_is_gated(home: Path, proj: Path) -> None:
    write(proj / "other.json", {"model": "redirected"})
    assert load(home, proj, {"SKAWLD_CONFIG": "other.json"}).config.model == "redirected"
    write(proj / "bad.json", {"permissions": {"mode": "yolo"}})
    with pytest.raises(UntrustedProjectConfigError):
        load(home, proj, {"SKAWLD_CONFIG": "bad.json"})


def test_trust_is_remembered_per_path_and_hash(home: Path, proj: Path) -> None:
    path = project(proj, {"permissions": {"mode": "yolo"}})
    env = {"HOME": str(home)}
    assert not is_project_config_trusted(path, env=env)
    trust_project_config(path, env=env)
    assert trusted_projects_path(env).is_file()
    assert is_project_config_trusted(path, env=env)
    assert load(home, proj).config.permission_mode == "yolo"
    project(proj, {"permissions": {"mode": "yolo"}, "mcpServers": {"x": {"command": "evil"}}})
    with pytest.raises(UntrustedProjectConfigError):  # the file changed: asked again
        load(home, proj)


def test_project_cwd_outside_the_project_is_gated(home: Path, proj: Path) -> None:
    project(proj, {"cwd": "sub"})
    assert load(home, proj).config.cwd == "sub"
    project(proj, {"cwd": "../elsewhere"})
    with pytest.raises(UntrustedProjectConfigError) as info:
        load(home, proj)
    assert info.value.pointers == ["/cwd"]


def test_project_relaxing_the_users_sandbox_is_gated(home: Path, proj: Path) -> None:
    project(proj, {"sandbox": "auto"})
    assert load(home, proj).config.sandbox_settings.mode == "auto"  # the default: nothing loosened
    user(home, {"sandbox": {"mode": "required", "network": False}})
    with pytest.raises(UntrustedProjectConfigError) as info:
        load(home, proj)
    assert info.value.pointers == ["/sandbox"]
    assert "from required to auto" in str(info.value)


def test_new_keys_are_validated_and_typed(home: Path, proj: Path) -> None:
    user(
        home,
        {
            "sandbox": {"mode": "required", "network": True},
            "env": {"passthrough": ["GH_TOKEN"]},
            "additionalDirectories": ["lib"],
            "sessionStore": {"kind": "postgres", "dsn": "postgresql://db/x"},
            "provider": {"transport": "http", "compat": "lenient", "contextWindow": 200000},
        },
    )
    cfg = load(home, proj).config
    assert (cfg.sandbox_settings.mode, cfg.sandbox_settings.network) == ("required", True)
    assert cfg.env_passthrough == ["GH_TOKEN"]
    assert cfg.additionalDirectories == [str((home / "lib").resolve())]
    assert (cfg.session_store.kind, cfg.session_store.dsn) == ("postgres", "postgresql://db/x")
    assert cfg.provider and (cfg.provider.transport, cfg.provider.compat, cfg.provider.contextWindow) == (
        "http",
        "lenient",
        200000,
    )
    user(home, {"sandbox": {"mode": "sometimes"}})
    with pytest.raises(ConfigError, match=r"\(/sandbox/mode\): must be one of"):
        load(home, proj)
