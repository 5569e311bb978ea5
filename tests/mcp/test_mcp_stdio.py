"""MCP over stdio against real server processes: the fixture server (written
with mcp's MCPServer) and mcp-server-time from PyPI (agent-mcp.test,
mcp-e2e.test, crash, hang, restart, tolerant mode, logs)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from ext_helpers import make_agent, types
from mcp_support import fixture_entry, results, run_calls

from skawld_core.errors import ConfigError
from skawld_core.events import Event, ToolCallStartEvent
from skawld_core.messages import ImageBlock, TextBlock
from skawld_core.permissions import PermissionAllow
from skawld_core.testing import ScriptedProvider, reply, tool_call

pytestmark = pytest.mark.timeout(60)


async def test_tools_register_once_and_appear_in_system_prompt(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()})
    assert "mcp__fx__echo" not in agent.system_blocks()[2].text
    await agent.session()
    await agent.session()
    manager = agent.extensions.mcp
    assert manager.connections["fx"].starts == 1
    names = [n for n in agent.tools.names() if n.startswith("mcp__fx__")]
    # every page of the paginated tools/list (page size 2) was read
    assert len(names) == 17 and "mcp__fx__env_var" in names
    assert "mcp__fx__echo" in agent.system_blocks()[2].text
    echo = agent.tools.get("mcp__fx__echo")
    note = agent.tools.get("mcp__fx__write_note")
    assert (echo.scope, echo.parallel_safe) == ("read", True)
    assert (note.scope, note.parallel_safe) == ("write", False)
    assert echo.input_schema["properties"]["text"]["type"] == "string"
    assert echo.input_schema["required"] == ["text"]
    await agent.close()


async def test_no_servers_no_manager(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, ScriptedProvider())
    await agent.session()
    assert agent.extensions.mcp is None
    await agent.close()


async def test_fail_fast_rejects_session_and_retries_later(tmp_path: Path) -> None:
    servers = {
        "fx": fixture_entry(),
        "bad": {"command": "skawld-no-such-command"},
        "dies": fixture_entry("--exit-on-start"),
    }
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers=servers)
    with pytest.raises(ConfigError) as info:
        await agent.session()
    message = str(info.value)
    assert message.startswith("Failed to connect MCP server(s): ")
    assert "bad: command not found: skawld-no-such-command" in message and "dies: " in message
    assert agent.extensions.mcp is None and "mcp__fx__echo" not in agent.tools
    # the memo was cleared: a fixed config connects on the next call
    agent.mcp_servers = {"fx": fixture_entry()}
    await agent.session()
    assert "mcp__fx__echo" in agent.tools
    await agent.close()


async def test_read_only_auto_allowed_mutating_asks(tmp_path: Path) -> None:
    asked: list[str] = []

    async def can_use_tool(request: Any) -> Any:
        asked.append(request.tool_name)
        return PermissionAllow()

    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()}, can_use_tool=can_use_tool)
    out = await run_calls(
        agent,
        ("mcp__fx__echo", {"text": "hi"}, "r"),
        ("mcp__fx__write_note", {"text": "n"}, "w"),
        ("mcp__fx__add", {"a": 2, "b": 40}, "a"),
    )
    assert asked == ["mcp__fx__write_note", "mcp__fx__add"]
    assert out["r"].content == "echo: hi" and out["w"].content == "noted: n" and out["a"].content == "42"
    await agent.close()


async def test_result_kinds_end_to_end(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()}, permission_mode="yolo")
    out = await run_calls(
        agent,
        ("mcp__fx__image", {}, "i"),
        ("mcp__fx__mixed", {}, "m"),
        ("mcp__fx__empty", {}, "e"),
        ("mcp__fx__structured_only", {}, "s"),
        ("mcp__fx__fail", {"message": "bad input"}, "f"),
        ("mcp__fx__echo", {"wrong": 1}, "v"),
    )
    assert isinstance(out["i"].content, list) and isinstance(out["i"].content[0], ImageBlock)
    mixed = out["m"].content
    assert isinstance(mixed, list) and [b.text for b in mixed if isinstance(b, TextBlock)][1:] == [
        "[audio content omitted]",
        "[resource file:///notes.txt]\nnote body",
        "[resource content omitted: file:///blob.bin]",
        "[resource link: file:///doc.md]",
    ]
    assert out["e"].content == "(no content)"
    assert out["s"].content == '{"answer": 42}'
    assert out["f"].is_error and out["f"].content == "Error executing tool fail: bad input"
    assert out["v"].is_error  # the server validates its own schema
    await agent.close()


async def test_stderr_goes_to_log_file_not_terminal(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()})
    await agent.session()
    await agent.close()
    captured = capfd.readouterr()
    assert "fixture server starting" not in captured.err + captured.out
    log = (tmp_path / ".skawld" / "logs" / "mcp-fx.log").read_text()
    assert "fixture server starting" in log


async def test_crash_mid_call_then_restart(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()}, permission_mode="yolo")
    first = await run_calls(agent, ("mcp__fx__pid", {}, "p1"), ("mcp__fx__crash", {}, "c"))
    crash = first["c"]
    assert crash.is_error
    assert "server 'fx' went away during the call" in str(crash.content)
    second = await run_calls(agent, ("mcp__fx__pid", {}, "p2"))
    assert not second["p2"].is_error and second["p2"].content != first["p1"].content
    assert agent.extensions.mcp.connections["fx"].starts == 2
    await agent.close()


async def test_hang_times_out_and_server_stays_usable(tmp_path: Path) -> None:
    entry = fixture_entry(timeoutMs=800)
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": entry}, permission_mode="yolo")
    out = await run_calls(agent, ("mcp__fx__hang", {}, "h"), ("mcp__fx__echo", {"text": "still here"}, "e"))
    assert (
        out["h"].is_error
        and out["h"].content == "MCP tool failed: server 'fx' gave no answer within 800 ms for 'hang'."
    )
    assert out["e"].content == "echo: still here"
    assert agent.extensions.mcp.connections["fx"].starts == 1
    await agent.close()


async def test_progress_resets_the_timeout(tmp_path: Path) -> None:
    entry = fixture_entry(timeoutMs=1500)
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": entry}, permission_mode="yolo")
    out = await run_calls(agent, ("mcp__fx__slow_progress", {"steps": 6, "delay": 0.5}, "s"))
    assert out["s"].content == "finished 6 steps"  # 3 s in total, but progress every 0.5 s
    await agent.close()


async def test_abort_during_call_leaves_connection_usable(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()}, permission_mode="yolo")
    agent.provider.enqueue(reply(tool_call("mcp__fx__hang", {}, id="h")))
    session = await agent.session()
    events: list[Event] = []
    async for e in session.run("go"):
        events.append(e)
        if isinstance(e, ToolCallStartEvent):
            session.abort()
    assert events[-1].type == "result" and events[-1].subtype == "aborted"
    out = await run_calls(agent, ("mcp__fx__echo", {"text": "after"}, "e"))
    assert out["e"].content == "echo: after"
    await agent.close()


async def test_tolerant_mode_reports_and_keeps_others(tmp_path: Path) -> None:
    servers = {
        "fx": fixture_entry(),
        "bad": {"command": "skawld-no-such-command"},
        "dies": fixture_entry("--exit-on-start"),
        "slow": fixture_entry("--hang-on-start", connectTimeoutMs=1500),
        "broken": {"type": "http"},
    }
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers=servers, mcp_fail_fast=False, permission_mode="yolo")
    out = await run_calls(agent, ("mcp__fx__echo", {"text": "ok"}, "e"))
    assert out["e"].content == "echo: ok"
    status = {s.name: s for s in agent.extensions.mcp.status()}
    assert status["fx"].status == "ready" and status["fx"].error is None
    assert "command not found: skawld-no-such-command" in status["bad"].error
    assert status["dies"].status == "failed" and "Connection closed" in status["dies"].error
    assert "no answer within 1500 ms while connecting" in status["slow"].error
    assert "url must be an http(s) URL" in status["broken"].error
    assert not [n for n in agent.tools.names() if n.startswith(("mcp__bad", "mcp__dies", "mcp__slow"))]
    await agent.close()


async def test_tolerant_mode_dead_server_restart_fails_cleanly(tmp_path: Path) -> None:
    script = tmp_path / "flag"
    # starts once, then the command is gone: the restart after a crash fails
    entry = {"command": sys.executable, "args": [str(tmp_path / "launcher.py")]}
    (tmp_path / "launcher.py").write_text(
        "import os, sys\n"
        f"flag = {str(script)!r}\n"
        "if os.path.exists(flag):\n    sys.exit(5)\n"
        "open(flag, 'w').close()\n"
        f"sys.argv = [{fixture_entry()['args'][0]!r}]\n"
        f"exec(open({fixture_entry()['args'][0]!r}).read())\n"
    )
    agent = make_agent(
        tmp_path, ScriptedProvider(), mcp_servers={"fx": entry}, mcp_fail_fast=False, permission_mode="yolo"
    )
    out = await run_calls(agent, ("mcp__fx__crash", {}, "c"))
    assert out["c"].is_error
    out = await run_calls(agent, ("mcp__fx__echo", {"text": "x"}, "e"))
    assert out["e"].is_error and str(out["e"].content).startswith("MCP server 'fx' is unavailable: ")
    await agent.close()


async def test_name_problems(tmp_path: Path) -> None:
    servers = {
        "a__b": fixture_entry("--tool-name", "c"),
        "a": fixture_entry("--tool-name", "b__c", "--tool-name", "get.weather", "--tool-name", "t" * 130),
    }
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers=servers)
    with pytest.raises(ConfigError) as info:
        await agent.session()
    assert "collides with 'c' of server 'a__b'" in str(info.value) and "longer than 128" in str(info.value)
    await agent.close()

    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers=servers, mcp_fail_fast=False, permission_mode="yolo")
    out = await run_calls(agent, ("mcp__a__get_weather", {"text": "sun"}, "w"), ("mcp__a__b__c", {"text": "q"}, "c"))
    assert out["w"].content == "extra: sun" and out["c"].content == "extra: q"
    assert len(agent.extensions.mcp.warnings) == 2
    await agent.close()


async def test_env_and_inherit_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKAWLD_TEST_PARENT_VAR", "from-parent")
    servers = {
        "plain": fixture_entry(env={"MY_VAR": "set"}),
        "inherit": fixture_entry(inheritEnv=True),
    }
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers=servers, permission_mode="yolo")
    out = await run_calls(
        agent,
        ("mcp__plain__env_var", {"name": "MY_VAR"}, "a"),
        ("mcp__plain__env_var", {"name": "SKAWLD_TEST_PARENT_VAR"}, "b"),
        ("mcp__inherit__env_var", {"name": "SKAWLD_TEST_PARENT_VAR"}, "c"),
    )
    assert (out["a"].content, out["b"].content, out["c"].content) == ("set", "<unset>", "from-parent")
    await agent.close()


async def test_close_stops_server_processes(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()}, permission_mode="yolo")
    out = await run_calls(agent, ("mcp__fx__pid", {}, "p"))
    pid = int(str(out["p"].content))
    await agent.close()
    await agent.close()  # idempotent
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.timeout(60)
async def test_mcp_server_time_from_pypi(tmp_path: Path) -> None:
    servers = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"]}}
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers=servers)
    out = await run_calls(
        agent,
        ("mcp__time__get_current_time", {"timezone": "Europe/Paris"}, "t"),
        ("mcp__time__convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}, "c"),
    )
    assert not out["t"].is_error and '"timezone": "Europe/Paris"' in str(out["t"].content)
    assert not out["c"].is_error and "21:00" in str(out["c"].content)
    assert types([]) == []
    await agent.close()


async def test_reconnect_a_server_that_failed_at_start(tmp_path: Path) -> None:
    from skawld_core.mcp import mcp_status

    ready = tmp_path / "ready"
    launcher = tmp_path / "launcher.py"
    server = fixture_entry()["args"][0]
    launcher.write_text(
        f"import os, sys\nif not os.path.exists({str(ready)!r}):\n    sys.exit(4)\n"
        f"sys.argv = [{server!r}]\nexec(open({server!r}).read())\n"
    )
    entry = {"command": sys.executable, "args": [str(launcher)]}
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"late": entry}, mcp_fail_fast=False)
    assert mcp_status(agent) == []
    await agent.session()
    [status] = mcp_status(agent)
    assert status.status == "failed" and "mcp__late__echo" not in agent.tools
    ready.touch()
    status = await agent.extensions.mcp.reconnect("late")
    assert status.status == "ready" and status.error is None and "mcp__late__echo" in status.tools
    assert "mcp__late__echo" in agent.tools and "mcp__late__echo" in agent.system_blocks()[2].text
    out = await run_calls(agent, ("mcp__late__echo", {"text": "late"}, "e"))
    assert out["e"].content == "echo: late"
    await agent.close()


async def test_server_killed_while_idle_is_restarted_before_the_call(tmp_path: Path) -> None:
    import signal

    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()}, permission_mode="yolo")
    first = await run_calls(agent, ("mcp__fx__pid", {}, "p"))
    pid = int(str(first["p"].content))
    os.kill(pid, signal.SIGKILL)
    conn = agent.extensions.mcp.connections["fx"]
    # wait (without sleeping blindly) until the client has seen the transport close
    from skawld_core.mcp.connection import _transport_closed

    async def closed() -> None:
        while conn._client is not None and not _transport_closed(conn._client):
            await asyncio.sleep(0.02)

    await asyncio.wait_for(closed(), 10)
    second = await run_calls(agent, ("mcp__fx__pid", {}, "p"))
    assert not second["p"].is_error and second["p"].content != first["p"].content
    assert conn.starts == 2
    await agent.close()


async def test_parallel_read_only_calls_share_one_connection(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()})
    out = await run_calls(agent, *(("mcp__fx__echo", {"text": str(i)}, f"e{i}") for i in range(5)))
    assert [out[f"e{i}"].content for i in range(5)] == [f"echo: {i}" for i in range(5)]
    assert agent.extensions.mcp.connections["fx"].starts == 1
    await agent.close()


async def test_subagent_with_an_mcp_allowlist(tmp_path: Path) -> None:
    from ext_helpers import write_agent

    from skawld_core.events import SubagentEvent

    write_agent(tmp_path / ".skawld", "fetcher.md", "description: uses fx\ntools: mcp__fx__e*", "Use the fx tools.")
    provider = ScriptedProvider()
    provider.enqueue(
        reply(tool_call("Subagent", {"description": "d", "prompt": "CHILD", "subagent_type": "fetcher"}, id="s"))
    )

    def child(req: Any) -> bool:
        return "CHILD" in str(req.messages[0].content)

    provider.enqueue(reply(tool_call("mcp__fx__echo", {"text": "from child"}, id="c")), match=child)
    provider.enqueue(reply("child saw it"), match=child)
    provider.enqueue(reply("done"))
    agent = make_agent(tmp_path, provider, mcp_servers={"fx": fixture_entry()}, permission_mode="yolo")
    session = await agent.session()
    events = [e async for e in session.run("go")]
    inner = [e.event for e in events if isinstance(e, SubagentEvent)]
    assert inner[0].tools == ["mcp__fx__echo", "mcp__fx__empty", "mcp__fx__env_var"]
    assert results(inner)["c"].content == "echo: from child"
    assert results(events)["s"].content == "child saw it"
    await agent.close()
