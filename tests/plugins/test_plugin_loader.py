"""Reading plugin directories in Claude Code's format (real files written by the tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_plugins import write, write_agent_plugin, write_full_plugin

from skawld_core.plugins import PluginError, load_plugin
from skawld_core.plugins.enabled import plugin_fingerprint, plugin_layer, resolve_plugins
from skawld_core.skills.loader import load_skills
from skawld_core.subagents.definitions import load_agent_definitions
from skawld_tui.file_commands import load_file_commands


def test_full_plugin_parts_are_namespaced_and_root_expanded(tmp_path: Path) -> None:
    root = write_full_plugin(tmp_path / "toolkit")
    plugin = load_plugin(root)
    assert (plugin.name, plugin.version, plugin.description) == ("toolkit", "1.2.0", "Review helpers")
    commands, skipped = load_file_commands([], plugin.namespaced(plugin.commands))
    assert skipped == []
    assert [c.name for c in commands] == ["toolkit:git:sync", "toolkit:review"]
    agents = load_agent_definitions([], namespaced=plugin.namespaced(plugin.agents)).agents
    assert [a.name for a in agents] == ["toolkit:code-reviewer"]
    skills = load_skills([], (), namespaced=plugin.namespaced(plugin.skills)).skills
    assert [s.name for s in skills] == ["toolkit:writing-rules"]
    [hook] = plugin.hooks["PreToolUse"]
    assert hook["command"] == f"python3 {root}/hooks/pretooluse.py"  # ${CLAUDE_PLUGIN_ROOT} replaced
    assert hook["env"] == {"CLAUDE_PLUGIN_ROOT": str(root)} and hook["format"] == "claude-code"
    assert "matcher" not in hook  # "*" matches every tool
    [(server_name, server)] = plugin.mcp_servers.items()
    assert server_name == "plugin:toolkit:fixture"
    assert server["env"] == {"FIXTURE_ROOT": str(root), "CLAUDE_PLUGIN_ROOT": str(root)}
    layer = plugin_layer([plugin])
    assert set(layer) == {"hooks", "mcpServers"}


def test_manifest_paths_add_to_default_folders_and_may_not_escape(tmp_path: Path) -> None:
    root = write_agent_plugin(tmp_path / "p", "p")
    write(root / "extra-agents" / "more.md", "---\nname: more\ndescription: More\n---\nbody\n")
    manifest = {"name": "p", "agents": ["./extra-agents/more.md"], "commands": "./cmds"}
    write(root / ".claude-plugin" / "plugin.json", json.dumps(manifest))
    write(root / "cmds" / "go.md", "GO")
    plugin = load_plugin(root)
    agents = load_agent_definitions([], namespaced=plugin.namespaced(plugin.agents)).agents
    assert [a.name for a in agents] == ["p:code-reviewer", "p:more"]
    assert [c.name for c in load_file_commands([], plugin.namespaced(plugin.commands))[0]] == ["p:go"]
    write(root / ".claude-plugin" / "plugin.json", json.dumps({"name": "p", "commands": "../../etc"}))
    with pytest.raises(PluginError, match="points outside the plugin"):
        load_plugin(root)


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ("{not json", "is not valid JSON"),
        ('["a"]', "must be a JSON object"),
        ('{"name": "a:b"}', "is not a valid plugin name"),
        ('{"name": "ok", "hooks": 3}', "/hooks: expected a path or an object"),
        ('{"name": "ok", "mcpServers": {"s": 1}}', "must be an object of server entries"),
    ],
)
def test_bad_manifests_name_the_file(tmp_path: Path, manifest: str, message: str) -> None:
    write(tmp_path / "p" / ".claude-plugin" / "plugin.json", manifest)
    with pytest.raises(PluginError, match=message) as info:
        load_plugin(tmp_path / "p")
    assert "plugin.json" in str(info.value)


def test_two_plugins_with_one_name_the_second_is_left_out(tmp_path: Path) -> None:
    write_agent_plugin(tmp_path / "a", "same")
    write_agent_plugin(tmp_path / "b", "same")
    write_agent_plugin(tmp_path / "c", "other")
    plugins, warnings = resolve_plugins([], [str(tmp_path / d) for d in "abc"], {"HOME": str(tmp_path)})
    assert [p.root.name for p in plugins] == ["a", "c"]
    assert len(warnings) == 1 and "also named 'same'" in warnings[0]


def test_fingerprint_follows_every_file(tmp_path: Path) -> None:
    root = write_full_plugin(tmp_path / "toolkit")
    before = plugin_fingerprint(load_plugin(root))
    assert plugin_fingerprint(load_plugin(root)) == before
    (root / "hooks" / "pretooluse.py").write_text("print('changed')\n")
    assert plugin_fingerprint(load_plugin(root)) != before


@pytest.mark.parametrize("spec", ["../evil@team", "lint@../team", "lint", "@team", "a/b@team"])
def test_install_specs_are_plain_names(tmp_path: Path, spec: str) -> None:
    from skawld_core.plugins.store import marketplace_entry

    with pytest.raises(PluginError, match="expected name@marketplace"):
        marketplace_entry(spec, {"HOME": str(tmp_path)})
