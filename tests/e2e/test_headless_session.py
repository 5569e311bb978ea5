"""End to end: the installed `skawld -p` against the local wire server, in a temp git repo."""

from __future__ import annotations

import json

import pytest

from skawld_core.events import (
    AssistantEvent,
    PermissionRequestEvent,
    ResultEvent,
    SystemEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UserEvent,
)
from skawld_core.messages import ToolResultBlock
from tests.cli.harness import CliEnv, parse_events
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(90)


def _tool_results(events: list[object]) -> dict[str, ToolResultBlock]:
    out: dict[str, ToolResultBlock] = {}
    for e in events:
        if isinstance(e, UserEvent) and e.subtype == "tool_result":
            for b in e.message.content:
                if isinstance(b, ToolResultBlock):
                    out[b.tool_use_id] = b
    return out


def test_read_edit_bash_session_edits_the_file(cli: CliEnv) -> None:
    app = cli.repo / "app.py"
    app.write_text("def answer():\n    return 1\n")
    cli.srv.anthropic.enqueue(
        turn(text("Let me look."), tool_call("Read", {"file_path": "app.py"}, id="r1")),
        turn(tool_call("Edit", {"file_path": "app.py", "old_string": "return 1", "new_string": "return 42"}, id="e1")),
        turn(tool_call("Bash", {"command": "cat app.py"}, id="b1")),
        turn(text("Changed the answer to 42.")),
    )
    out = cli.run(*cli.args("-p", "make it 42", "--json", "--allowed-tools", "Edit", "--allowed-tools", "Bash(cat:*)"))
    assert out.returncode == 0, out.stderr
    events = parse_events(out.stdout)  # every stdout line is a spec event
    assert isinstance(events[0], SystemEvent) and isinstance(events[-1], ResultEvent)
    assert events[-1].subtype == "success" and events[-1].final_text == "Changed the answer to 42."
    assert app.read_text() == "def answer():\n    return 42\n"
    starts = [e.tool_name for e in events if isinstance(e, ToolCallStartEvent)]
    assert starts == ["Read", "Edit", "Bash"]
    assert not any(e.is_error for e in events if isinstance(e, ToolCallEndEvent))
    assert not any(isinstance(e, PermissionRequestEvent) for e in events)
    results = _tool_results(events)
    assert "return 42" in str(results["b1"].content)
    assert sum(isinstance(e, AssistantEvent) for e in events) == 4
    assert len(cli.srv.anthropic.requests) == 4

    shown = cli.run("sessions", "show", events[0].session_id)
    assert shown.returncode == 0
    rows = [json.loads(line) for line in shown.stdout.splitlines()]
    assert [r["seq"] for r in rows] == list(range(1, 9))
    assert rows[-1]["message"]["role"] == "assistant"


def test_json_output_is_one_result_object(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Read", {"file_path": "nope.txt"}, id="r1")), turn(text("All done.")))
    out = cli.run(*cli.args("-p", "hi", "--output-format", "json"))
    assert out.returncode == 0, out.stderr
    (line,) = out.stdout.splitlines()
    obj = json.loads(line)
    assert obj["type"] == "result" and obj["subtype"] == "success" and obj["is_error"] is False
    assert obj["result"] == "All done."
    assert obj["num_turns"] == 2
    assert obj["usage"]["input_tokens"] == 20 and obj["usage"]["output_tokens"] == 84
    assert obj["permission_denials"] == []
    assert isinstance(obj["duration_ms"], float | int) and obj["session_id"]


def test_text_output_prints_the_final_text(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("The answer is 42.")))
    out = cli.run(*cli.args("-p", "what?"))
    assert (out.returncode, out.stdout) == (0, "The answer is 42.\n")


def test_prompt_from_stdin_and_pretty_output(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "--json", "--pretty"), input="prompt from stdin\n")
    assert out.returncode == 0, out.stderr
    blocks = [b for b in out.stdout.split("\n\n") if b.strip()]
    assert json.loads(blocks[0])["type"] == "system" and json.loads(blocks[-1])["type"] == "result"
    assert "\n  " in blocks[0]
    sent = cli.srv.anthropic.requests[0].body["messages"][0]["content"]
    assert any("prompt from stdin" in part.get("text", "") for part in sent)


def test_resume_by_id_in_a_second_process(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("first answer")), turn(text("second answer")))
    first = cli.run(*cli.args("-p", "remember the word kumquat", "--output-format", "json"))
    sid = json.loads(first.stdout)["session_id"]
    second = cli.run(*cli.args("-p", "what was the word?", "--resume", sid, "--json"))
    assert second.returncode == 0, second.stderr
    events = parse_events(second.stdout)
    assert isinstance(events[0], SystemEvent) and events[0].session_id == sid
    messages = cli.srv.anthropic.requests[1].body["messages"]
    assert len(messages) == 3
    assert "kumquat" in json.dumps(messages[0]) and messages[1]["role"] == "assistant"
    listed = [json.loads(line) for line in cli.run("sessions", "list").stdout.splitlines()]
    assert [(r["id"], r["message_count"]) for r in listed] == [(sid, 4)]


