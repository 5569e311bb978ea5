"""A headless `permission_response` with `updated_input` is checked again (issue 10, point 3)."""

from __future__ import annotations

import pytest

from skawld_core.events import PermissionRequestEvent, ResultEvent, UserEvent
from tests.cli.harness import CliEnv
from tests.e2e.test_headless_control import finish, read_until, send
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(90)


def result_text(events: list[object], tool_use_id: str) -> str:
    for event in events:
        if isinstance(event, UserEvent) and event.subtype == "tool_result":
            for block in event.message.content:
                if getattr(block, "tool_use_id", None) == tool_use_id:
                    return str(getattr(block, "content", ""))
    raise AssertionError(f"no result for {tool_use_id}")


@pytest.mark.parametrize(
    ("target", "reason"),
    [("secrets/key.txt", "path rule matched Write"), (".git/hooks/post-checkout", "protected path")],
)
def test_rewrite_to_a_refused_target_is_denied(cli: CliEnv, target: str, reason: str) -> None:
    (cli.repo / "secrets").mkdir()
    cli.srv.anthropic.enqueue(
        turn(tool_call("Write", {"file_path": "notes.txt", "content": "hi"}, id="w1")), turn(text("ok"))
    )
    args = ["-p", "write", "--json", "--canusetool", "--disallowed-tools", "Write(secrets/**)"]
    proc = cli.popen(*cli.args(*args))
    events = read_until(proc, lambda e: isinstance(e, PermissionRequestEvent))
    assert isinstance(events[-1], PermissionRequestEvent)
    send(
        proc,
        {
            "type": "permission_response",
            "tool_use_id": "w1",
            "decision": "allow",
            "updated_input": {"file_path": target, "content": "#!/bin/sh\nevil\n"},
        },
    )
    code, rest, err = finish(proc)
    assert code == 0, err
    content = result_text(rest, "w1")
    assert content.startswith("Tool call denied: updated input was refused:") and reason in content
    assert not (cli.repo / target).exists() and not (cli.repo / "notes.txt").exists()
    assert isinstance(rest[-1], ResultEvent)


def test_rewrite_to_an_allowed_target_runs(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Write", {"file_path": "notes.txt", "content": "hi"}, id="w1")), turn(text("ok"))
    )
    proc = cli.popen(*cli.args("-p", "write", "--json", "--canusetool", "--disallowed-tools", "Write(secrets/**)"))
    read_until(proc, lambda e: isinstance(e, PermissionRequestEvent))
    send(
        proc,
        {
            "type": "permission_response",
            "tool_use_id": "w1",
            "decision": "allow",
            "updated_input": {"file_path": "other.txt", "content": "rewritten"},
        },
    )
    code, rest, err = finish(proc)
    assert code == 0, err
    assert (cli.repo / "other.txt").read_text() == "rewritten"
    assert result_text(rest, "w1") == "wrote 9 bytes to other.txt"
