"""End to end: stdin control messages, signals and a broken stdout pipe on the installed `skawld -p`."""

from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Callable

import pytest

from skawld_core.events import EVENT_ADAPTER, Event, PermissionRequestEvent, ResultEvent, SystemEvent, UserEvent
from tests.cli.harness import CliEnv, parse_events
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(90)


def read_until(proc: subprocess.Popen[str], done: Callable[[Event], bool]) -> list[Event]:
    """Read stdout events until one satisfies `done` (fails on EOF)."""
    assert proc.stdout is not None
    events: list[Event] = []
    while True:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"stdout closed early; stderr: {proc.stderr.read() if proc.stderr else ''}")
        if not line.strip():
            continue
        events.append(EVENT_ADAPTER.validate_json(line))
        if done(events[-1]):
            return events


def send(proc: subprocess.Popen[str], obj: object) -> None:
    assert proc.stdin is not None
    proc.stdin.write((obj if isinstance(obj, str) else json.dumps(obj)) + "\n")
    proc.stdin.flush()


def drain(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    """Close stdin (if still open), read stdout and stderr to EOF, wait for the exit code."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    if not proc.stdin.closed:
        proc.stdin.close()
    out = proc.stdout.read()
    err = proc.stderr.read()
    return proc.wait(timeout=60), out, err


def finish(proc: subprocess.Popen[str]) -> tuple[int, list[Event], str]:
    code, out, err = drain(proc)
    return code, parse_events(out), err


def is_prompt(e: Event) -> bool:
    return isinstance(e, UserEvent) and e.subtype == "prompt"


def test_permission_prompt_answered_over_stdin(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(tool_call("Bash", {"command": "echo approved > out.txt"}, id="b1")), turn(text("ok"))
    )
    proc = cli.popen(*cli.args("-p", "write it", "--json", "--canusetool"))
    events = read_until(proc, lambda e: isinstance(e, PermissionRequestEvent))
    request = events[-1]
    assert isinstance(request, PermissionRequestEvent)
    assert [(r.tool_use_id, r.tool_name) for r in request.requests] == [("b1", "Bash")]
    send(proc, "this is not json")
    send(proc, {"type": "permission_response", "tool_use_id": "nope", "decision": "allow"})
    send(proc, {"type": "mystery"})
    send(proc, {"type": "permission_response", "tool_use_id": "b1", "decision": "allow"})
    code, rest, err = finish(proc)
    assert code == 0, err
    assert isinstance(rest[-1], ResultEvent) and rest[-1].subtype == "success"
    assert (cli.repo / "out.txt").read_text() == "approved\n"
    assert "not JSON" in err and "unknown tool_use_id 'nope'" in err
    assert "mystery" not in err


def test_permission_denied_over_stdin_with_reason(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "touch nope.txt"}, id="b1")), turn(text("fine")))
    proc = cli.popen(*cli.args("-p", "write it", "--json", "--canusetool"))
    read_until(proc, lambda e: isinstance(e, PermissionRequestEvent))
    send(proc, {"type": "permission_response", "tool_use_id": "b1", "decision": "deny", "reason": "not now"})
    code, rest, err = finish(proc)
    assert code == 0, err
    assert isinstance(rest[-1], ResultEvent) and rest[-1].subtype == "success"
    assert not (cli.repo / "nope.txt").exists()
    assert "Tool call denied: not now" in json.dumps(cli.srv.anthropic.requests[1].body["messages"][-1])


def test_closed_stdin_denies_a_pending_permission(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Bash", {"command": "touch z"}, id="b1")), turn(text("ok")))
    out = cli.run(*cli.args("-p", "go", "--json", "--canusetool"), input="")
    assert out.returncode == 0, out.stderr
    assert not (cli.repo / "z").exists()
    assert "stdin closed" in json.dumps(cli.srv.anthropic.requests[1].body["messages"][-1])


def test_abort_over_stdin_exits_130(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("too late"), first_byte_delay=30))
    proc = cli.popen(*cli.args("-p", "slow", "--json"))
    events = read_until(proc, is_prompt)
    send(proc, {"type": "abort", "reason": "user"})
    code, rest, err = finish(proc)
    assert code == 130, err
    result = rest[-1]
    assert isinstance(result, ResultEvent) and result.subtype == "aborted"
    sid = events[0].session_id  # type: ignore[union-attr]
    shown = cli.run("sessions", "show", sid)
    assert shown.returncode == 0 and "slow" in shown.stdout


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signals_abort_and_keep_the_session(cli: CliEnv, sig: signal.Signals, code: int) -> None:
    cli.srv.anthropic.enqueue(turn(text("never"), first_byte_delay=30))
    proc = cli.popen(*cli.args("-p", "slow", "--json"))
    events = read_until(proc, is_prompt)
    proc.send_signal(sig)
    rc, rest, err = finish(proc)
    assert rc == code, err
    assert isinstance(rest[-1], ResultEvent) and rest[-1].subtype == "aborted"
    assert "Traceback" not in err
    first = events[0]
    assert isinstance(first, SystemEvent)
    cli.srv.anthropic.clear()  # the killed request may not have reached the server
    cli.srv.anthropic.enqueue(turn(text("resumed fine")))
    resumed = cli.run(*cli.args("-p", "again", "--resume", first.session_id, "--output-format", "json"))
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["result"] == "resumed fine"


def test_broken_stdout_pipe_aborts_and_keeps_the_session(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text([f"w{i} " for i in range(400)]), frame_delay=0.02))
    proc = cli.popen(*cli.args("-p", "stream a lot", "--json", "--partial"))
    assert proc.stdout is not None
    first = EVENT_ADAPTER.validate_json(proc.stdout.readline())
    assert isinstance(first, SystemEvent)
    proc.stdout.close()
    proc.stdin.close()  # type: ignore[union-attr]
    proc.wait(timeout=60)
    err = proc.stderr.read()  # type: ignore[union-attr]
    assert proc.returncode == 130, err
    assert "stdout was closed" in err and "Traceback" not in err
    shown = cli.run("sessions", "show", first.session_id)
    assert shown.returncode == 0 and "stream a lot" in shown.stdout


def test_follow_up_prompts_in_the_same_session(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("one done")), turn(text("two done")))
    proc = cli.popen(*cli.args("-p", "--json", "--input-format", "stream-json"))
    send(proc, {"type": "prompt", "text": "one"})
    first = read_until(proc, lambda e: isinstance(e, ResultEvent))
    send(proc, {"type": "prompt", "text": "two"})
    second = read_until(proc, lambda e: isinstance(e, ResultEvent))
    code, rest, err = finish(proc)
    assert code == 0 and rest == [], err
    assert first[0].session_id == second[0].session_id  # type: ignore[union-attr]
    assert [e.final_text for e in (first[-1], second[-1])] == ["one done", "two done"]  # type: ignore[union-attr]
    assert len(cli.srv.anthropic.requests[1].body["messages"]) == 3


def test_prompt_sent_during_a_run_becomes_a_follow_up(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("first"), first_byte_delay=0.5), turn(text("second")))
    proc = cli.popen(*cli.args("-p", "start", "--json"))
    send(proc, {"type": "prompt", "text": "and then this"})
    code, events, err = finish(proc)
    assert code == 0, err
    results = [e.final_text for e in events if isinstance(e, ResultEvent)]
    assert results == ["first", "second"]


def test_subagent_permission_request_answered_over_stdin(cli: CliEnv) -> None:
    from skawld_core.events import SubagentEvent

    cli.srv.anthropic.enqueue(
        turn(tool_call("Subagent", {"description": "write", "prompt": "Write a file."}, id="s1")),
        turn(tool_call("Bash", {"command": "echo child > child.txt"}, id="cb1")),
        turn(text("child done")),
        turn(text("parent done")),
    )
    proc = cli.popen(*cli.args("-p", "delegate", "--json", "--canusetool", "--allowed-tools", "Subagent"))

    def child_asks(e: Event) -> bool:
        return isinstance(e, SubagentEvent) and isinstance(e.event, PermissionRequestEvent)

    read_until(proc, child_asks)
    send(proc, {"type": "permission_response", "tool_use_id": "cb1", "decision": "allow"})
    code, rest, err = finish(proc)
    assert code == 0, err
    assert isinstance(rest[-1], ResultEvent) and rest[-1].final_text == "parent done"
    assert (cli.repo / "child.txt").read_text() == "child\n"
    assert "unknown tool_use_id" not in err