def test_continue_resumes_the_newest_session_of_this_directory(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("a")), turn(text("b")), turn(text("c")))
    cli.run(*cli.args("-p", "one"))
    newest = json.loads(cli.run(*cli.args("-p", "two", "--output-format", "json")).stdout)["session_id"]
    cont = cli.run(*cli.args("-p", "three", "--continue", "--output-format", "json"))
    assert cont.returncode == 0, cont.stderr
    assert json.loads(cont.stdout)["session_id"] == newest
    assert len(cli.srv.anthropic.requests[2].body["messages"]) == 3


def test_resume_of_unknown_id_is_a_usage_error(cli: CliEnv) -> None:
    out = cli.run(*cli.args("-p", "hi", "--resume", "does-not-exist"))
    assert out.returncode == 2 and "does-not-exist" in out.stderr


def test_session_flag_creates_with_the_given_id(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--session", "my-id", "--json"))
    assert parse_events(out.stdout)[0].session_id == "my-id"  # type: ignore[union-attr]


def test_ask_without_canusetool_is_denied_and_reported(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "touch pwned"}, id="b1")), turn(text("could not")))
    out = cli.run(*cli.args("-p", "run it", "--output-format", "json"))
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    (denial,) = obj["permission_denials"]
    assert (denial["tool_name"], denial["tool_use_id"]) == ("Bash", "b1")
    assert denial["tool_input"]["command"] == "touch pwned"
    assert not (cli.repo / "pwned").exists()
    result = cli.srv.anthropic.requests[1].body["messages"][-1]["content"][0]
    assert result["is_error"] is True and "--canusetool" in json.dumps(result)


def test_disallowed_tools_beat_yolo(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "touch x"}, id="b1")), turn(text("no")))
    out = cli.run(
        *cli.args("-p", "go", "--permission-mode", "yolo", "--disallowed-tools", "Bash", "--output-format", "json")
    )
    # Issue 30: a bare built-in name in --disallowed-tools takes the tool off the model's list (as
    # Claude Code does), so the call is answered as an unknown tool, not as a permission denial.
    assert json.loads(out.stdout)["permission_denials"] == []
    assert "Bash" not in [t["name"] for t in cli.srv.anthropic.requests[0].body["tools"]]
    assert not (cli.repo / "x").exists()


def test_instructions_files_join_the_system_prompt(cli: CliEnv) -> None:
    (cli.repo / "AGENTS.md").write_text("Project rule: use tabs.\n")
    (cli.repo / "CLAUDE.md").write_text("Claude file: read as well, after AGENTS.md.\n")
    (cli.home / ".skawld").mkdir()
    (cli.home / ".skawld" / "AGENTS.md").write_text("User rule: be terse.\n")
    cli.write_user_config({"systemPrompt": "Config prompt first."})
    sub = cli.repo / "pkg"
    sub.mkdir()
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--verbose", "--cwd", str(sub), "--json"))
    assert out.returncode == 0, out.stderr
    system_event = json.loads(out.stdout.splitlines()[0])
    assert system_event["type"] == "system"
    assert system_event["instructions"] == [
        str(cli.home / ".skawld" / "AGENTS.md"),
        str(cli.repo / "AGENTS.md"),
        str(cli.repo / "CLAUDE.md"),
    ]
    system = json.dumps(cli.srv.anthropic.requests[0].body["system"])
    assert (
        system.index("Config prompt first.")
        < system.index("User rule: be terse.")
        < system.index("Project rule")
        < system.index("Claude file")
    )
    assert str(cli.repo / "AGENTS.md") in out.stderr and str(cli.home / ".skawld" / "AGENTS.md") in out.stderr


def test_claude_md_is_the_fallback(cli: CliEnv) -> None:
    (cli.repo / "CLAUDE.md").write_text("Claude-style rules.\n")
    cli.srv.anthropic.enqueue(turn(text("ok")))
    assert cli.run(*cli.args("-p", "hi")).returncode == 0
    assert "Claude-style rules." in json.dumps(cli.srv.anthropic.requests[0].body["system"])


