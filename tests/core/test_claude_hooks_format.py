"""Claude Code's nested hook format: flattening, matchers, decision output, errors."""

from __future__ import annotations

from typing import Any

import pytest

from skawld_core.claude_settings import settings_document
from skawld_core.errors import ConfigError
from skawld_core.hooks import HookAllow, HookAsk, HookBlock, HookContinue, HookDeny, PostToolUseOutcome
from skawld_core.hooks.claude_format import claude_hook_input, claude_hook_outcome, claude_matcher, flatten_claude_hooks


def test_nested_groups_become_one_entry_per_command() -> None:
    doc = {
        "PreToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [{"type": "command", "command": "a.sh", "timeout": 5}, {"command": "b.sh"}],
            },
            {"matcher": "*", "hooks": [{"type": "command", "command": "c.sh"}]},
        ],
        "Stop": [{"matcher": "ignored for Stop", "hooks": [{"type": "command", "command": "d.sh", "timeout": 0.5}]}],
    }
    flat, notes = flatten_claude_hooks(doc, where="s.json")
    assert flat == {
        "PreToolUse": [
            {"command": "a.sh", "format": "claude-code", "matcher": "Edit|Write", "timeoutMs": 5000},
            {"command": "b.sh", "format": "claude-code", "matcher": "Edit|Write"},
            {"command": "c.sh", "format": "claude-code"},
        ],
        "Stop": [{"command": "d.sh", "format": "claude-code", "timeoutMs": 500}],
    }
    assert notes == []


def test_events_and_hook_types_skawld_lacks_are_notes() -> None:
    doc = {
        "PermissionRequest": [{"hooks": [{"type": "command", "command": "x"}]}],
        "PostToolUse": [
            {"matcher": "(", "hooks": [{"command": "y"}]},
            {"hooks": [{"type": "prompt", "prompt": "ok?"}, {"command": "z"}]},
        ],
    }
    flat, notes = flatten_claude_hooks(doc, where="s.json")
    assert flat == {"PostToolUse": [{"command": "z", "format": "claude-code"}]}
    assert any("PermissionRequest" in n for n in notes)
    assert any("'('" in n and "regular expression" in n for n in notes)
    assert any("'prompt' hooks are not supported" in n for n in notes)


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ([], "/hooks"),
        ({"PreToolUse": {}}, "/hooks/PreToolUse"),
        ({"PreToolUse": [{"command": "flat.sh"}]}, "/hooks/PreToolUse/0"),
        ({"PreToolUse": [{"hooks": [{"type": "command"}]}]}, "/hooks/PreToolUse/0/hooks/0/command"),
        ({"PreToolUse": [{"hooks": [{"command": "x", "timeout": -1}]}]}, "/hooks/PreToolUse/0/hooks/0/timeout"),
        ({"PreToolUse": [{"matcher": 3, "hooks": []}]}, "/hooks/PreToolUse/0/matcher"),
    ],
)
def test_malformed_hooks_name_the_file_and_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(ConfigError) as info:
        flatten_claude_hooks(doc, where="/p/.claude/settings.json")
    assert f"/p/.claude/settings.json ({pointer})" in str(info.value)


def test_settings_document_carries_hooks_instead_of_ignoring_them() -> None:
    doc, notes = settings_document(
        {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "ctx.sh"}]}]}}, where="x"
    )
    assert doc == {"hooks": {"UserPromptSubmit": [{"command": "ctx.sh", "format": "claude-code"}]}}
    assert not any("hooks" in n for n in notes)


@pytest.mark.parametrize(
    ("pattern", "tool", "hit"),
    [
        (None, "Bash", True),
        ("", "Bash", True),
        ("*", "mcp__gh__list", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),  # a plain name is exact
        ("Edit|Write", "Write", True),
        ("Edit|Write", "Read", False),
        ("MultiEdit", "Edit", True),  # Claude Code's name for skawld's tool
        ("mcp__memory__.*", "mcp__memory__store", True),
        ("mcp__memory__.*", "mcp__fs__read", False),
        ("Notebook.*", "NotebookEdit", True),
        ("^Bash", "BashOutput", True),  # a regex is searched
    ],
)
def test_claude_matcher(pattern: str | None, tool: str, hit: bool) -> None:
    assert claude_matcher(pattern)(tool) is hit


