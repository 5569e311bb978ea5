"""The TypeScript Claude Agent SDK (npm `@anthropic-ai/claude-agent-sdk` 0.3.x) driving the real
`skawld` through ``pathToClaudeCodeExecutable``, against the local wire server.

This SDK sends the session's configuration in the ``initialize`` control request (system prompt,
agents, MCP servers, in-process SDK servers) and starts the CLI with ``--await-initialize`` and
``--allow-dangerously-skip-permissions``. `.ci/run` installs the SDK under `.ci/claude-sdk/`;
elsewhere these tests skip, never when CI=true. The driver is `claude_agent_sdk_ts/driver.mjs`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.harness import MODEL, CliEnv, skawld_command
from tests.support.wire_server import text, tool_call, turn

ROOT = Path(__file__).resolve().parents[2]
MODULES = ROOT / ".ci" / "claude-sdk" / "node_modules"
SDK = MODULES / "@anthropic-ai" / "claude-agent-sdk" / "sdk.mjs"
ZOD = MODULES / "zod" / "index.js"
DRIVER = Path(__file__).with_name("claude_agent_sdk_ts") / "driver.mjs"
FIXTURE_SERVER = ROOT / "tests" / "fixtures" / "mcp_fixture_server.py"
NODE = shutil.which("node")

pytestmark = [
    pytest.mark.skipif(
        (not SDK.is_file() or NODE is None) and os.environ.get("CI") != "true",
        reason="the TypeScript Claude Agent SDK is not installed (bash .ci/run installs it under .ci/claude-sdk)",
    ),
    pytest.mark.timeout(120),
]


def drive(cli: CliEnv, case: str, prompt: str, **extra: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Run the driver for one case: the SDK's messages and the callbacks it made."""
    assert NODE is not None
    spec = {
        "sdk": SDK.as_uri(),
        "zod": ZOD.as_uri(),
        "case": case,
        "prompt": prompt,
        "skawld": skawld_command()[0],
        "cwd": str(cli.repo),
        "env": cli.env,
        "model": MODEL,
        "baseUrl": cli.srv.url,
        **extra,
    }
    proc = subprocess.run([NODE, str(DRIVER), json.dumps(spec)], capture_output=True, text=True, timeout=100)
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    errors = [line["error"] for line in lines if "error" in line]
    assert not errors and {"done": True} in lines, f"{errors}\nstderr:\n{proc.stderr[-3000:]}"
    return [line["message"] for line in lines if "message" in line], [line for line in lines if "callback" in line]


def of_type(messages: list[dict[str, Any]], kind: str, subtype: str | None = None) -> list[dict[str, Any]]:
    return [m for m in messages if m["type"] == kind and (subtype is None or m.get("subtype") == subtype)]


def result_of(messages: list[dict[str, Any]]) -> dict[str, Any]:
    (result,) = of_type(messages, "result")
    return result


def tool_results(messages: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        b["tool_use_id"]: b
        for m in of_type(messages, "user")
        if isinstance(m["message"]["content"], list)
        for b in m["message"]["content"]
        if b.get("type") == "tool_result"
    }


def content_text(block: dict[str, Any]) -> str:
    content = block["content"]
    return content if isinstance(content, str) else " ".join(c.get("text", "") for c in content)


