"""Background shells with real processes: a server queried from a later call,
incremental output, the buffer cap, the shell limit, and shells that outlive the run and end with the session, the model told of an exit."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from skawld_core import Agent
from skawld_core.providers.anthropic import AnthropicProvider
from skawld_core.sandbox import ShellPolicy
from skawld_core.sandbox.shells import BUFFER_CAP, MAX_SHELLS
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider
from skawld_core.tools import BashOutputTool, BashTool, KillShellTool, ToolContext, ToolResult
from tests.support.wire_server import WireServer, turn
from tests.support.wire_server import text as wire_text
from tests.support.wire_server import tool_call as wire_call

from .conftest import PROBE, appears, bash, context, gone, sleep_tag, tagged, text

pytestmark = pytest.mark.timeout(60)


async def output(ctx: ToolContext, shell_id: str, **raw: Any) -> ToolResult:
    tool = BashOutputTool()
    return await tool.execute(tool.validate({"shell_id": shell_id, **raw}), ctx)


async def kill(ctx: ToolContext, shell_id: str) -> ToolResult:
    tool = KillShellTool()
    return await tool.execute(tool.validate({"shell_id": shell_id}), ctx)


async def until_output(ctx: ToolContext, shell_id: str, needle: str, within: float = 15.0) -> str:
    seen = ""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        seen += text(await output(ctx, shell_id))
        if needle in seen:
            return seen
        await asyncio.sleep(0.05)
    raise AssertionError(f"{needle!r} never appeared in {seen!r}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def shell_id(result: ToolResult) -> str:
    assert not result.is_error, result.content
    return text(result).split()[3].rstrip(".")


@pytest.fixture(params=["plain", "sandbox+network"])
def policy(request: pytest.FixtureRequest) -> Any:
    if request.param != "plain" and not PROBE.ok:
        pytest.skip(f"bubblewrap cannot start here: {PROBE.reason}")
    p = ShellPolicy(sandbox="off" if request.param == "plain" else {"mode": "required", "network": True})
    yield p
    p.close()


async def test_server_in_background_queried_then_killed(project: Path, policy: ShellPolicy) -> None:
    ctx = context(project, policy)
    port = free_port()
    (project / "index.html").write_text("served-by-background\n")
    started = await bash(ctx, f"python3 -m http.server {port} --bind 127.0.0.1", run_in_background=True)
    sid = shell_id(started)
    assert sid == "bash_1" and "BashOutput" in text(started)
    fetch = (
        'python3 -c "import time, urllib.request as u\n'
        "for _ in range(200):\n"
        f"    try: print(u.urlopen('http://127.0.0.1:{port}/index.html').read().decode()); break\n"
        '    except OSError: time.sleep(0.05)"'
    )
    got = await bash(ctx, fetch)
    assert text(got).startswith("served-by-background\n")
    log = await until_output(ctx, sid, "GET /index.html")
    assert "status: running" in log
    assert text(await kill(ctx, sid)) == f"Killed shell {sid}."
    after = text(await output(ctx, sid))
    assert after.endswith("status: killed")
    refused = await bash(ctx, fetch.replace("range(200)", "range(1)"))
    assert "served-by-background" not in text(refused)
    await policy.end_background()


async def test_incremental_reads_and_exit(project: Path) -> None:
    policy = ShellPolicy(sandbox="off")
    ctx = context(project, policy)
    sid = shell_id(await bash(ctx, "echo one; read -t 0.3 < /dev/zero; echo two >&2; exit 4", run_in_background=True))
    seen = await until_output(ctx, sid, "exit: 4")
    assert "one\n" in seen and "---\ntwo\n" in seen
    assert text(await output(ctx, sid)) == "\nexit: 4"  # nothing new
    assert text(await kill(ctx, sid)) == f"Shell {sid} had already ended (exit: 4)."


async def test_filter(project: Path) -> None:
    ctx = context(project, ShellPolicy(sandbox="off"))
    sid = shell_id(await bash(ctx, "printf 'ok 1\\nFAIL 2\\nok 3\\n'", run_in_background=True))
    seen = ""
    for _ in range(200):
        r = text(await output(ctx, sid, filter="^FAIL"))
        seen += r
        if "exit:" in r:
            break
        await asyncio.sleep(0.02)
    assert "FAIL 2\n" in seen and "ok 1" not in seen and "ok 3" not in seen
    bad = await output(ctx, sid, filter="(")
    assert bad.is_error and "invalid filter" in text(bad)


async def test_output_is_capped_oldest_dropped(project: Path) -> None:
    ctx = context(project, ShellPolicy(sandbox="off"))
    sid = shell_id(
        await bash(ctx, f"head -c {BUFFER_CAP * 3} /dev/zero | tr '\\0' x; echo END", run_in_background=True)
    )
    for _ in range(500):
        shell = ctx.extras["shell_policy"].background("s1").get(sid)
        if shell is not None and not shell.running and shell.out.size and shell.out.parts[-1].endswith("END\n"):
            break
        await asyncio.sleep(0.02)
    out = text(await output(ctx, sid))
    assert out.count("x") <= BUFFER_CAP and "END" in out
    assert "chars truncated) (oldest output dropped)" in out and out.endswith("exit: 0")


async def test_shell_limit(project: Path) -> None:
    policy = ShellPolicy(sandbox="off")
    ctx = context(project, policy)
    for _ in range(MAX_SHELLS):
        shell_id(await bash(ctx, "sleep 30", run_in_background=True))
    over = await bash(ctx, "sleep 30", run_in_background=True)
    assert over.is_error and "already running" in text(over)
    await policy.end_background()
    assert policy.background("s1").list() == []


async def test_unknown_shell(project: Path) -> None:
    ctx = context(project, ShellPolicy(sandbox="off"))
    assert (await output(ctx, "bash_9")).is_error and (await kill(ctx, "bash_9")).is_error


def _agent(project: Path, srv: WireServer, sandbox: str) -> Agent:
    return Agent(
        provider=AnthropicProvider(api_key="sk-test", base_url=srv.url),
        model="m",
        tools=[BashTool(), BashOutputTool(), KillShellTool()],
        permission_mode="yolo",
        session_store=InMemorySessionStore(),
        cwd=project,
        sandbox=sandbox,
    )


async def _run(session: Any, prompt: str) -> None:
    async with session.run(prompt) as run:
        async for event in run:
            if event.type == "result":
                assert event.subtype == "success", event


def _sent_texts(body: Any) -> str:
    """Every text the last user message of a request carried (tool results included)."""
    parts = []
    for block in body["messages"][-1]["content"]:
        content = block.get("content", block.get("text", ""))
        parts.append(content if isinstance(content, str) else " ".join(c.get("text", "") for c in content))
    return "\n".join(parts)


@pytest.mark.parametrize("mode", ["off", "auto"])
async def test_shells_outlive_the_run_and_end_with_the_session(project: Path, mode: str) -> None:
    if mode == "auto" and not PROBE.ok:
        pytest.skip(f"bubblewrap cannot start here: {PROBE.reason}")
    tag, child = sleep_tag(), sleep_tag()
    command = f"echo started; setsid sleep {child} >/dev/null 2>&1 & sleep {tag}"
    with WireServer() as srv:
        srv.anthropic.enqueue(
            turn(wire_call("Bash", {"command": command, "run_in_background": True}, id="b")),
            turn(wire_text("started it")),
            turn(wire_text("still there")),
            turn(wire_call("BashOutput", {"shell_id": "bash_1"}, id="o")),
            turn(wire_text("read it")),
        )
        agent = _agent(project, srv, mode)
        async with agent:
            session = await agent.session()
            await _run(session, "start it")
            await appears(tag)
            await _run(session, "second turn")
            await _run(session, "third turn")
            shell = agent.shell_policy.background(session.id).get("bash_1")
            assert shell is not None and shell.running and tagged(tag)
            assert "started\n" in _sent_texts(srv.anthropic.requests[-1].body)  # read two turns later
        assert await gone(tag) and await gone(child)  # the agent closed: the session ended


async def test_the_model_is_told_when_a_shell_exits(project: Path) -> None:
    command = "until [ -e go ]; do sleep 0.02; done; echo line-$((6*7)); exit 3"  # exits once the first run is over
    with WireServer() as srv:
        srv.anthropic.enqueue(
            turn(wire_call("Bash", {"command": command, "run_in_background": True}, id="b")),
            turn(wire_text("started")),
            turn(wire_text("noted")),
            turn(wire_text("nothing new")),
        )
        agent = _agent(project, srv, "off")
        async with agent:
            session = await agent.session()
            await _run(session, "start it")
            shell = agent.shell_policy.background(session.id).get("bash_1")
            assert shell is not None
            (project / "go").touch()
            await asyncio.wait_for(asyncio.shield(shell._waiter), 10)
            await _run(session, "what happened?")
            told = _sent_texts(srv.anthropic.requests[2].body)
            assert f"Background shell bash_1 (command: {command}) has exited with exit code 3." in told
            assert "line-42" in told and "<system-reminder>" in told
            await _run(session, "and now?")
            assert "has exited" not in _sent_texts(srv.anthropic.requests[3].body)  # told once


async def test_agent_close_ends_shells(project: Path) -> None:
    tag = sleep_tag()
    agent = Agent(provider=ScriptedProvider([]), model="m", session_store=InMemorySessionStore(), cwd=project)
    ctx = context(project, agent.shell_policy)
    shell_id(await bash(ctx, f"sleep {tag}", run_in_background=True))
    await appears(tag)
    await agent.close()
    assert await gone(tag)
