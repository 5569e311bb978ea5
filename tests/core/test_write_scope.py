"""Writes scoped to the project (issue 10, point 2): acceptEdits stays inside the project and
its added directories; protected paths ask in every mode but yolo."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from skawld_core import Agent
from skawld_core.errors import ConfigError
from skawld_core.permissions import CanUseToolRequest, PendingToolCall, PermissionDeny, PermissionEngine
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call
from skawld_core.tools import ToolScope, default_tools
from tests.support.events import tool_results


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary HOME, so shell startup files are never the real ones."""
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("HOME", str(path))
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def write_call(path: str, cwd: Path, tool: str = "Write", scope: ToolScope = "write") -> PendingToolCall:
    inp: dict[str, Any] = {"file_path": path, "content": "x"}
    return PendingToolCall(tool_name=tool, tool_use_id="t", input=inp, summary=tool, scope=scope, cwd=cwd)


def decide(engine: PermissionEngine, path: str, cwd: Path) -> str:
    return engine.evaluate(write_call(path, cwd)).behavior


class Recorder:
    """A `can_use_tool` that records every request and denies it."""

    def __init__(self) -> None:
        self.requests: list[CanUseToolRequest] = []

    async def __call__(self, request: CanUseToolRequest) -> PermissionDeny:
        self.requests.append(request)
        return PermissionDeny(message="the user said no")


async def run_agent(agent: Agent, prompt: str = "go") -> dict[str, str]:
    session = await agent.session()
    async with session.run(prompt) as run:
        events = [e async for e in run]
    return tool_results(events)


def make_agent(project: Path, turns: list[Any], **kwargs: Any) -> Agent:
    return Agent(
        provider=ScriptedProvider(turns),
        model="m",
        tools=default_tools(),
        cwd=project,
        session_store=InMemorySessionStore(),
        **kwargs,
    )


# -- the attack chain from the issue ------------------------------------------------------


async def test_fsmonitor_attack_chain_asks_and_never_runs(project: Path, home: Path) -> None:
    """acceptEdits + allow `git status` + Write .git/config with core.fsmonitor: the write asks."""
    marker = project.parent / "pwned"
    config = project / ".git" / "config"
    original = config.read_text()
    payload = original + f"[core]\n\tfsmonitor = touch {marker}; false\n"
    recorder = Recorder()
    agent = make_agent(
        project,
        [
            reply(tool_call("Read", {"file_path": ".git/config"}, id="r")),
            reply(tool_call("Write", {"file_path": ".git/config", "content": payload}, id="w")),
            reply(tool_call("Bash", {"command": "git status"}, id="b")),
            reply("done"),
        ],
        permission_mode="acceptEdits",
        permission_rules=[{"kind": "bash", "pattern": "git status", "decision": "allow"}],
        can_use_tool=recorder,
    )
    results = await run_agent(agent)
    assert [r.tool_name for r in recorder.requests] == ["Write"]
    assert recorder.requests[0].reason == f"{config} is a protected path: git internals (.git/)."
    assert "the user said no" in results["w"]
    assert config.read_text() == original
    assert "On branch" in results["b"] or "No commits yet" in results["b"]
    assert not marker.exists()


@pytest.mark.parametrize(
    "rel",
    [".git/config", ".git/hooks/pre-commit", ".git/info/attributes", ".git/HEAD", ".skawld/config.json"],
)
def test_project_internals_ask_in_accept_edits(project: Path, home: Path, rel: str) -> None:
    engine = PermissionEngine(mode="acceptEdits", project_root=project)
    decision = engine.evaluate(write_call(rel, project))
    assert decision.behavior == "ask"
    assert decision.reason is not None and "protected path" in decision.reason


@pytest.mark.parametrize("rel", [".claude/settings.json", ".mcp.json", "sub/.mcp.json"])
def test_agent_configuration_asks(project: Path, home: Path, rel: str) -> None:
    engine = PermissionEngine(mode="acceptEdits", project_root=project)
    assert decide(engine, rel, project) == "ask"


@pytest.mark.parametrize(
    "rel", [".bashrc", ".bash_profile", ".profile", ".zshrc", ".zprofile", ".gitconfig", ".config/fish/config.fish"]
)
def test_shell_startup_files_ask_even_under_a_broad_allow_rule(project: Path, home: Path, rel: str) -> None:
    rule = {"kind": "path", "tools": ["Write", "Edit"], "paths": ["/**"], "decision": "allow"}
    engine = PermissionEngine(mode="acceptEdits", rules=[rule], project_root=project, additional_directories=[home])
    assert decide(engine, str(home / rel), project) == "ask"
    assert decide(engine, "~/" + rel, project) == "ask"
    # The same rule allows an ordinary file in the same added directory.
    assert decide(engine, str(home / "notes.txt"), project) == "allow"


def test_ssh_directory_asks(project: Path, home: Path) -> None:
    engine = PermissionEngine(mode="acceptEdits", project_root=project, additional_directories=[home])
    assert decide(engine, "~/.ssh/authorized_keys", project) == "ask"
    assert decide(engine, "~/.ssh", project) == "ask"


def test_an_allow_rule_naming_the_exact_path_allows_it(project: Path, home: Path) -> None:
    exact = {"kind": "path", "tools": ["Write"], "paths": ["~/.bashrc"], "decision": "allow"}
    engine = PermissionEngine(mode="default", rules=[exact], project_root=project)
    assert decide(engine, str(home / ".bashrc"), project) == "allow"
    assert decide(engine, str(home / ".zshrc"), project) == "ask"