@pytest.mark.parametrize(
    ("event", "out", "expected"),
    [
        ("PreToolUse", {"hookSpecificOutput": {"permissionDecision": "allow"}}, HookAllow()),
        (
            "PreToolUse",
            {"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}},
            HookAllow(updated_input={"command": "ls"}),
        ),
        (
            "PreToolUse",
            {"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "nope"}},
            HookDeny("nope"),
        ),
        ("PreToolUse", {"hookSpecificOutput": {"permissionDecision": "ask"}}, HookAsk()),
        ("PreToolUse", {"decision": "approve"}, HookAllow()),
        ("PreToolUse", {"decision": "block", "reason": "old style"}, HookDeny("old style")),
        ("PreToolUse", {"continue": False, "stopReason": "halt"}, HookDeny("halt")),
        ("PreToolUse", {"hookSpecificOutput": {"updatedInput": {"a": 1}}}, HookContinue(updated_input={"a": 1})),
        ("PreToolUse", {"suppressOutput": True}, None),
        ("PostToolUse", {"decision": "block", "reason": "lint failed"}, PostToolUseOutcome("lint failed")),
        ("PostToolUse", {"hookSpecificOutput": {"additionalContext": "fyi"}}, PostToolUseOutcome("fyi")),
        ("UserPromptSubmit", {"decision": "block", "reason": "off topic"}, HookBlock("off topic")),
        ("UserPromptSubmit", {"continue": False, "stopReason": "later"}, HookBlock("later")),
        (
            "UserPromptSubmit",
            {"hookSpecificOutput": {"additionalContext": "remember X"}},
            HookContinue(additional_context="remember X"),
        ),
        ("Stop", {"decision": "block", "reason": "keep going"}, HookBlock("keep going")),
        ("Stop", {"decision": "block", "reason": "x", "continue": False}, None),  # continue:false wins: stop
    ],
)
def test_claude_decision_output(event: str, out: dict[str, Any], expected: object) -> None:
    assert claude_hook_outcome(event, out) == expected


@pytest.mark.parametrize(
    ("out", "command_hook", "sdk_callback"),
    [
        ({"continue": False, "stopReason": "more tests"}, None, HookBlock("more tests")),
        ({"decision": "block", "reason": "x", "continue": False}, None, HookBlock("x")),
        ({"decision": "block", "reason": "x"}, HookBlock("x"), HookBlock("x")),
        ({}, None, None),
    ],
)
def test_continue_false_on_stop_keeps_an_sdk_callback_going(
    out: dict[str, Any], command_hook: Any, sdk_callback: Any
) -> None:
    assert claude_hook_outcome("Stop", out) == command_hook
    assert claude_hook_outcome("Stop", out, keep_going_on_stop=True) == sdk_callback


def test_hook_input_is_json_in_claude_codes_words() -> None:
    import json

    from skawld_core.hooks import PostToolUseInput
    from skawld_core.messages import Base64Source, ImageBlock, TextBlock

    content = [TextBlock(text="seen"), ImageBlock(source=Base64Source(media_type="image/png", data="AAAA"))]
    data = PostToolUseInput("Read", "t1", {"file_path": "a.png"}, content, False, 1.0)
    payload = claude_hook_input("PostToolUse", data, "s1", "/repo", "yolo")
    assert json.loads(json.dumps(payload)) == payload
    assert payload["permission_mode"] == "bypassPermissions"
    assert payload["tool_response"] == [
        {"type": "text", "text": "seen"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}},
    ]
    text = PostToolUseInput("Read", "t1", {"file_path": "a.txt"}, "hi", False, 1.0)
    assert claude_hook_input("PostToolUse", text, "s1", "/repo", "plan")["tool_response"] == "hi"


async def test_a_fail_open_pre_tool_use_hook_lets_the_call_continue() -> None:
    from skawld_core.hooks import HookContext, HookEntry, HookRunner, PreToolUseInput

    async def broken(_inp: object, _ctx: HookContext) -> None:
        raise RuntimeError("exit 1")

    inp = PreToolUseInput("Bash", "t1", {"command": "ls"}, "ls")
    ctx = HookContext(session_id="s", run_id="r", cwd="/")
    for fail_open, decision in ((True, "continue"), (False, "deny")):
        runner = HookRunner({"PreToolUse": [HookEntry(hook=broken, fail_open=fail_open)]})
        result = await runner.pre_tool_use(inp, ctx, lambda d: (d, "ls"))
        assert result.decision == decision
        assert [e.message for e in result.errors] == ["exit 1"]


def test_nested_hooks_in_a_skawld_config_file_are_read_too(tmp_path: Any) -> None:
    import json

    from skawld_core.config import load_config

    home = tmp_path / "home"
    (home / ".skawld").mkdir(parents=True)
    (home / ".skawld" / "config.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "command": "flat.sh"},
                        {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "nested.sh"}]},
                    ],
                    "PermissionRequest": [{"hooks": [{"type": "command", "command": "x"}]}],
                }
            }
        )
    )
    loaded = load_config(cwd=tmp_path, env={"HOME": str(home)})
    assert loaded.raw["hooks"] == {
        "PreToolUse": [
            {"matcher": "Bash", "command": "flat.sh"},
            {"command": "nested.sh", "format": "claude-code", "matcher": "Edit|Write"},
        ]
    }
    assert any("PermissionRequest" in w.message for w in loaded.warnings)