def test_prompt_and_resume(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("Hello from skawld.")), turn(text("Still here.")))
    messages, _ = drive(cli, "prompt", "say hello")
    (init,) = of_type(messages, "system", "init")
    assert init["claude_code_version"] == "2.1.333" and init["model"] == MODEL
    result = result_of(messages)
    assert result["subtype"] == "success" and result["result"] == "Hello from skawld."
    assert system_text(cli).startswith("You are skawld")  # no systemPrompt (the SDK sends [""]): skawld's

    again, _ = drive(cli, "prompt", "are you there?", resume=result["session_id"])
    assert result_of(again)["session_id"] == result["session_id"] and result_of(again)["result"] == "Still here."
    sent = cli.srv.anthropic.requests[-1].body["messages"]
    assert "say hello" in json.dumps(sent[0]) and "Hello from skawld." in json.dumps(sent[1])
    assert "are you there?" in json.dumps(sent[-1])
    # Claude Code's transcript copy, which hosts like Zed's adapter replay
    (copy,) = (cli.home / ".claude" / "projects").glob(f"*/{result['session_id']}.jsonl")
    lines = [json.loads(line) for line in copy.read_text().splitlines()]
    assert [line["type"] for line in lines] == ["user", "assistant", "user", "assistant"]
    assert "are you there?" in json.dumps(lines[2]["message"]) and lines[3]["sessionId"] == result["session_id"]


def test_can_use_tool_allows_one_call_and_denies_another(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Bash", {"command": "touch denied.txt"}, id="b1")),
        turn(tool_call("Bash", {"command": "touch allowed.txt"}, id="b2")),
        turn(text("done")),
    )
    messages, callbacks = drive(cli, "canUseTool", "touch two files")
    assert [(c["toolName"], c["input"]["command"], c["toolUseID"]) for c in callbacks] == [
        ("Bash", "touch denied.txt", "b1"),
        ("Bash", "touch allowed.txt", "b2"),
    ]
    results = tool_results(messages)
    assert results["b1"]["is_error"] and "no shell today" in content_text(results["b1"])
    assert not results["b2"].get("is_error")
    assert (cli.repo / "allowed.txt").exists() and not (cli.repo / "denied.txt").exists()


def test_pre_tool_use_hook_callback_denies(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "touch x.txt"}, id="b1")), turn(text("ok")))
    messages, callbacks = drive(cli, "hook", "touch x")
    assert callbacks == [{"callback": "PreToolUse", "tool_name": "Bash", "tool_use_id": "b1"}]
    assert "hook says no" in content_text(tool_results(messages)["b1"])
    assert not (cli.repo / "x.txt").exists()


def test_partial_messages_stream(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("streamed words here")))
    messages, _ = drive(cli, "partial", "stream")
    deltas = [
        m["event"]["delta"].get("text", "")
        for m in of_type(messages, "stream_event")
        if m["event"]["type"] == "content_block_delta"
    ]
    assert "".join(deltas) == "streamed words here"
    assert result_of(messages)["result"] == "streamed words here"


def test_bypass_permissions_runs_without_asking(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "touch bypassed.txt"}, id="b1")), turn(text("ok")))
    messages, _ = drive(cli, "bypass", "touch it")
    (init,) = of_type(messages, "system", "init")
    assert init["permissionMode"] == "bypassPermissions"
    assert not tool_results(messages)["b1"].get("is_error")
    assert (cli.repo / "bypassed.txt").exists()


def test_stdio_mcp_server_from_initialize(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("mcp__fixture__echo", {"text": "ping"}, id="m1")),
        turn(text("echoed")),
    )
    server = {"type": "stdio", "command": sys.executable, "args": [str(FIXTURE_SERVER)]}
    messages, _ = drive(cli, "mcpStdio", "echo ping", mcpServer=server)
    (init,) = of_type(messages, "system", "init")
    assert "mcp__fixture__echo" in init["tools"]
    assert {"name": "fixture", "status": "connected"} in init["mcp_servers"]
    block = tool_results(messages)["m1"]
    assert not block.get("is_error") and "ping" in content_text(block)


def test_in_process_sdk_mcp_tool_gets_the_tool_use_id(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("mcp__calc__add", {"a": 2, "b": 40}, id="t1")), turn(text("42")))
    messages, callbacks = drive(cli, "sdkTool", "add")
    assert callbacks == [{"callback": "sdkTool", "args": {"a": 2, "b": 40}, "meta": {"claudecode/toolUseId": "t1"}}]
    assert "sum=42" in content_text(tool_results(messages)["t1"])
    (init,) = of_type(messages, "system", "init")
    assert {"name": "calc", "status": "connected"} in init["mcp_servers"]


