"""Subagent definitions on disk and the registry (§2.16: loader.test,
loader.multi-dir, registry.test)."""

from __future__ import annotations

import os
from pathlib import Path

from ext_helpers import write_agent

from skawld_core.subagents import DEFAULT_AGENT_NAME, SubagentRegistry, load_agent_definitions, normalize_tools


def test_valid_sorted_and_defaults(tmp_path: Path) -> None:
    write_agent(tmp_path, "zeta.md", "description: last\ntools: Read, Grep, Bash", "Zeta body")
    write_agent(tmp_path, "Alpha.md", "description: first\ncolor: blue\nmodel: sonnet-x", "Alpha body")
    (tmp_path / "agents" / "notes.txt").write_text("ignored")
    result = load_agent_definitions([tmp_path])
    assert result.skipped == []
    assert [a.name for a in result.agents] == ["Alpha", "zeta"]  # case kept, sorted
    alpha, zeta = result.agents
    assert (alpha.body, alpha.tools, alpha.model) == ("Alpha body", None, "sonnet-x")
    assert zeta.tools == ("Read", "Grep", "Bash")
    assert load_agent_definitions([tmp_path / "missing"]).agents == []


def test_claude_code_agent_file_loads_unchanged(tmp_path: Path) -> None:
    write_agent(
        tmp_path,
        "code-reviewer.md",
        "name: code-reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob, Bash\nmodel: sonnet\ncolor: purple",
        "You are a senior code reviewer.",
    )
    [agent] = load_agent_definitions([tmp_path]).agents
    assert (agent.name, agent.tools, agent.model) == ("code-reviewer", ("Read", "Grep", "Glob", "Bash"), "sonnet")


def test_skips(tmp_path: Path) -> None:
    write_agent(tmp_path, "nodesc.md", "name: nodesc")
    write_agent(tmp_path, "nofm.md", None, "no frontmatter at all")
    write_agent(tmp_path, "bad.md", "description: [oops")
    write_agent(tmp_path, "a.md", "name: Dup\ndescription: one")
    write_agent(tmp_path, "b.md", "name: dup\ndescription: two")
    real = write_agent(tmp_path / "other", "real.md", "description: real")
    os.symlink(real, tmp_path / "agents" / "linked.md")
    result = load_agent_definitions([tmp_path])
    assert {s.path.name: s.reason for s in result.skipped} == {
        "nodesc.md": "invalid-frontmatter",
        "nofm.md": "missing-frontmatter",
        "bad.md": "invalid-frontmatter",
        "b.md": "name-collision",
        "linked.md": "io-error",
    }
    assert [a.name for a in result.agents] == ["Dup"]


def test_normalize_tools_table() -> None:
    assert normalize_tools("Read, Grep, Bash") == ("Read", "Grep", "Bash")
    assert normalize_tools(["Bash(npm:*)", "Read"]) == ("Bash", "Read")
    assert normalize_tools("Bash(npm run test:*), , Edit") == ("Bash", "Edit")
    assert normalize_tools(42) is None
    assert normalize_tools(None) is None
    assert normalize_tools(["*"]) == ("*",)


def test_multi_dir_union_first_wins(tmp_path: Path) -> None:
    write_agent(tmp_path / "one", "r.md", "name: researcher\ndescription: one")
    write_agent(tmp_path / "two", "r.md", "name: Researcher\ndescription: two")
    write_agent(tmp_path / "two", "w.md", "name: writer\ndescription: w")
    result = load_agent_definitions([tmp_path / "one", tmp_path / "none", tmp_path / "two"])
    assert [(a.name, a.description) for a in result.agents] == [("researcher", "one"), ("writer", "w")]
    assert [s.reason for s in result.skipped] == ["name-collision"]
    assert load_agent_definitions([]).agents == []


def test_registry(tmp_path: Path) -> None:
    write_agent(tmp_path, "_default.md", "description: impostor")
    write_agent(tmp_path, "Reviewer.md", "description: reviews")
    registry = SubagentRegistry(load_agent_definitions([tmp_path]).agents)
    default = registry.get("_default")
    assert default is not None and default.description == "General-purpose subagent with full tool access"
    assert [a.name for a in registry.list()] == ["Reviewer"]
    assert [a.name for a in registry.list_all()] == [DEFAULT_AGENT_NAME, "Reviewer"]
    assert registry.get("reviewer") is registry.get("REVIEWER") is not None
    assert registry.get("nobody") is None
    assert registry.resolve(None) is default and registry.resolve("  ") is default
    assert registry.resolve("General-Purpose") is default
    write_agent(tmp_path, "gp.md", "name: general-purpose\ndescription: mine")
    registry = SubagentRegistry(load_agent_definitions([tmp_path]).agents)
    resolved = registry.resolve("general-purpose")
    assert resolved is not None and resolved.description == "mine"


