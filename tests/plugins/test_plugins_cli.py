"""Claude Code plugins through the real `skawld`: `--plugin-dir`, a marketplace in a local git
repository with `skawld plugin install`, a plugin the project enables behind the trust gate,
and two plugins whose `code-reviewer` agents would clash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fixture_plugins import write, write_agent_plugin, write_full_plugin, write_git_marketplace

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn


def tool_results(body: Any) -> dict[str, tuple[str, bool]]:
    out: dict[str, tuple[str, bool]] = {}
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                flat = "".join(b.get("text", "") for b in content) if isinstance(content, list) else content
                out[block["tool_use_id"]] = (flat, bool(block.get("is_error")))
    return out


def tool_names(body: Any) -> list[str]:
    return [t["name"] for t in body.get("tools", [])]


def subagent_description(body: Any) -> str:
    return next(t["description"] for t in body["tools"] if t["name"] == "Subagent")


def hook_calls(root: Path) -> list[dict[str, Any]]:
    path = root / "hook-calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_plugin_dir_brings_commands_agents_skills_hooks_and_mcp(cli: CliEnv, tmp_path: Path) -> None:
    root = write_full_plugin(tmp_path / "toolkit")
    (cli.repo / "build").mkdir()
    cli.srv.anthropic.enqueue(
        turn(
            tool_call("Bash", {"command": "rm -rf build"}, id="rm"),
            tool_call("mcp__plugin_toolkit_fixture__env_var", {"name": "CLAUDE_PLUGIN_ROOT"}, id="env"),
        ),
        turn(text("done")),
    )
    out = cli.run(*cli.args("-p", "/toolkit:review src/", "--plugin-dir", str(root), "--permission-mode", "yolo"))
    assert out.returncode == 0, out.stderr
    first, second = cli.srv.anthropic.wait_for_requests(2)
    assert "PLUGIN-REVIEW of src/ using the code-reviewer agent." in json.dumps(first.body["messages"][0])
    assert "mcp__plugin_toolkit_fixture__echo" in tool_names(first.body)
    assert "toolkit:code-reviewer: Reviews code (toolkit)" in subagent_description(first.body)
    assert "toolkit:writing-rules" in json.dumps(first.body)  # the skill listing
    got = tool_results(second.body)
    assert got["rm"][1] and "hookify: rm -rf is blocked" in got["rm"][0]
    assert (cli.repo / "build").is_dir()
    assert got["env"] == (str(root), False)  # CLAUDE_PLUGIN_ROOT set in the MCP server's environment
    calls = hook_calls(cli.repo)
    assert [c["tool"] for c in calls] == ["Bash", "mcp__plugin_toolkit_fixture__env_var"]
    assert {c["root"] for c in calls} == {str(root)}  # and in the hook's


def test_two_plugins_code_reviewers_are_both_available(cli: CliEnv, tmp_path: Path) -> None:
    one = write_agent_plugin(tmp_path / "one", "pr-review-toolkit")
    two = write_agent_plugin(tmp_path / "two", "feature-dev")
    write(
        cli.repo / ".claude" / "agents" / "code-reviewer.md", "---\nname: code-reviewer\ndescription: Own\n---\nown\n"
    )
    cli.srv.anthropic.enqueue(
        turn(
            tool_call(
                "Subagent", {"description": "r", "prompt": "review", "subagent_type": "feature-dev:code-reviewer"}
            )
        ),
        turn(text("feature-dev reviewed")),
        turn(text("done")),
    )
    out = cli.run(*cli.args("-p", "go", "--plugin-dir", str(one), "--plugin-dir", str(two), "--accept-project-config"))
    assert out.returncode == 0, out.stderr
    first, child, _last = cli.srv.anthropic.wait_for_requests(3)
    listing = subagent_description(first.body)
    for line in (
        "code-reviewer: Own",
        "pr-review-toolkit:code-reviewer: Reviews code (pr-review-toolkit)",
        "feature-dev:code-reviewer: Reviews code (feature-dev)",
    ):
        assert line in listing
    assert "feature-dev body" in json.dumps(child.body["system"])


def test_marketplace_in_a_git_repository_install_and_use(cli: CliEnv, tmp_path: Path) -> None:
    market = write_git_marketplace(tmp_path / "market")
    added = cli.run("plugin", "marketplace", "add", f"file://{market}")
    assert added.returncode == 0, added.stderr
    assert "Added marketplace team-tools (2 plugins)" in added.stdout
    listed = cli.run("plugin", "marketplace", "list")
    assert "toolkit@team-tools" in listed.stdout and "lean@team-tools" in listed.stdout

    refused = cli.run("plugin", "install", "toolkit@team-tools")  # stdin is not a terminal
    assert refused.returncode == 2 and "pass --yes" in refused.stderr
    assert "PreToolUse hook: python3" in refused.stdout and "plugin:toolkit:fixture" in refused.stdout
    assert "toolkit@team-tools" not in cli.run("plugin", "list").stdout

    for spec in ("toolkit@team-tools", "lean@team-tools"):
        done = cli.run("plugin", "install", spec, "--yes")
        assert done.returncode == 0, done.stderr
    installed = cli.home / ".skawld" / "plugins" / "cache" / "team-tools" / "toolkit"
    assert (installed / "hooks" / "hooks.json").is_file()
    assert "toolkit@team-tools  1.2.0  enabled" in cli.run("plugin", "list").stdout

    cli.srv.anthropic.enqueue(turn(text("ok")), turn(text("ok")))
    assert cli.run(*cli.args("-p", "/lean:hello there")).returncode == 0
    assert cli.run(*cli.args("-p", "/toolkit:git:sync now")).returncode == 0
    first, second = cli.srv.anthropic.wait_for_requests(2)
    assert "LEAN-HELLO there" in json.dumps(first.body["messages"][0])
    assert "PLUGIN-SYNC now" in json.dumps(second.body["messages"][0])

    assert cli.run("plugin", "disable", "toolkit@team-tools").returncode == 0
    cli.srv.anthropic.enqueue(turn(text("ok")))
    assert cli.run(*cli.args("-p", "hi")).returncode == 0
    assert "mcp__plugin_toolkit_fixture__echo" not in tool_names(cli.srv.anthropic.wait_for_requests(3)[-1].body)
    unknown = cli.run("plugin", "install", "nope@team-tools", "--yes")
    assert unknown.returncode == 1 and "marketplace 'team-tools' has no plugin 'nope'" in unknown.stderr


def test_a_plugin_the_project_enables_needs_trust_and_a_change_asks_again(cli: CliEnv, tmp_path: Path) -> None:
    market = write_git_marketplace(tmp_path / "market")
    assert cli.run("plugin", "marketplace", "add", str(market)).returncode == 0
    assert cli.run("plugin", "install", "toolkit@team-tools", "--yes").returncode == 0
    assert cli.run("plugin", "disable", "toolkit@team-tools").returncode == 0  # the user does not use it here
    write(cli.repo / ".claude" / "settings.json", json.dumps({"enabledPlugins": {"toolkit@team-tools": True}}))

    refused = cli.run(*cli.args("-p", "hi"))
    assert refused.returncode == 3, refused.stderr
    assert "the plugin toolkit@team-tools" in refused.stderr
    assert "the plugin's PreToolUse hook: python3" in refused.stderr
    assert "the plugin's MCP server 'plugin:toolkit:fixture'" in refused.stderr
    assert cli.srv.anthropic.requests == []

    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "rm -rf build"}, id="rm")), turn(text("ok")))
    accepted = cli.run(*cli.args("-p", "hi", "--accept-project-config", "--permission-mode", "yolo"))
    assert accepted.returncode == 0, accepted.stderr
    got = tool_results(cli.srv.anthropic.wait_for_requests(2)[1].body)
    assert got["rm"][1] and "hookify: rm -rf is blocked" in got["rm"][0]  # the plugin's hook ran

    cli.srv.anthropic.enqueue(turn(text("ok")))
    assert cli.run(*cli.args("-p", "hi")).returncode == 0, "the acceptance is remembered"
    installed = cli.home / ".skawld" / "plugins" / "cache" / "team-tools" / "toolkit"
    (installed / "hooks" / "pretooluse.py").write_text("import os; os.system('echo changed')\n")
    again = cli.run(*cli.args("-p", "hi"))
    assert again.returncode == 3 and "the plugin toolkit@team-tools" in again.stderr, "a changed plugin asks again"


def test_plugin_dirs_in_the_project_config_are_gated(cli: CliEnv) -> None:
    write_full_plugin(cli.repo / "vendor" / "toolkit")
    cli.write_project_config({"pluginDirs": ["../vendor/toolkit"]})
    refused = cli.run(*cli.args("-p", "hi"))
    assert refused.returncode == 3, refused.stderr
    assert "the plugin's PreToolUse hook: python3" in refused.stderr and "/pluginDirs" in refused.stderr
    cli.srv.anthropic.enqueue(turn(text("ok")))
    assert cli.run(*cli.args("-p", "/toolkit:review x", "--accept-project-config")).returncode == 0
    assert "PLUGIN-REVIEW of x" in json.dumps(cli.srv.anthropic.wait_for_requests(1)[0].body["messages"][0])


def test_session_notification_and_subagent_events_run_for_plugins(cli: CliEnv, tmp_path: Path) -> None:
    events = ("SessionStart", "SessionEnd", "Notification", "SubagentStop")
    root = write_full_plugin(tmp_path / "style", "style", extra_events=events)
    cli.srv.anthropic.enqueue(
        turn(tool_call("Write", {"file_path": str(cli.repo / "x.txt"), "content": "x"}, id="w")),
        turn(tool_call("Subagent", {"description": "d", "prompt": "look", "subagent_type": "style:code-reviewer"})),
        turn(text("child done")),
        turn(text("all done")),
    )
    out = cli.run(*cli.args("-p", "hi", "--plugin-dir", str(root)))
    assert out.returncode == 0, out.stderr
    first = cli.srv.anthropic.wait_for_requests(4)[0]
    assert "EXPLANATORY-MODE: explain your choices (startup)" in json.dumps(first.body["messages"][0])
    calls = [c for c in hook_calls(cli.repo) if c["event"] != "PreToolUse"]
    assert [c["event"] for c in calls] == ["SessionStart", "Notification", "SubagentStop", "SessionEnd"]
    start, note, sub, end = calls
    assert start["source"] == "startup" and start["root"] == str(root)
    assert note["notification_type"] == "permission_prompt" and "Write" in note["message"]
    assert sub["stop_hook_active"] is False
    assert end["reason"] == "other" and end["session_id"] == start["session_id"]

    cli.srv.anthropic.enqueue(turn(text("again")))
    resumed = cli.run(*cli.args("-p", "more", "--plugin-dir", str(root), "--resume", start["session_id"]))
    assert resumed.returncode == 0, resumed.stderr
    assert "(resume)" in json.dumps(cli.srv.anthropic.wait_for_requests(5)[-1].body["messages"])
