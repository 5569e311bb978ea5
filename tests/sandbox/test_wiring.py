"""How the sandbox is configured and reported: Agent keyword, config, the system
event, and acceptEdits allowing sandboxed Bash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from skawld_core import Agent
from skawld_core.errors import ConfigError
from skawld_core.events import SystemEvent, to_json
from skawld_core.permissions import PermissionEngine
from skawld_core.permissions.types import PendingToolCall
from skawld_core.sandbox import SandboxSettings, coerce_sandbox
from skawld_core.sessions import InMemorySessionStore
from skawld_core.settings import CliOptions, resolve_settings
from skawld_core.testing import ScriptedProvider, reply
from skawld_core.tools import BashTool, default_tools

from .conftest import needs_bwrap


def agent(cwd: Path, **kw: Any) -> Agent:
    kw.setdefault("tools", default_tools())
    return Agent(
        provider=ScriptedProvider([reply("ok")]), model="m", session_store=InMemorySessionStore(), cwd=cwd, **kw
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, SandboxSettings()),
        ("off", SandboxSettings(mode="off")),
        ("required", SandboxSettings(mode="required")),
        ({"mode": "auto", "network": True}, SandboxSettings(network=True)),
        (SandboxSettings(mode="off"), SandboxSettings(mode="off")),
    ],
)
def test_sandbox_forms(value: Any, expected: SandboxSettings) -> None:
    assert coerce_sandbox(value) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("sometimes", "sandbox must be one of off, auto, required"),
        ({"mode": "on"}, "sandbox.mode"),
        ({"network": "yes"}, "sandbox.network"),
        ({"proxy": 1}, "sandbox.proxy"),
        (3, "sandbox must be a mode string or a mapping"),
    ],
)
def test_bad_sandbox_values_are_config_errors(tmp_path: Path, value: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        agent(tmp_path, sandbox=value)


def test_default_is_auto(tmp_path: Path) -> None:
    assert agent(tmp_path).sandbox == SandboxSettings(mode="auto", network=False)


def bash_call(cwd: Path) -> PendingToolCall:
    return PendingToolCall(
        tool_name="Bash", tool_use_id="t", input={"command": "make test"}, summary="", scope="exec", cwd=cwd
    )


@needs_bwrap
def test_accept_edits_allows_sandboxed_bash(tmp_path: Path) -> None:
    sandboxed = agent(tmp_path, permission_mode="acceptEdits", sandbox="auto")
    assert sandboxed.permissions.evaluate(bash_call(tmp_path)).behavior == "allow"
    plain = agent(tmp_path, permission_mode="acceptEdits", sandbox="off")
    assert plain.permissions.evaluate(bash_call(tmp_path)).behavior == "ask"
    default_mode = agent(tmp_path, permission_mode="default", sandbox="auto")
    assert default_mode.permissions.evaluate(bash_call(tmp_path)).behavior == "ask"


@needs_bwrap
def test_deny_rules_still_win_when_sandboxed(tmp_path: Path) -> None:
    rules = [{"kind": "bash", "pattern": "make", "decision": "deny"}]
    a = agent(tmp_path, permission_mode="acceptEdits", permission_rules=rules)
    assert a.permissions.evaluate(bash_call(tmp_path)).behavior == "deny"


def test_engine_alone_never_assumes_a_sandbox(tmp_path: Path) -> None:
    engine = PermissionEngine(mode="acceptEdits", project_root=tmp_path)
    assert engine.evaluate(bash_call(tmp_path)).behavior == "ask"


async def first_event(a: Agent) -> SystemEvent:
    async with a:
        session = await a.session()
        events = [e async for e in session.run("hi")]
    assert isinstance(events[0], SystemEvent)
    return events[0]


@needs_bwrap
async def test_system_event_reports_the_sandbox(tmp_path: Path) -> None:
    event = await first_event(agent(tmp_path))
    assert event.sandbox is not None and event.sandbox.active and not event.sandbox.network
    assert json.loads(to_json(event))["sandbox"] == {"active": True, "mode": "auto", "network": False}


async def test_system_event_without_bash_has_no_sandbox_field(tmp_path: Path) -> None:
    event = await first_event(agent(tmp_path, tools=[]))
    assert event.sandbox is None and "sandbox" not in json.loads(to_json(event))


async def test_system_event_when_off(tmp_path: Path) -> None:
    event = await first_event(agent(tmp_path, tools=[BashTool()], sandbox="off"))
    assert event.sandbox is not None and not event.sandbox.active and event.sandbox.mode == "off"


def test_config_keys_reach_the_settings(tmp_path: Path) -> None:
    home, repo = tmp_path / "home", tmp_path / "repo"
    (home / ".skawld").mkdir(parents=True)
    repo.mkdir()
    (home / ".skawld" / "config.json").write_text(
        json.dumps({"sandbox": {"mode": "required", "network": True}, "env": {"passthrough": ["GITHUB_TOKEN"]}})
    )
    settings = resolve_settings(CliOptions(cwd=str(repo)), env={"HOME": str(home)})
    assert settings.sandbox == {"mode": "required", "network": True}
    assert settings.env_passthrough == ["GITHUB_TOKEN"]
    # --no-sandbox wins over the file, keeping its other keys.
    off = resolve_settings(CliOptions(cwd=str(repo), sandbox="off"), env={"HOME": str(home)})
    assert coerce_sandbox(off.sandbox) == SandboxSettings(mode="off", network=True)


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ({"sandbox": "maybe"}, "/sandbox"),
        ({"env": {"passthrough": "X"}}, "/env/passthrough"),
    ],
)
def test_bad_config_names_the_pointer(tmp_path: Path, doc: dict[str, Any], pointer: str) -> None:
    home = tmp_path / "home"
    (home / ".skawld").mkdir(parents=True)
    (home / ".skawld" / "config.json").write_text(json.dumps(doc))
    with pytest.raises(ConfigError, match=f"\\({pointer}\\)"):
        resolve_settings(CliOptions(cwd=str(tmp_path)), env={"HOME": str(home)})


def test_a_misspelt_sandbox_key_warns_with_a_suggestion(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".skawld").mkdir(parents=True)
    (home / ".skawld" / "config.json").write_text(json.dumps({"sandbox": {"net": True}}))
    settings = resolve_settings(CliOptions(cwd=str(tmp_path)), env={"HOME": str(home)})
    [warning] = [str(w) for w in settings.warnings if "net" in str(w)]
    assert "network" in warning and "/sandbox/net" in warning
    assert settings.sandbox_network is False
