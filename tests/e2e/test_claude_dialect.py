"""The Claude Code dialect at the shell: documented idioms, the result envelope, budget and
turn limits, stdin lines, Claude Code's flags and their usage errors."""

from __future__ import annotations

import base64
import json
import os
import shlex
import shutil
import subprocess

import pytest
from claude_agent_sdk._internal.message_parser import parse_message

from tests.cli.harness import MODEL, CliEnv, skawld_command
from tests.support.wire_server import WireUsage, text, tool_call, turn

pytestmark = pytest.mark.timeout(120)

ENVELOPE_KEYS = {
    "type",
    "subtype",
    "is_error",
    "result",
    "session_id",
    "num_turns",
    "duration_ms",
    "duration_api_ms",
    "total_cost_usd",
    "usage",
    "modelUsage",
    "permission_denials",
}


def lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def shell(cli: CliEnv, pipeline: str) -> subprocess.CompletedProcess[str]:
    """Run `skawld <args> | <rest>` through /bin/sh, as a CI script would."""
    cmd = shlex.join(skawld_command())
    return subprocess.run(
        ["sh", "-c", pipeline.replace("SKAWLD", cmd)],
        capture_output=True,
        text=True,
        cwd=cli.repo,
        env=cli.env,
        stdin=subprocess.DEVNULL,
        timeout=90,
    )


def needs_jq() -> None:
    if shutil.which("jq") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("jq is not installed (.ci/run installs it)")
        pytest.skip("jq is not installed")


def test_json_result_idiom_with_jq(cli: CliEnv) -> None:
    needs_jq()
    cli.srv.anthropic.enqueue(turn(text("Hello from skawld")))
    out = shell(cli, f"SKAWLD -p hi --output-format json --base-url {cli.srv.url} --model {MODEL} | jq -r .result")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "Hello from skawld\n"


def test_stream_json_tail_is_the_same_envelope_as_json(cli: CliEnv) -> None:
    needs_jq()
    cli.srv.anthropic.enqueue(turn(text("streamed")), turn(text("one object")))
    args = f"--base-url {cli.srv.url} --model {MODEL}"
    streamed = shell(cli, f"SKAWLD -p hi --output-format stream-json {args} | tail -1")
    single = shell(cli, f"SKAWLD -p hi --output-format json {args}")
    assert streamed.returncode == 0 and single.returncode == 0, streamed.stderr + single.stderr
    last, obj = json.loads(streamed.stdout), json.loads(single.stdout)
    assert set(last) >= ENVELOPE_KEYS and set(last) == set(obj)
    assert (last["result"], obj["result"]) == ("streamed", "one object")
    assert last["is_error"] is False and last["num_turns"] == 1 and last["total_cost_usd"] == 0  # local server


def test_stream_json_lines_carry_session_uuid_and_parent(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Subagent", {"description": "look", "prompt": "Say hi."}, id="s1")),
        turn(text("hi from the child")),
        turn(text("parent done")),
    )
    out = cli.run(*cli.args("-p", "delegate", "--output-format", "stream-json", "--allowedTools", "Subagent"))
    assert out.returncode == 0, out.stderr
    msgs = lines(out.stdout)
    parsed = [parse_message(m) for m in msgs]  # every line is one of the SDK's message types
    assert [type(p).__name__ for p in parsed].count("ResultMessage") == 1 and None not in parsed
    init = msgs[0]
    assert (init["type"], init["subtype"], init["schema_version"]) == ("system", "init", 1)
    sid = init["session_id"]
    for m in msgs[1:]:
        assert m["session_id"] == sid and m["uuid"]
    chat = [m for m in msgs if m["type"] in ("assistant", "user")]
    assert all("parent_tool_use_id" in m for m in chat)
    child = [m for m in chat if m["parent_tool_use_id"] == "s1"]
    assert [c["message"]["content"][0]["text"] for c in child if c["type"] == "assistant"] == ["hi from the child"]
    top = [m for m in chat if m["parent_tool_use_id"] is None and m["type"] == "assistant"]
    assert [b["type"] for m in top for b in m["message"]["content"]] == ["tool_use", "text"]
    assert msgs[-1]["type"] == "result" and msgs[-1]["result"] == "parent done"


def test_budget_stop(cli: CliEnv) -> None:
    # $1 per input token: the first turn (10 input tokens) costs $10.
    cli.write_user_config({"pricing": {MODEL: {"input": 1_000_000, "output": 0}}})
    cli.srv.anthropic.enqueue(
        turn(tool_call("Read", {"file_path": str(cli.repo / "x")}, id="r1"), usage=WireUsage(10, 5)),
        turn(text("never reached")),
    )
    out = cli.run(*cli.args("-p", "go", "--output-format", "json", "--max-budget-usd", "5"))
    assert out.returncode == 1, out.stderr
    obj = json.loads(out.stdout)
    assert obj["subtype"] == "error_max_budget_usd" and obj["is_error"] is True
    assert obj["total_cost_usd"] == pytest.approx(10.0) and obj["num_turns"] == 1
    assert "budget" in obj["errors"][0]
    assert len(cli.srv.anthropic.requests) == 1


