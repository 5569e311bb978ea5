"""Copies of real Claude Code plugins' shapes, written by the tests.

`write_full_plugin` follows anthropics/claude-code's plugins: a ``.claude-plugin/plugin.json``
manifest, ``commands/*.md`` with frontmatter (and a subfolder), ``agents/*.md`` (a
``code-reviewer`` as in pr-review-toolkit), ``skills/<name>/SKILL.md``, hookify's
``hooks/hooks.json`` (top-level events, ``"matcher": "*"``, ``python3
${CLAUDE_PLUGIN_ROOT}/hooks/pretooluse.py``) and a ``.mcp.json`` starting the tests' MCP
fixture server through ``${CLAUDE_PLUGIN_ROOT}``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from ext_helpers import FIXTURES

# hookify's pretooluse.py in miniature: block `rm -rf`, log every call with the plugin root it saw
PRETOOLUSE = r"""
import json, os, sys
data = json.load(sys.stdin)
root = os.environ.get("CLAUDE_PLUGIN_ROOT", "")
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "hook-calls.jsonl"), "a") as log:
    log.write(json.dumps({"event": data["hook_event_name"], "tool": data.get("tool_name"), "root": root}) + "\n")
command = (data.get("tool_input") or {}).get("command", "")
if "rm -rf" in command:
    out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
           "permissionDecisionReason": "hookify: rm -rf is blocked"}}
    print(json.dumps(out))
"""

# explanatory-output-style's SessionStart handler in miniature (additionalContext), logging every event
LOG_EVENT = r"""
import json, os, sys
data = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "hook-calls.jsonl"), "a") as log:
    log.write(json.dumps({**data, "event": data["hook_event_name"], "root": os.environ["CLAUDE_PLUGIN_ROOT"]}) + "\n")
if data["hook_event_name"] == "SessionStart":
    context = "EXPLANATORY-MODE: explain your choices (" + data["source"] + ")"
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}}))
"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def agent_md(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\nmodel: sonnet\ncolor: green\n---\n\n{body}\n"


def write_full_plugin(root: Path, name: str = "toolkit", *, extra_events: tuple[str, ...] = ()) -> Path:
    """A commands+agents+skills+hooks+MCP plugin at `root`."""
    manifest = {"name": name, "version": "1.2.0", "description": "Review helpers", "author": {"name": "Tests"}}
    write(root / ".claude-plugin" / "plugin.json", json.dumps(manifest, indent=2))
    write(
        root / "commands" / "review.md",
        "---\ndescription: Review the given path\nargument-hint: <path>\nallowed-tools: Read, Grep\n---\n"
        "PLUGIN-REVIEW of $ARGUMENTS using the code-reviewer agent.\n",
    )
    write(root / "commands" / "git" / "sync.md", "---\ndescription: Sync\n---\nPLUGIN-SYNC $ARGUMENTS\n")
    write(
        root / "agents" / "code-reviewer.md",
        agent_md("code-reviewer", f"Reviews code ({name})", f"You are {name}'s reviewer."),
    )
    write(
        root / "skills" / "writing-rules" / "SKILL.md",
        "---\nname: writing-rules\ndescription: How to write hookify rules\n---\nRULES-BODY\n",
    )
    write(root / "hooks" / "pretooluse.py", PRETOOLUSE)
    write(root / "hooks" / "log_event.py", LOG_EVENT)
    hooks: dict[str, object] = {
        "PreToolUse": [
            {
                "matcher": "*",
                "hooks": [
                    {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/pretooluse.py", "timeout": 10}
                ],
            }
        ]
    }
    for event in extra_events:
        hooks[event] = [
            {
                "hooks": [
                    {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/log_event.py", "timeout": 10}
                ]
            }
        ]
    write(root / "hooks" / "hooks.json", json.dumps(hooks, indent=2))
    server = {
        "command": sys.executable,
        "args": [str(FIXTURES / "mcp_fixture_server.py")],
        "env": {"FIXTURE_ROOT": "${CLAUDE_PLUGIN_ROOT}"},
    }
    write(root / ".mcp.json", json.dumps({"mcpServers": {"fixture": server}}, indent=2))
    return root


def write_agent_plugin(root: Path, name: str) -> Path:
    """A plugin with only a `code-reviewer` agent (two of them clash by name)."""
    write(root / ".claude-plugin" / "plugin.json", json.dumps({"name": name, "version": "0.1.0"}))
    write(root / "agents" / "code-reviewer.md", agent_md("code-reviewer", f"Reviews code ({name})", f"{name} body"))
    return root


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def write_git_marketplace(root: Path) -> Path:
    """A marketplace in a local git repository: `toolkit` by path, `lean` with `strict: false`."""
    write_full_plugin(root / "plugins" / "toolkit")
    write(root / "plugins" / "lean" / "extra" / "hello.md", "---\ndescription: Hi\n---\nLEAN-HELLO $ARGUMENTS\n")
    market = {
        "name": "team-tools",
        "owner": {"name": "Tests"},
        "plugins": [
            {"name": "toolkit", "source": "./plugins/toolkit", "description": "Review helpers"},
            {
                "name": "lean",
                "source": "./plugins/lean",
                "strict": False,
                "description": "A plugin without plugin.json",
                "commands": ["./extra/hello.md"],
            },
        ],
    }
    write(root / ".claude-plugin" / "marketplace.json", json.dumps(market, indent=2))
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "marketplace")
    return root