def system_text(cli: CliEnv) -> str:
    system = cli.srv.anthropic.requests[-1].body["system"]
    return system if isinstance(system, str) else " ".join(b["text"] for b in system)


def test_a_string_system_prompt_replaces_skawlds(cli: CliEnv) -> None:
    (cli.repo / "CLAUDE.md").write_text("House rule: tabs.\n")
    cli.srv.anthropic.enqueue(turn(text("arr")))
    drive(cli, "systemPrompt", "hi")
    text_of = system_text(cli)
    assert text_of.startswith("You are the pirate assistant. Always say arr.")
    assert "House rule: tabs." in text_of  # the instruction files stay, as Claude Code keeps CLAUDE.md
    assert "You are skawld" not in text_of and "Tool use protocol" not in text_of


def test_a_preset_system_prompt_keeps_skawlds_and_appends(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("arr")))
    drive(cli, "systemPromptPreset", "hi")
    text_of = system_text(cli)
    assert text_of.startswith("You are skawld") and text_of.rstrip().endswith("Always end with arr.")


def _skill(root: Path, name: str, description: str) -> None:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True)
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n\nDo the {name} thing.\n")


def test_initialize_settings_plugins_and_skills_are_honoured(cli: CliEnv, tmp_path: Path) -> None:
    plugin = tmp_path / "toolkit"
    (plugin / ".claude-plugin").mkdir(parents=True)
    (plugin / ".claude-plugin" / "plugin.json").write_text('{"name": "toolkit", "version": "1.0.0"}')
    _skill(plugin / "skills", "lint-check", "PLUGIN-SKILL-DESC")
    _skill(cli.home / ".claude" / "skills", "kept", "KEPT-SKILL-DESC")
    _skill(cli.home / ".claude" / "skills", "dropped", "DROPPED-SKILL-DESC")
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "touch made.txt"}, id="b1")), turn(text("no")))
    messages, _ = drive(cli, "initConfig", "make a file", pluginDir=str(plugin))
    (init,) = of_type(messages, "system", "init")
    assert [p["name"] for p in init["plugins"]] == ["toolkit"]
    sent = json.dumps(cli.srv.anthropic.requests[0].body)
    assert "KEPT-SKILL-DESC" in sent and "PLUGIN-SKILL-DESC" in sent and "DROPPED-SKILL-DESC" not in sent
    denied = tool_results(messages)["b1"]
    assert denied["is_error"] and "rule matched Bash" in content_text(denied)  # the settings' deny rule
    assert not (cli.repo / "made.txt").exists()


def test_agents_are_loaded_and_listed(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Subagent", {"subagent_type": "reviewer", "description": "r", "prompt": "look"}, id="s1")),
        turn(text("no bugs found")),  # the subagent's answer
        turn(text("reviewed")),
    )
    messages, _ = drive(cli, "agents", "review")
    (init,) = of_type(messages, "system", "init")
    assert "reviewer" in init["agents"]
    block = tool_results(messages)["s1"]
    assert not block.get("is_error") and "no bugs found" in content_text(block)
    child = cli.srv.anthropic.requests[1].body["system"]
    assert "You review code." in (child if isinstance(child, str) else " ".join(b["text"] for b in child))


def test_disallowed_tools_leave_the_models_list(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "touch no.txt"}, id="b1")), turn(text("ok")))
    messages, _ = drive(cli, "disallowed", "touch")
    (init,) = of_type(messages, "system", "init")
    assert "Bash" not in init["tools"] and "KillShell" not in init["tools"] and "Read" in init["tools"]
    sent = [t["name"] for t in cli.srv.anthropic.requests[0].body["tools"]]
    assert "Bash" not in sent and "KillShell" not in sent
    assert tool_results(messages)["b1"]["is_error"]
    assert not (cli.repo / "no.txt").exists()