def test_no_cache_sends_no_cache_markers(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")), turn(text("ok")))
    cli.run(*cli.args("-p", "hi"))
    cli.run(*cli.args("-p", "hi", "--no-cache"))
    assert "cache_control" in json.dumps(cli.srv.anthropic.requests[0].body)
    assert "cache_control" not in json.dumps(cli.srv.anthropic.requests[1].body)


def test_openai_chat_provider_with_local_base_url_needs_no_key(cli: CliEnv) -> None:
    cli.srv.chat.enqueue(turn(text("local model says hi")))
    out = cli.run(
        "-p", "hi", "--provider", "openai-chat", "--base-url", cli.srv.openai_url, "--model", "llama",
        env={"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": ""},
    )  # fmt: skip
    assert (out.returncode, out.stdout) == (0, "local model says hi\n"), out.stderr


def test_turn_limit_is_an_error_exit_1(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Read", {"file_path": "a"}, id="r1")), turn(text("never")))
    out = cli.run(*cli.args("-p", "hi", "--max-turns", "1", "--json"))
    assert out.returncode == 1
    events = parse_events(out.stdout)
    assert isinstance(events[-1], ResultEvent) and events[-1].subtype == "error"


def test_subagent_runs_are_in_the_export(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Subagent", {"description": "say hi", "prompt": "Say hi."}, id="s1")),
        turn(text("child says hi")),
        turn(text("parent done")),
    )
    out = cli.run(*cli.args("-p", "delegate", "--allowed-tools", "Subagent", "--output-format", "json"))
    assert out.returncode == 0, out.stderr
    sid = json.loads(out.stdout)["session_id"]
    md = cli.run("sessions", "export", sid, "--format", "markdown")
    assert md.returncode == 0, md.stderr
    assert "Subagent runs" in md.stdout and "child says hi" in md.stdout and "parent done" in md.stdout
    exported = json.loads(cli.run("sessions", "export", sid, "--format", "json").stdout)
    assert exported["session"]["id"] == sid
    assert exported["subagents"][0]["messages"][-1]["message"]["content"][0]["text"] == "child says hi"


def test_sessions_delete(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    sid = json.loads(cli.run(*cli.args("-p", "hi", "--output-format", "json")).stdout)["session_id"]
    kept = cli.run("sessions", "delete", sid, input="n\n")
    assert kept.returncode == 1 and "Delete session" in kept.stderr
    assert cli.run("sessions", "show", sid).returncode == 0
    gone = cli.run("sessions", "delete", sid, "--yes")
    assert gone.returncode == 0
    missing = cli.run("sessions", "show", sid)
    assert missing.returncode == 1 and "no session" in missing.stderr
    assert cli.run("sessions", "list").stdout == ""


def test_sessions_without_a_database(cli: CliEnv) -> None:
    out = cli.run("sessions", "list")
    assert out.returncode == 1 and "no session database" in out.stderr


def test_stdout_has_nothing_but_events_when_a_hook_prints(cli: CliEnv) -> None:
    cli.write_user_config({"hooks": {"PreToolUse": [{"matcher": "Read", "command": "echo hook-noise; echo err >&2"}]}})
    cli.srv.anthropic.enqueue(turn(tool_call("Read", {"file_path": "missing"}, id="r1")), turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--json"))
    assert out.returncode == 0, out.stderr
    parse_events(out.stdout)
    assert "hook-noise" not in out.stdout


def test_command_hook_exit_2_denies(cli: CliEnv) -> None:
    cli.write_user_config(
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "command": "echo 'no shell today' >&2; exit 2"}]}}
    )
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "touch y"}, id="b1")), turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--permission-mode", "yolo", "--json"))
    assert out.returncode == 0, out.stderr
    result = _tool_results(parse_events(out.stdout))["b1"]
    assert result.is_error and "no shell today" in str(result.content)
    assert not (cli.repo / "y").exists()


def test_never_a_traceback_on_a_broken_sqlite_file(cli: CliEnv) -> None:
    cli.db.parent.mkdir(parents=True, exist_ok=True)
    cli.db.write_bytes(b"this is not a database" * 100)
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--json"))
    assert out.returncode != 0
    assert "Traceback" not in out.stderr and out.stderr.strip()


def test_interactive_entry_resumes_in_plain_mode(cli: CliEnv) -> None:
    """Without -p and without a terminal, `skawld --resume ID` / `--continue` open the plain line mode."""
    cli.srv.anthropic.enqueue(turn(text("first")), turn(text("second")), turn(text("third")))
    sid = json.loads(cli.run(*cli.args("-p", "one", "--output-format", "json")).stdout)["session_id"]
    resumed = cli.run(*cli.args("--resume", sid), input="two\n")
    assert resumed.returncode == 0, resumed.stderr
    assert len(cli.srv.anthropic.requests[1].body["messages"]) == 3
    cont = cli.run(*cli.args("--continue"), input="three\n")
    assert cont.returncode == 0, cont.stderr
    assert len(cli.srv.anthropic.requests[2].body["messages"]) == 5
    listed = [json.loads(line) for line in cli.run("sessions", "list").stdout.splitlines()]
    assert [(r["id"], r["message_count"]) for r in listed] == [(sid, 6)]


def test_prompt_argument_without_print_is_a_usage_error(cli: CliEnv) -> None:
    out = cli.run(*cli.args("do something"))
    assert out.returncode == 2 and "-p" in out.stderr
