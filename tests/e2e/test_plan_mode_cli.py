"""Plan mode through the installed `skawld -p --permission-mode plan` (issue 14, point 2)."""

from __future__ import annotations

import pytest

from skawld_core.events import PermissionRequestEvent, ResultEvent, SystemEvent, UserEvent
from tests.cli.harness import CliEnv
from tests.e2e.test_headless_control import finish, read_until, send
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(90)

PLAN = "1. Create greet.txt\n2. Done"


def results(events: list[object]) -> dict[str, str]:
    out: dict[str, str] = {}
    for event in events:
        if isinstance(event, UserEvent) and event.subtype == "tool_result":
            for block in event.message.content:
                tid = getattr(block, "tool_use_id", None)
                if tid is not None:
                    out[tid] = str(getattr(block, "content", ""))
    return out


def test_plan_then_approve_into_accept_edits(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(
            tool_call("Write", {"file_path": "early.txt", "content": "too soon"}, id="w0"),
            tool_call("ExitPlanMode", {"plan": PLAN}, id="x"),
        ),
        turn(tool_call("Write", {"file_path": "greet.txt", "content": "hi"}, id="w1")),
        turn(text("done")),
    )
    proc = cli.popen(*cli.args("-p", "plan it", "--json", "--permission-mode", "plan", "--canusetool"))
    events = read_until(proc, lambda e: isinstance(e, PermissionRequestEvent))
    system = next(e for e in events if isinstance(e, SystemEvent))
    assert system.permission_mode == "plan" and "ExitPlanMode" in system.tools
    request = events[-1]
    assert isinstance(request, PermissionRequestEvent)
    assert [(r.tool_name, r.input) for r in request.requests] == [("ExitPlanMode", {"plan": PLAN})]
    send(proc, {"type": "permission_response", "tool_use_id": "x", "decision": "allow", "set_mode": "acceptEdits"})
    code, rest, err = finish(proc)
    assert code == 0, err
    assert not [e for e in rest if isinstance(e, PermissionRequestEvent)]  # acceptEdits: the write is not asked
    got = results(events + rest)
    assert "not available in plan mode" in got["w0"]
    assert "acceptEdits" in got["x"]
    assert not (cli.repo / "early.txt").exists()
    assert (cli.repo / "greet.txt").read_text() == "hi"
    assert isinstance(rest[-1], ResultEvent) and rest[-1].subtype == "success"


def test_declined_plan_keeps_planning(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("ExitPlanMode", {"plan": PLAN}, id="x")),
        turn(tool_call("Bash", {"command": "touch made.txt"}, id="b")),
        turn(text("done")),
    )
    proc = cli.popen(*cli.args("-p", "plan it", "--json", "--permission-mode", "plan", "--canusetool"))
    read_until(proc, lambda e: isinstance(e, PermissionRequestEvent))
    send(proc, {"type": "permission_response", "tool_use_id": "x", "decision": "deny", "reason": "more detail"})
    code, rest, err = finish(proc)
    assert code == 0, err
    got = results(rest)
    assert got["x"] == "Tool call denied: more detail"
    assert "not available in plan mode" in got["b"]
    assert not (cli.repo / "made.txt").exists()


def test_bad_set_mode_is_ignored_with_a_warning(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("ExitPlanMode", {"plan": PLAN}, id="x")), turn(text("done")))
    proc = cli.popen(*cli.args("-p", "plan it", "--json", "--permission-mode", "plan", "--canusetool"))
    read_until(proc, lambda e: isinstance(e, PermissionRequestEvent))
    send(proc, {"type": "permission_response", "tool_use_id": "x", "decision": "allow", "set_mode": "godmode"})
    code, rest, err = finish(proc)
    assert code == 0
    assert "set_mode 'godmode'" in err
    assert results(rest)["x"] == "Tool call denied: stdin closed before a permission_response arrived"


def test_headless_plan_without_canusetool_is_read_only(cli: CliEnv) -> None:
    (cli.repo / "app.py").write_text("print('hi')\n")
    cli.srv.anthropic.enqueue(
        turn(
            tool_call("Read", {"file_path": "app.py"}, id="r"),
            tool_call("Edit", {"file_path": "app.py", "old_string": "hi", "new_string": "bye"}, id="e"),
        ),
        turn(tool_call("ExitPlanMode", {"plan": PLAN}, id="x")),
        turn(text("Plan: change the greeting.")),
    )
    proc = cli.run(*cli.args("-p", "plan it", "--permission-mode", "plan"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Plan: change the greeting."
    assert (cli.repo / "app.py").read_text() == "print('hi')\n"
    assert "ExitPlanMode" in proc.stderr  # the denied ask is reported on stderr in text mode
