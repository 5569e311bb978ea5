"""An Edit or Write bound to fail gets its error without a permission question.

Through the real `skawld -p --json --canusetool`: the test answers each
permission_request on stdin (allowing everything), so "asked" is observable,
and reads the tool result the model got from the next request to the wire server.
"""

from __future__ import annotations

import json

import pytest

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(90)


def _run_allowing(cli: CliEnv) -> list[str]:
    """Run one prompt, allowing every permission request; the tool names asked about."""
    proc = cli.popen(*cli.args("-p", "change it", "--json", "--canusetool"))
    assert proc.stdin is not None and proc.stdout is not None
    asked: list[str] = []
    for line in proc.stdout:
        event = json.loads(line)
        if event["type"] == "permission_request":
            for req in event["requests"]:
                asked.append(req["tool_name"])
                reply = {"type": "permission_response", "tool_use_id": req["tool_use_id"], "decision": "allow"}
                proc.stdin.write(json.dumps(reply) + "\n")
                proc.stdin.flush()
        if event["type"] == "result":
            break
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    return asked


def _tool_results(cli: CliEnv) -> dict[str, tuple[str, bool]]:
    """Every tool result the model was sent, by tool_use_id: (text, is_error)."""
    out: dict[str, tuple[str, bool]] = {}
    for req in cli.srv.anthropic.requests:
        for message in req.body["messages"]:
            if message["role"] != "user" or isinstance(message["content"], str):
                continue
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block["content"]
                    body = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
                    out[block["tool_use_id"]] = (body, bool(block.get("is_error")))
    return out


def test_an_edit_of_an_unread_file_fails_without_asking(cli: CliEnv) -> None:
    (cli.repo / "a.txt").write_text("one\n", encoding="utf-8")
    cli.srv.anthropic.enqueue(
        turn(tool_call("Edit", {"file_path": "a.txt", "old_string": "one", "new_string": "two"}, id="e1")),
        turn(text("done")),
    )
    assert _run_allowing(cli) == []
    body, is_error = _tool_results(cli)["e1"]
    assert is_error and "You must Read this file before editing it." in body
    assert (cli.repo / "a.txt").read_text(encoding="utf-8") == "one\n"


def test_an_edit_whose_old_string_is_absent_fails_without_asking(cli: CliEnv) -> None:
    (cli.repo / "a.txt").write_text("one\n", encoding="utf-8")
    cli.srv.anthropic.enqueue(
        turn(tool_call("Read", {"file_path": "a.txt"}, id="r1")),
        turn(tool_call("Edit", {"file_path": "a.txt", "old_string": "zero", "new_string": "two"}, id="e1")),
        turn(tool_call("Edit", {"file_path": "a.txt", "old_string": "one", "new_string": "two"}, id="e2")),
        turn(text("done")),
    )
    # only the Edit that can succeed is asked about, and it runs
    assert _run_allowing(cli) == ["Edit"]
    results = _tool_results(cli)
    assert results["e1"] == ("Error: old_string not found in file.", True)
    assert not results["e2"][1]
    assert (cli.repo / "a.txt").read_text(encoding="utf-8") == "two\n"


def test_a_write_over_an_unread_file_fails_without_asking(cli: CliEnv) -> None:
    (cli.repo / "a.txt").write_text("one\n", encoding="utf-8")
    cli.srv.anthropic.enqueue(
        turn(tool_call("Write", {"file_path": "a.txt", "content": "x"}, id="w1")),
        turn(tool_call("Write", {"file_path": "new.txt", "content": "x"}, id="w2")),
        turn(text("done")),
    )
    assert _run_allowing(cli) == ["Write"]  # the new file's Write is asked about
    results = _tool_results(cli)
    assert results["w1"][1] and "has not been Read in this session" in results["w1"][0]
    assert (cli.repo / "a.txt").read_text(encoding="utf-8") == "one\n"
    assert (cli.repo / "new.txt").read_text(encoding="utf-8") == "x"


def test_an_edit_after_a_read_in_the_same_turn_is_asked_about(cli: CliEnv) -> None:
    """The Read has not run when the turn's questions are asked, so its Edit is not prechecked."""
    (cli.repo / "a.txt").write_text("one\n", encoding="utf-8")
    cli.srv.anthropic.enqueue(
        turn(
            tool_call("Read", {"file_path": "a.txt"}, id="r1"),
            tool_call("Edit", {"file_path": "a.txt", "old_string": "one", "new_string": "two"}, id="e1"),
        ),
        turn(text("done")),
    )
    assert _run_allowing(cli) == ["Edit"]
    assert not _tool_results(cli)["e1"][1]
    assert (cli.repo / "a.txt").read_text(encoding="utf-8") == "two\n"


def test_dangerously_skip_permissions_asks_nothing(cli: CliEnv) -> None:
    """Claude Code's switch: bypassPermissions (skawld's yolo) from the command line."""
    cli.srv.anthropic.enqueue(
        turn(tool_call("Bash", {"command": "touch ran"}, id="b1")),
        turn(text("done")),
    )
    proc = cli.popen(*cli.args("-p", "run it", "--json", "--canusetool", "--dangerously-skip-permissions"))
    assert proc.stdin is not None and proc.stdout is not None
    types = [json.loads(line)["type"] for line in proc.stdout]
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
    assert "permission_request" not in types and (cli.repo / "ran").exists()
