"""Claude Code's `.mcp.json` and `${VAR}` expansion in MCP entries: loading, precedence, trust,
and real servers started from the expanded entries."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from skawld_core.config import UntrustedProjectConfigError, load_config, trust_project_config
from skawld_core.errors import ConfigError
from skawld_core.mcp.expand import UnsetVariableError, expand_server_entry, expand_text

FIXTURE_SERVER = str(Path(__file__).resolve().parents[1] / "fixtures" / "mcp_fixture_server.py")


def write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    (tmp_path / "proj").mkdir()
    return tmp_path / "proj"


def load(home: Path, proj: Path, env: dict[str, str] | None = None, **kw: Any) -> Any:
    return load_config(cwd=proj, env={"HOME": str(home), **(env or {})}, **kw)


# -- expansion ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("${A}", "alpha"),
        ("x-${A}-${B}", "x-alpha-beta"),
        ("${MISSING:-fallback}", "fallback"),
        ("${EMPTY:-fallback}", "fallback"),
        ("${A:-fallback}", "alpha"),
        ("${MISSING:-}", ""),
        ("$A stays", "$A stays"),
        ("${A", "${A"),
        ("${NESTED}", "${A}"),  # a value is expanded once
    ],
)
def test_expand_text(text: str, expected: str) -> None:
    env = {"A": "alpha", "B": "beta", "EMPTY": "", "NESTED": "${A}"}
    assert expand_text(text, env) == expected


def test_unset_variable_without_default_names_the_variable_and_place() -> None:
    with pytest.raises(UnsetVariableError) as info:
        expand_server_entry({"command": "srv", "env": {"TOKEN": "${GH_TOKEN}"}}, {})
    assert info.value.variable == "GH_TOKEN" and info.value.pointer == "/env/TOKEN"


def test_every_expandable_field_is_expanded() -> None:
    env = {"BIN": "/opt/bin", "HOST": "example.test", "KEY": "k-1"}
    stdio = expand_server_entry(
        {"command": "${BIN}/srv", "args": ["--dir", "${BIN}", 3], "env": {"K": "${KEY}"}, "cwd": "${BIN}"}, env
    )
    assert stdio == {"command": "/opt/bin/srv", "args": ["--dir", "/opt/bin", 3], "env": {"K": "k-1"}, "cwd": "${BIN}"}
    http = expand_server_entry({"type": "http", "url": "https://${HOST}/mcp", "headers": {"X": "Bearer ${KEY}"}}, env)
    assert http["url"] == "https://example.test/mcp" and http["headers"] == {"X": "Bearer k-1"}


# -- loading ----------------------------------------------------------------------------


def test_mcp_json_servers_load_once_the_project_is_accepted(home: Path, proj: Path) -> None:
    mcp = write(
        proj / ".mcp.json",
        {"mcpServers": {"fx": {"type": "stdio", "command": "${PY:-python3}", "args": ["${SERVER}"]}}},
    )
    env = {"SERVER": "/srv/fixture.py"}
    with pytest.raises(UntrustedProjectConfigError) as info:
        load(home, proj, env)
    assert "the MCP server 'fx': ${PY:-python3} ${SERVER}" in str(info.value)  # the unexpanded text is shown
    loaded = load(home, proj, env, accept_project_config=True)
    assert loaded.raw["mcpServers"]["fx"]["command"] == "python3"
    assert loaded.raw["mcpServers"]["fx"]["args"] == ["/srv/fixture.py"]
    assert loaded.origins["mcpServers.fx"] == str(mcp.resolve())
    assert str(mcp.resolve()) in [s.path for s in loaded.sources]

    trust_project_config(loaded.project_path, env={"HOME": str(home)}, extra=loaded.trust_extra)
    assert load(home, proj, env).raw["mcpServers"]["fx"]["command"] == "python3"
    write(proj / ".mcp.json", {"mcpServers": {"fx": {"command": "other-server"}}})  # a changed file asks again
    with pytest.raises(UntrustedProjectConfigError, match="other-server"):
        load(home, proj, env)


def test_skawld_config_wins_a_name_clash_and_the_loser_is_reported(home: Path, proj: Path) -> None:
    user = write(home / ".skawld" / "config.json", {"mcpServers": {"fx": {"command": "from-user"}}})
    write(proj / ".mcp.json", {"mcpServers": {"fx": {"command": "from-mcp-json"}, "other": {"command": "o"}}})
    loaded = load(home, proj, accept_project_config=True)
    assert loaded.raw["mcpServers"]["fx"]["command"] == "from-user"
    assert loaded.raw["mcpServers"]["other"]["command"] == "o"
    assert len(loaded.shadowed) == 1
    assert "MCP server 'fx'" in loaded.shadowed[0] and str(user.resolve()) in loaded.shadowed[0]


def test_a_clash_loser_asks_for_no_trust(home: Path, proj: Path) -> None:
    write(home / ".skawld" / "config.json", {"mcpServers": {"fx": {"command": "from-user"}}})
    write(proj / ".mcp.json", {"mcpServers": {"fx": {"command": "from-mcp-json"}}})
    loaded = load(home, proj)  # nothing left to run from the project: no prompt
    assert loaded.raw["mcpServers"] == {"fx": {"command": "from-user"}}


def test_unset_variable_skips_that_server_and_keeps_the_others(home: Path, proj: Path) -> None:
    mcp = write(
        proj / ".mcp.json",
        {"mcpServers": {"bad": {"command": "srv", "env": {"TOKEN": "${GH_TOKEN}"}}, "good": {"command": "ok"}}},
    )
    loaded = load(home, proj, accept_project_config=True)
    assert list(loaded.raw["mcpServers"]) == ["good"]
    (warning,) = [w for w in loaded.warnings if "GH_TOKEN" in w.message]
    assert "'bad'" in warning.message and warning.file == str(mcp.resolve())
    assert warning.pointer == "/mcpServers/bad/env/TOKEN"


def test_expansion_applies_to_skawld_config_too(home: Path, proj: Path) -> None:
    user = write(home / ".skawld" / "config.json", {"mcpServers": {"h": {"url": "http://${HOST:-127.0.0.1}:9/mcp"}}})
    loaded = load(home, proj)
    assert loaded.raw["mcpServers"]["h"]["url"] == "http://127.0.0.1:9/mcp"
    write(user, {"mcpServers": {"h": {"url": "http://127.0.0.1:9/mcp", "headers": {"A": "${NOPE}"}}}})
    loaded = load(home, proj)
    assert loaded.raw["mcpServers"] == {}
    assert any(w.file == str(user) and "NOPE" in w.message for w in loaded.warnings)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1]", "expected a JSON object"),
        ('{"mcpServers": []}', "/mcpServers"),
        ('{"mcpServers": {"x": {"type": "websocket", "url": "ws://a"}}}', "/mcpServers/x/type"),
        ('{"mcpServers": {"x": {"args": []}}}', "/mcpServers/x/command"),
        ("{oops", "Invalid JSON"),
    ],
)
def test_malformed_mcp_json_is_a_clear_error(home: Path, proj: Path, text: str, message: str) -> None:
    write(proj / ".mcp.json", text)
    with pytest.raises(ConfigError) as info:
        load(home, proj, accept_project_config=True)
    assert message in str(info.value) and ".mcp.json" in str(info.value)


def test_unknown_keys_are_warnings(home: Path, proj: Path) -> None:
    write(proj / ".mcp.json", {"mcpServers": {"x": {"command": "c", "oauth": {}}}, "version": 2})
    loaded = load(home, proj, accept_project_config=True)
    messages = " | ".join(str(w) for w in loaded.warnings)
    assert "'oauth'" in messages and "'version'" in messages


# -- real servers ---------------------------------------------------------------------------


async def test_expanded_mcp_json_entry_starts_a_real_server(home: Path, proj: Path) -> None:
    from skawld_core import Agent
    from skawld_core.sessions.memory import InMemorySessionStore
    from skawld_core.testing import ScriptedProvider, reply, tool_call

    write(
        proj / ".mcp.json",
        {
            "mcpServers": {
                "fx": {
                    "command": "${PYTHON}",
                    "args": [FIXTURE_SERVER, "--tool-name", "${TOOL:-from_default}"],
                    "env": {"GREETING": "hello ${WHO}"},
                },
                "broken": {"command": "${PYTHON}", "args": ["${UNSET_SERVER_PATH}"]},
            }
        },
    )
    env = {"PYTHON": sys.executable, "WHO": "world"}
    loaded = load(home, proj, env, accept_project_config=True)
    provider = ScriptedProvider(
        [
            reply(
                tool_call("mcp__fx__env_var", {"name": "GREETING"}, id="a"),
                tool_call("mcp__fx__from_default", {"text": "x"}, id="b"),
            ),
            reply("done"),
        ]
    )
    agent = Agent(
        provider=provider,
        model="test-model",
        tools=[],
        session_store=InMemorySessionStore(),
        cwd=proj,
        mcp_servers=loaded.raw["mcpServers"],
        permission_mode="yolo",
    )
    try:
        session = await agent.session()
        events = [e async for e in session.run("go")]
    finally:
        await agent.close()
    assert "mcp__fx__from_default" in agent.tools.names() and "broken" not in agent.mcp_servers
    contents = {
        b.tool_use_id: b.content
        for e in events
        if e.type == "user"
        for b in e.message.content
        if getattr(b, "type", "") == "tool_result"
    }
    assert contents["a"] == "hello world"
    assert contents["b"] == "extra: x"
