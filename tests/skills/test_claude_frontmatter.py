"""Agent and skill files written for Claude Code load unchanged (issue: Claude Code setup, point 5)."""

from __future__ import annotations

from pathlib import Path

from ext_helpers import write_agent, write_skill

from skawld_core.skills import load_skills
from skawld_core.subagents import load_agent_definitions

# The shape of the agents in Anthropic's public Claude Code plugins: an unquoted description
# with colons, and an <example> block whose `user:` / `assistant:` lines are not YAML keys.
PLUGIN_AGENT = """\
name: code-architect
description: Use this agent when the user asks to design a feature. Examples: <example>Context: The user wants a plan.
user: "Design the export module"
assistant: "I'll use the code-architect agent to design it"
<commentary>Architecture work fits this agent.</commentary>
</example>
tools: Glob, Grep, LS, Read
model: sonnet
color: green"""


def test_plugin_agent_with_examples_loads(tmp_path: Path) -> None:
    write_agent(tmp_path, "code-architect.md", PLUGIN_AGENT, "You design software.")
    result = load_agent_definitions([tmp_path])
    assert result.skipped == []
    [agent] = result.agents
    assert agent.name == "code-architect"
    assert agent.description.startswith("Use this agent when the user asks to design a feature. Examples: <example>")
    assert 'user: "Design the export module"' in agent.description
    assert agent.description.endswith("</example>")
    assert agent.tools == ("Glob", "Grep", "LS", "Read")
    assert agent.model == "sonnet"  # kept: the agent resolves Claude Code's aliases for its provider
    assert agent.body == "You design software."


def test_block_lists_and_colons_mix_in_one_file(tmp_path: Path) -> None:
    write_agent(tmp_path, "mixed.md", "description: Reviews code: style, bugs\ntools:\n  - Read\n  - Grep", "body")
    [agent] = load_agent_definitions([tmp_path]).agents
    assert (agent.description, agent.tools) == ("Reviews code: style, bugs", ("Read", "Grep"))


def test_invalid_yaml_values_are_still_refused(tmp_path: Path) -> None:
    write_agent(tmp_path, "bad.md", "description: Reviews: code\ntools: [Read, Grep", "body")
    write_agent(tmp_path, "stray.md", "just text\ndescription: x", "body")
    result = load_agent_definitions([tmp_path])
    assert result.agents == []
    assert {s.path.name: s.reason for s in result.skipped} == {
        "bad.md": "invalid-frontmatter",
        "stray.md": "invalid-frontmatter",
    }


def test_skill_names_with_spaces_and_capitals_get_a_slug(tmp_path: Path) -> None:
    write_skill(tmp_path, "hook-dev", "name: Hook Development\ndescription: Write hooks: events, matchers")
    [skill] = load_skills([tmp_path]).skills
    assert (skill.name, skill.display_name) == ("hook-development", "Hook Development")
    assert skill.description == "Write hooks: events, matchers"


def test_agent_names_with_spaces_keep_their_case(tmp_path: Path) -> None:
    write_agent(tmp_path, "reviewer.md", "name: Code Reviewer\ndescription: Reviews", "body")
    [agent] = load_agent_definitions([tmp_path]).agents
    assert agent.name == "Code-Reviewer"