def test_max_turns_subtype(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Read", {"file_path": str(cli.repo / "x")}, id="r1")))
    out = cli.run(*cli.args("-p", "go", "--output-format", "json", "--max-turns", "1"))
    assert out.returncode == 1
    assert json.loads(out.stdout)["subtype"] == "error_max_turns"


def test_stdin_user_messages_with_an_image(cli: CliEnv) -> None:
    png = base64.b64encode(b"\x89PNG\r\n\x1a\nfake").decode()
    cli.srv.anthropic.enqueue(turn(text("a picture")), turn(text("second")))
    first = {"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
    ]}}  # fmt: skip
    second = {"type": "user", "message": {"role": "user", "content": "and this?"}}
    stdin = "\n".join(json.dumps(m) for m in (first, second)) + "\n"
    out = cli.run(*cli.args("--output-format", "stream-json", "--input-format", "stream-json"), input=stdin)
    assert out.returncode == 0, out.stderr
    results = [m for m in lines(out.stdout) if m["type"] == "result"]
    assert [r["result"] for r in results] == ["a picture", "second"]
    assert results[0]["session_id"] == results[1]["session_id"]
    sent = cli.srv.anthropic.requests[0].body["messages"][0]["content"]
    assert any(b.get("type") == "image" and b["source"]["data"] == png for b in sent)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not JSON"),
        ('{"type": "prompt", "text": "spec dialect"}', "unknown stdin message type 'prompt'"),
        ('{"type": "user", "message": {"role": "user", "content": [{"type": "video"}]}}', "unsupported content"),
    ],
)
def test_a_stdin_line_skawld_does_not_understand_is_exit_2(cli: CliEnv, line: str, message: str) -> None:
    out = cli.run(*cli.args("--output-format", "stream-json", "--input-format", "stream-json"), input=line + "\n")
    assert out.returncode == 2
    assert message in out.stderr
    assert cli.srv.anthropic.requests == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-p", ""], "the prompt is empty"),
        (["-p", "   "], "the prompt is empty"),
        (["-p"], "the prompt read from stdin is empty"),
        (["-p", "x", "--json-schema", "{}", "--output-format", "text"], "--json-schema needs"),
        (["-p", "x", "--json-schema", "not json", "--output-format", "json"], "--json-schema: invalid JSON"),
        (["-p", "x", "--include-partial-messages", "--output-format", "json"], "--include-partial-messages needs"),
        (["-p", "x", "--resume", "a", "--session-id", "b"], "use only one of"),
        (["-p", "x", "--max-budget-usd", "0", "--output-format", "json"], "--max-budget-usd must be"),
        (["-p", "x", "--input-format", "stream-json", "--output-format", "json"], "--input-format stream-json needs"),
        (["-p", "x", "--system-prompt", "a", "--system-prompt-file", "b"], "use only one of"),
        (["-p", "x", "--no-such-flag"], "No such option"),
        (["-p", "x", "--permission-prompt-tool", "mcp__perm__ask"], "supports only 'stdio'"),
    ],
)
def test_usage_errors(cli: CliEnv, args: list[str], message: str) -> None:
    out = cli.run(*cli.args(*args))
    assert out.returncode == 2, out.stderr
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_unhonoured_flag_is_reported_once(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--output-format", "json", "--betas", "x", "--fallback-model", "y"))
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("--betas is accepted") == 1 and out.stderr.count("--fallback-model is accepted") == 1


def test_not_applicable_rule_is_reported(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")))
    out = cli.run(*cli.args("-p", "hi", "--output-format", "json", "--allowedTools", "WebSearch"))
    assert out.returncode == 0, out.stderr
    assert "WebSearch: skawld has no WebSearch tool" in out.stderr


def test_settings_and_mcp_config_flags(cli: CliEnv) -> None:
    settings = {"permissions": {"allow": ["Bash(touch ok.txt)"], "deny": ["Read"]}}
    cli.srv.anthropic.enqueue(
        turn(
            tool_call("Bash", {"command": "touch ok.txt"}, id="b1"), tool_call("Read", {"file_path": "ok.txt"}, id="r1")
        ),
        turn(text("done")),
    )
    out = cli.run(*cli.args("-p", "go", "--output-format", "json", "--settings", json.dumps(settings)))
    assert out.returncode == 0, out.stderr
    assert (cli.repo / "ok.txt").exists()
    obj = json.loads(out.stdout)
    assert [d["tool_use_id"] for d in obj["permission_denials"]] == ["r1"]
    bad = cli.run(*cli.args("-p", "go", "--mcp-config", "{not json"))
    assert bad.returncode == 3 and "--mcp-config: invalid JSON" in bad.stderr
    missing = cli.run(*cli.args("-p", "go", "--mcp-config", "nowhere.json"))
    assert missing.returncode == 3 and "cannot read" in missing.stderr


def test_cost_per_turn_and_per_session_in_both_dialects_and_sessions_show(cli: CliEnv) -> None:
    cli.write_user_config({"pricing": {MODEL: {"input": 3, "output": 15}}})
    turn_cost = (10 * 3 + 42 * 15) / 1e6  # WireUsage defaults: 10 input, 42 output tokens
    cli.srv.anthropic.enqueue(
        turn(tool_call("Read", {"file_path": str(cli.repo / "x")}, id="r1")), turn(text("one")), turn(text("two"))
    )
    first = cli.run(*cli.args("-p", "a", "--output-format", "stream-json"))
    assert first.returncode == 0, first.stderr
    msgs = lines(first.stdout)
    assistant = [m for m in msgs if m["type"] == "assistant"]
    assert [m["cost_usd"] for m in assistant] == [pytest.approx(turn_cost)] * 2
    result = msgs[-1]
    assert result["total_cost_usd"] == pytest.approx(2 * turn_cost)
    assert result["session_cost_usd"] == pytest.approx(2 * turn_cost)
    sid = result["session_id"]

    spec = cli.run(*cli.args("-p", "b", "--resume", sid, "--json"))
    assert spec.returncode == 0, spec.stderr
    events = lines(spec.stdout)
    (usage,) = [e for e in events if e["type"] == "usage"]
    assert usage["cost_usd"] == pytest.approx(turn_cost) and usage["cumulative_cost_usd"] == pytest.approx(turn_cost)
    assert events[-1]["type"] == "result" and events[-1]["total_cost_usd"] == pytest.approx(turn_cost)

    shown = cli.run("sessions", "show", sid)
    assert shown.returncode == 0, shown.stderr
    assert "usage: 2 runs" in shown.stderr and f"${3 * turn_cost:.4f}" in shown.stderr
    assert all(json.loads(line)["message"] for line in shown.stdout.splitlines())


@pytest.mark.parametrize("fmt", [["--json"], ["--output-format", "json"]])
def test_session_id_and_tools_flags(cli: CliEnv, fmt: list[str]) -> None:
    cli.srv.anthropic.enqueue(turn(text("ok")), turn(text("again")))
    out = cli.run(*cli.args("-p", "hi", *fmt, "--session-id", "fixed-id", "--tools", "Read,Grep"))
    assert out.returncode == 0, out.stderr
    assert lines(out.stdout)[0]["session_id"] == "fixed-id"
    assert sorted(t["name"] for t in cli.srv.anthropic.requests[0].body["tools"]) == ["Grep", "Read"]
    again = cli.run(*cli.args("-p", "hi", *fmt, "--session-id", "fixed-id"))
    assert again.returncode == 2 and "already exists" in again.stderr


@pytest.mark.parametrize("fmt", [["--json"], ["--output-format", "json"]])
def test_resume_by_prefix_and_fork_session_in_both_dialects(cli: CliEnv, fmt: list[str]) -> None:
    cli.srv.anthropic.enqueue(turn(text("first")), turn(text("second")), turn(text("forked")))
    first = lines(cli.run(*cli.args("-p", "one", "--output-format", "json")).stdout)[-1]["session_id"]

    def session_of(*args: str) -> str:
        out = cli.run(*cli.args("-p", "more", *fmt, *args))
        assert out.returncode == 0, out.stderr
        return str(lines(out.stdout)[0]["session_id"])  # system (--json) or the envelope

    assert session_of("--resume", first[:8]) == first
    forked = session_of("--resume", first[:8], "--fork-session")
    assert forked != first
    missing = cli.run(*cli.args("-p", "x", *fmt, "--resume", "zzzz"))
    assert missing.returncode == 2 and "no session matches 'zzzz'" in missing.stderr
    bare = cli.run(*cli.args("-p", "x", *fmt, "--resume"))
    assert bare.returncode == 2 and "--resume needs a session id with -p" in bare.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--output-format", "json", "--canusetool"],
        ["--output-format", "stream-json", "--permission-prompt-tool", "stdio"],
        ["--json", "--input-format", "stream-json", "--permission-prompt-tool", "stdio"],
    ],
)
def test_permission_channel_needs_a_streaming_protocol(cli: CliEnv, args: list[str]) -> None:
    out = cli.run(*cli.args("-p", "x", *args))
    assert out.returncode == 2 and "needs" in out.stderr


def test_a_claude_code_transcript_copy_is_written_unless_persistence_is_off(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("kept")), turn(text("not kept")))
    copies = cli.home / ".claude" / "projects"
    kept = json.loads(cli.run(*cli.args("-p", "first", "--output-format", "json")).stdout)
    (copy,) = copies.glob(f"*/{kept['session_id']}.jsonl")
    assert copy.parent.name == "".join(c if c.isascii() and c.isalnum() else "-" for c in str(cli.repo))
    assert [json.loads(line)["type"] for line in copy.read_text().splitlines()] == ["user", "assistant"]
    off = cli.run(*cli.args("-p", "second", "--output-format", "json", "--no-session-persistence"))
    assert off.returncode == 0, off.stderr
    assert not list(copies.glob(f"*/{json.loads(off.stdout)['session_id']}.jsonl"))