def test_build_child_tools() -> None:
    from ext_helpers import MockExec

    from skawld_core.subagents import build_child_tools
    from skawld_core.subagents.registry import SubagentRegistry
    from skawld_core.subagents.tool import SubagentTool
    from skawld_core.tools import ToolRegistry

    def named(name: str) -> MockExec:
        tool = MockExec()
        tool.name = name
        return tool

    parent = ToolRegistry(
        [named("Read"), named("Bash"), named("AskUser"), named("mcp__gh__issue"), SubagentTool(SubagentRegistry())]
    )
    assert build_child_tools(parent, None).names() == ["Bash", "Read", "mcp__gh__issue"]
    assert build_child_tools(parent, ("*",)).names() == ["Bash", "Read", "mcp__gh__issue"]
    assert build_child_tools(parent, ("Read", "Subagent", "AskUser", "Nope")).names() == ["Read"]
    assert build_child_tools(parent, ("mcp__gh__*", "*agent")).names() == ["mcp__gh__issue"]
    assert build_child_tools(parent, ()).names() == []
    assert build_child_tools(parent, None, ("Bash",)).names() == ["Read", "mcp__gh__issue"]
    assert build_child_tools(parent, ("Read", "Bash"), ("mcp__*", "Read")).names() == ["Bash"]


def _agent_file(path: Path, frontmatter: str, body: str = "You review.") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{frontmatter}\n---\n{body}\n", encoding="utf-8")
    return path


def test_agents_in_subfolders_load_by_their_own_name(tmp_path: Path) -> None:
    """wshobson/agents-style per-plugin folders: Claude Code loads every one, named by frontmatter."""
    agents = tmp_path / "agents"
    _agent_file(agents / "backend-development" / "backend-architect.md", "name: backend-architect\ndescription: A")
    _agent_file(agents / "security" / "deep" / "auditor.md", "description: B")  # name from the file name
    _agent_file(agents / "top.md", "description: C")
    outside = _agent_file(tmp_path / "elsewhere" / "hidden.md", "description: D")
    os.symlink(outside.parent, agents / "linked-folder")  # a symlinked folder is not entered
    result = load_agent_definitions([tmp_path])
    assert [a.name for a in result.agents] == ["auditor", "backend-architect", "top"]
    assert result.skipped == []


def test_same_name_in_two_subfolders_first_wins(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    _agent_file(agents / "a" / "reviewer.md", "name: reviewer\ndescription: first")
    _agent_file(agents / "b" / "reviewer.md", "name: reviewer\ndescription: second")
    result = load_agent_definitions([tmp_path])
    assert [a.description for a in result.agents] == ["first"]
    assert [(s.path.parent.name, s.reason) for s in result.skipped] == [("b", "name-collision")]


def test_namespaced_agents_do_not_clash(tmp_path: Path) -> None:
    """Two plugins' `code-reviewer` agents are `one:code-reviewer` and `two:code-reviewer`."""
    for plugin in ("one", "two"):
        _agent_file(tmp_path / plugin / "agents" / "code-reviewer.md", f"name: code-reviewer\ndescription: {plugin}")
    _agent_file(tmp_path / "agents" / "code-reviewer.md", "name: code-reviewer\ndescription: own")
    result = load_agent_definitions(
        [tmp_path], namespaced=[(tmp_path / "one" / "agents", "one"), (tmp_path / "two" / "agents", "two")]
    )
    assert [(a.name, a.description) for a in result.agents] == [
        ("code-reviewer", "own"),
        ("one:code-reviewer", "one"),
        ("two:code-reviewer", "two"),
    ]
    registry = SubagentRegistry(result.agents)
    assert registry.resolve("two:code-reviewer") is not None
    assert registry.resolve("two:code-reviewer").description == "two"  # type: ignore[union-attr]
