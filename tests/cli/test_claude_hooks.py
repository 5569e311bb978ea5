"""Claude Code's nested hooks from `.claude/settings.json` and `~/.claude/settings.json`, run by
the real `skawld -p` against the wire server with a real hook script: Claude Code's stdin JSON,
exit code 2, JSON decisions, PostToolUse / UserPromptSubmit context, Stop blocks, trust."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn

HOOK_SCRIPT = r"""
import json, os, sys

data = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "hook-log.jsonl"), "a") as log:
    log.write(json.dumps(data) + "\n")
event = data["hook_event_name"]
tool_input = data.get("tool_input") or {}
if event == "PreToolUse":
    command = tool_input.get("command", "")
    if command.startswith("rm "):
        print("no rm please", file=sys.stderr)
        sys.exit(2)
    if "secret" in tool_input.get("file_path", ""):
        decision = {"permissionDecision": "deny", "permissionDecisionReason": "secrets stay secret"}
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", **decision}}))
    if "crash" in command:
        sys.exit(1)  # a failing Claude Code hook does not block the call
elif event == "PostToolUse":
    print("post-check: looks fine", file=sys.stderr)
    sys.exit(2)
elif event == "UserPromptSubmit":
    context = {"hookEventName": "UserPromptSubmit", "additionalContext": "ticket ABC-1 is open"}
    print(json.dumps({"hookSpecificOutput": context}))
elif event == "Stop" and not data["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "run the tests first"}))
"""


def hook_settings(command: str) -> dict[str, Any]:
    hook = [{"type": "command", "command": command, "timeout": 30}]
    return {
        "hooks": {
            "PreToolUse": [{"matcher": "Bash|Read", "hooks": hook}],
            "PostToolUse": [{"matcher": "Bash", "hooks": hook}],
            "UserPromptSubmit": [{"hooks": hook}],
            "Stop": [{"hooks": hook}],
        }
    }


def install_hook(root: Path) -> str:
    script = root / ".claude" / "hooks" / "guard.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(HOOK_SCRIPT, encoding="utf-8")
    return f'"{sys.executable}" "$CLAUDE_PROJECT_DIR/.claude/hooks/guard.py"'


def results(body: Any) -> dict[str, tuple[str, bool]]:
    """tool_use_id → (text, is_error) of the tool results in one recorded request."""
    out: dict[str, tuple[str, bool]] = {}
    for message in body["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                flat = "".join(b.get("text", "") for b in content) if isinstance(content, list) else content
                out[block["tool_use_id"]] = (flat, bool(block.get("is_error")))
    return out


def test_project_hooks_in_claude_format_guard_tools_and_talk_to_the_model(cli: CliEnv) -> None:
    command = install_hook(cli.repo)
    settings = cli.repo / ".claude" / "settings.json"
    settings.write_text(json.dumps(hook_settings(command)), encoding="utf-8")
    (cli.repo / "build").mkdir()
    (cli.repo / "secret.txt").write_text("hunter2", encoding="utf-8")

    refused = cli.run(*cli.args("-p", "go"))
    assert refused.returncode == 3, refused.stderr
    assert "the PreToolUse hook" in refused.stderr and "guard.py" in refused.stderr
    assert not (cli.repo / "hook-log.jsonl").exists()  # nothing ran before acceptance

    cli.srv.anthropic.enqueue(
        turn(
            tool_call("Bash", {"command": "rm -rf build"}, id="a"),
            tool_call("Read", {"file_path": str(cli.repo / "secret.txt")}, id="b"),
            tool_call("Bash", {"command": "echo crash-but-ran"}, id="c"),
        ),
        turn(text("done")),
        turn(text("tests pass, done")),
    )
    out = cli.run(*cli.args("-p", "go", "--accept-project-config", "--permission-mode", "yolo"))
    assert out.returncode == 0, out.stderr
    assert (cli.repo / "build").is_dir()

    first, second, third = cli.srv.anthropic.wait_for_requests(3)
    assert "ticket ABC-1 is open" in json.dumps(first.body["messages"][0])
    got = results(second.body)
    assert got["a"][1] and "no rm please" in got["a"][0]
    assert got["b"][1] and "secrets stay secret" in got["b"][0] and "hunter2" not in got["b"][0]
    assert not got["c"][1] and "crash-but-ran" in got["c"][0] and "post-check: looks fine" in got["c"][0]
    assert "run the tests first" in json.dumps(third.body["messages"][-1])

    log = [json.loads(line) for line in (cli.repo / "hook-log.jsonl").read_text().splitlines()]
    pre = [e for e in log if e["hook_event_name"] == "PreToolUse"]
    assert [e["tool_use_id"] for e in pre] == ["a", "b", "c"]
    first_pre = pre[0]
    assert first_pre["tool_name"] == "Bash" and first_pre["tool_input"]["command"] == "rm -rf build"
    assert first_pre["cwd"] == str(cli.repo) and first_pre["permission_mode"] == "bypassPermissions"
    assert first_pre["session_id"] and "transcript_path" in first_pre
    post = [e for e in log if e["hook_event_name"] == "PostToolUse"]
    assert [e["tool_use_id"] for e in post] == ["c"] and "crash-but-ran" in json.dumps(post[0]["tool_response"])
    stops = [e["stop_hook_active"] for e in log if e["hook_event_name"] == "Stop"]
    assert stops == [False, True]
    prompts = [e["prompt"] for e in log if e["hook_event_name"] == "UserPromptSubmit"]
    assert prompts == ["go"]


def test_user_hooks_need_no_trust_and_unknown_events_are_reported(cli: CliEnv) -> None:
    command = install_hook(cli.home)
    command = command.replace("$CLAUDE_PROJECT_DIR", str(cli.home))
    doc = {
        "hooks": {
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": command}]}],
            "PermissionRequest": [{"hooks": [{"type": "command", "command": "echo hi"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "is this safe?"}]}],
        }
    }
    settings = cli.home / ".claude" / "settings.json"
    settings.write_text(json.dumps(doc), encoding="utf-8")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "-v"))
    assert out.returncode == 0, out.stderr
    (request,) = cli.srv.anthropic.wait_for_requests(1)
    assert "ticket ABC-1 is open" in json.dumps(request.body["messages"][0])
    assert "PermissionRequest" in out.stderr and "'prompt' hooks are not supported" in out.stderr
    assert f"Claude Code settings read: {settings}" in out.stderr