def test_deny_rule_still_wins_over_protection(project: Path, home: Path) -> None:
    deny = {"kind": "path", "tools": ["Write"], "paths": [".git/**"], "decision": "deny"}
    engine = PermissionEngine(mode="yolo", rules=[deny], project_root=project)
    assert decide(engine, ".git/config", project) == "deny"


def test_yolo_writes_protected_paths(project: Path, home: Path) -> None:
    engine = PermissionEngine(mode="yolo", project_root=project)
    assert decide(engine, ".git/config", project) == "allow"
    assert decide(engine, "~/.bashrc", project) == "allow"


def test_default_mode_with_protected_path_asks_but_reads_are_free(project: Path, home: Path) -> None:
    engine = PermissionEngine(mode="default", project_root=project)
    assert decide(engine, ".git/config", project) == "ask"
    read = PendingToolCall(
        tool_name="Read", tool_use_id="r", input={"file_path": ".git/config"}, summary="", scope="read", cwd=project
    )
    assert engine.evaluate(read).behavior == "allow"


# -- the write scope ----------------------------------------------------------------------


def test_inside_project_allowed_outside_asks(project: Path, home: Path, tmp_path: Path) -> None:
    engine = PermissionEngine(mode="acceptEdits", project_root=project)
    assert decide(engine, "src/new.py", project) == "allow"
    assert decide(engine, str(project / "a" / "b.txt"), project) == "allow"
    outside = engine.evaluate(write_call(str(tmp_path / "elsewhere.txt"), project))
    assert outside.behavior == "ask"
    assert outside.reason is not None and "outside the project" in outside.reason
    assert decide(engine, "../escape.txt", project) == "ask"
    assert decide(engine, "/etc/passwd", project) == "ask"


def test_symlink_inside_project_pointing_out_is_outside(project: Path, home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "link").symlink_to(outside)
    (project / "rc").symlink_to(home / ".bashrc")
    engine = PermissionEngine(mode="acceptEdits", project_root=project)
    assert decide(engine, "link/file.txt", project) == "ask"
    assert engine.evaluate(write_call("rc", project)).reason == f"{home / '.bashrc'} is a protected path: " + (
        "a shell, git or login startup file (~/.bashrc)."
    )


def test_added_directories_extend_the_scope(project: Path, home: Path, tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    engine = PermissionEngine(mode="acceptEdits", project_root=project, additional_directories=[extra])
    assert decide(engine, str(extra / "deep" / "f.txt"), project) == "allow"
    assert decide(engine, str(tmp_path / "extra2" / "f.txt"), project) == "ask"  # a prefix is not a parent
    later = PermissionEngine(mode="acceptEdits", project_root=project)
    later.add_directory(extra)
    assert later.additional_directories == (extra.resolve(),)
    assert decide(later, str(extra / "f.txt"), project) == "allow"


def test_default_mode_still_asks_inside_the_project(project: Path, home: Path) -> None:
    engine = PermissionEngine(mode="default", project_root=project)
    assert decide(engine, "src/new.py", project) == "ask"


async def test_agent_additional_directories(project: Path, home: Path, tmp_path: Path) -> None:
    extra = tmp_path / "shared"
    extra.mkdir()
    (tmp_path / "alias").symlink_to(extra)
    recorder = Recorder()
    agent = make_agent(
        project,
        [
            reply(
                tool_call("Write", {"file_path": "inside.txt", "content": "in"}, id="a"),
                tool_call("Write", {"file_path": str(tmp_path / "alias" / "x.txt"), "content": "added"}, id="b"),
                tool_call("Write", {"file_path": str(tmp_path / "other.txt"), "content": "no"}, id="c"),
            ),
            reply("done"),
        ],
        permission_mode="acceptEdits",
        can_use_tool=recorder,
        additional_directories=[str(tmp_path / "alias")],
    )
    assert agent.additional_directories == [extra.resolve()]
    results = await run_agent(agent)
    assert (project / "inside.txt").read_text() == "in"
    assert (extra / "x.txt").read_text() == "added"
    assert not (tmp_path / "other.txt").exists()
    assert [r.input["file_path"] for r in recorder.requests] == [str(tmp_path / "other.txt")]
    assert recorder.requests[0].reason == f"{tmp_path / 'other.txt'} is outside the project and its added directories."
    assert "the user said no" in results["c"]


def test_agent_rejects_a_string_for_additional_directories(project: Path) -> None:
    with pytest.raises(ConfigError, match="additional_directories must be a list"):
        make_agent(project, [], additional_directories=str(project))  # type: ignore[arg-type]


def test_real_home_is_not_used(home: Path) -> None:
    assert os.path.expanduser("~") == str(home)


def test_protected_paths_lists_what_exists(project: Path, home: Path) -> None:
    from skawld_core.permissions.write_scope import protected_paths

    (home / ".bashrc").write_text("")
    (project / ".mcp.json").write_text("{}")
    found = protected_paths([project])
    assert project / ".git" in found and project / ".mcp.json" in found and home / ".bashrc" in found
    assert project / ".claude" not in found and home / ".zshrc" not in found


def test_messages_name_the_expanded_home_path(project: Path, home: Path) -> None:
    engine = PermissionEngine(mode="acceptEdits", project_root=project)
    protected = engine.evaluate(write_call("~/.zshrc", project))
    assert protected.reason == f"{home / '.zshrc'} is a protected path: a shell, git or login startup file (~/.zshrc)."
    outside = engine.evaluate(write_call("~/notes.txt", project))
    assert outside.reason == f"{home / 'notes.txt'} is outside the project and its added directories."
