"""`skawld_tui.headless.claude_init`: what an ``initialize`` request configures, and its errors."""

from __future__ import annotations

import sys

import pytest

from skawld_tui.headless.claude_init import read_initialize


def test_initialize_fields_are_read() -> None:
    cfg = read_initialize(
        {
            "subtype": "initialize",
            "systemPrompt": ["Be brief.", "Use British spelling."],
            "appendSystemPrompt": "Sign off.",
            "agents": {"reviewer": {"description": "Reviews", "prompt": "You review.", "tools": ["Read", "MultiEdit"]}},
            "mcpServers": {"calc": {"type": "sdk", "name": "calc"}, "fs": {"command": sys.executable}},
            "jsonSchema": {"type": "object"},
            "disallowedTools": ["Bash"],
        }
    )
    assert cfg.system_prompt == "Be brief.\n\nUse British spelling." and cfg.append_system_prompt == "Sign off."
    (agent,) = cfg.agents
    assert (agent.name, agent.body, agent.tools) == ("reviewer", "You review.", ("Read", "Edit"))
    assert cfg.sdk_servers == ["calc"] and list(cfg.mcp_servers) == ["fs"]
    assert cfg.json_schema == {"type": "object"} and cfg.disallowed_tools == ["Bash"]
    assert cfg.sent == {"mcp_servers", "disallowed_tools"}


def test_preset_system_prompt_only_appends() -> None:
    cfg = read_initialize({"systemPrompt": {"type": "preset", "preset": "claude_code", "append": "Extra."}})
    assert cfg.system_prompt is None and cfg.append_system_prompt == "Extra."


@pytest.mark.parametrize(
    ("request_body", "message"),
    [
        ({"systemPrompt": 3}, "systemPrompt must be a string"),
        ({"agents": {"x": {"prompt": "p"}}}, "agents.x needs a 'description'"),
        ({"agents": []}, "agents must be an object"),
        ({"mcpServers": {"bad": {"url": "ftp://x"}}}, "initialize: mcpServers:"),
        ({"jsonSchema": "no"}, "jsonSchema must be a JSON Schema object"),
        ({"disallowedTools": [1]}, "disallowedTools must be a string or a list"),
    ],
)
def test_malformed_fields_name_the_field(request_body: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_initialize(request_body)
