"""``skawld acp`` as a subprocess, driven by the official Python ACP package's client side
(`acp.spawn_agent_process`, `ClientSideConnection`), against the local wire server."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AllowedOutcome,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CurrentModeUpdate,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    UsageUpdate,
    UserMessageChunk,
    WriteTextFileResponse,
)

from tests.cli.harness import MODEL, CliEnv, skawld_command
from tests.support.wire_script import WireUsage
from tests.support.wire_server import text, tool_call, turn

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]


class RecordingClient:
    """An editor: records every update, answers permission asks with `answer`."""

    def __init__(
        self, answer: str = "allow_once", buffers: dict[str, str] | None = None, *, saves: bool = False
    ) -> None:
        self.buffers = buffers  # the editor's open buffers (None: no fs capability)
        self.saves = saves  # whether it offers fs/write_text_file (it then saves the buffer to disk)
        self.reads: list[tuple[str, int | None, int | None]] = []
        self.writes: list[tuple[str, str]] = []
        self.updates: list[Any] = []
        self.asks: list[Any] = []
        self.answer = answer
        self.on_ask: Any = None  # called with each asked tool call before answering
        self.on_update: Any = None  # called with each update as it arrives

    async def request_permission(self, session_id: str, tool_call: Any, options: Any, **kw: Any) -> Any:
        self.asks.append((tool_call, [o.option_id for o in options]))
        if self.on_ask is not None:
            self.on_ask(tool_call)
        outcome = (
            DeniedOutcome(outcome="cancelled")
            if self.answer == "cancel"
            else AllowedOutcome(outcome="selected", option_id=self.answer)
        )
        return RequestPermissionResponse(outcome=outcome)

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        self.updates.append(update)
        if self.on_update is not None:
            self.on_update(update)

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kw: Any
    ) -> Any:
        self.reads.append((path, line, limit))
        if self.buffers is None or path not in self.buffers:
            raise acp.RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str, **kw: Any) -> Any:
        if not self.saves:
            raise acp.RequestError.method_not_found("fs/write_text_file")
        self.writes.append((path, content))
        if self.buffers is not None:
            self.buffers[path] = content
        Path(path).write_text(content)
        return WriteTextFileResponse()

    def on_connect(self, conn: Any) -> None:
        pass

    def of(self, kind: type) -> list[Any]:
        return [u for u in self.updates if isinstance(u, kind)]


@asynccontextmanager
async def agent(cli: CliEnv, client: RecordingClient, *extra: str) -> AsyncIterator[Any]:
    command = skawld_command()
    args = [*command[1:], "acp", "--model", MODEL, "--base-url", cli.srv.url, *extra]
    async with acp.spawn_agent_process(client, command[0], *args, env=cli.env, cwd=str(cli.repo)) as (conn, _proc):
        caps = ClientCapabilities(
            fs=FileSystemCapabilities(read_text_file=client.buffers is not None, write_text_file=client.saves)
        )
        init = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
        assert init.agent_capabilities is not None and init.agent_capabilities.load_session
        yield conn


def message_text(client: RecordingClient) -> str:
    return "".join(u.content.text for u in client.of(AgentMessageChunk))


async def settle() -> None:
    await asyncio.sleep(0)  # notifications are dispatched in order before the prompt's answer


async def test_prompt_streams_and_modes_are_listed(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("Hello from skawld over ACP.", chunks=4)))
    client = RecordingClient()
    async with agent(cli, client) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        assert new.modes is not None and [m.id for m in new.modes.available_modes] == [
            "default",
            "acceptEdits",
            "plan",
            "yolo",
        ]
        assert new.config_options and new.config_options[0].current_value == MODEL
        done = await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("say hello")])
        await settle()
    assert done.stop_reason == "end_turn"
    assert len(client.of(AgentMessageChunk)) == 4 and message_text(client) == "Hello from skawld over ACP."
    assert client.of(AvailableCommandsUpdate)


async def test_usage_is_sent_after_each_prompt(cli: CliEnv) -> None:
    for _ in range(2):
        cli.srv.anthropic.enqueue(turn(text("ok"), usage=WireUsage(input_tokens=1000, output_tokens=100)))
    cli.write_user_config({"pricing": {MODEL: {"input": 3, "output": 15}}})  # a local server is free otherwise
    client = RecordingClient()
    async with agent(cli, client) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        answers = [
            await conn.prompt(session_id=new.session_id, prompt=[acp.text_block(f"prompt {i}")]) for i in range(2)
        ]
        await settle()
    assert [(a.usage.input_tokens, a.usage.output_tokens, a.usage.total_tokens) for a in answers] == [
        (1000, 100, 1100)
    ] * 2
    first, second = client.of(UsageUpdate)
    assert (first.used, second.used) == (1100, 1100) and first.size == 200_000
    # $3 / $15 per million tokens: 0.0045 a prompt, cumulative
    assert (first.cost.amount, second.cost.amount, first.cost.currency) == (0.0045, 0.009, "USD")


async def test_a_tool_call_that_asks_and_is_allowed_shows_an_edit_diff(cli: CliEnv) -> None:
    target = cli.repo / "notes.txt"
    target.write_text("alpha\nbeta\n")
    cli.srv.anthropic.enqueue(
        turn(tool_call("Read", {"file_path": str(target)}, id="r1")),
        turn(tool_call("Edit", {"file_path": str(target), "old_string": "beta", "new_string": "gamma"}, id="e1")),
        turn(text("edited")),
    )
    client = RecordingClient("allow_once")
    async with agent(cli, client) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        done = await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("change beta")])
        await settle()
    assert done.stop_reason == "end_turn"
    ((asked, options),) = client.asks
    assert asked.tool_call_id == "e1" and asked.kind == "edit"
    assert options == ["allow_once", "allow_always", "reject_once"]
    read, start = client.of(ToolCallStart)
    assert (
        read.kind == "read"
        and start.tool_call_id == "e1"
        and start.kind == "edit"
        and start.locations[0].path == str(target)
    )
    (diff,) = start.content
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == (
        "diff",
        str(target),
        "alpha\nbeta\n",
        "alpha\ngamma\n",
    )
    ends = [u for u in client.of(ToolCallProgress) if u.status is not None]
    assert [(u.tool_call_id, u.status) for u in ends] == [("r1", "completed"), ("e1", "completed")], ends
    assert target.read_text() == "alpha\ngamma\n"


async def test_a_rejected_call_fails_and_leaves_the_file(cli: CliEnv) -> None:
    target = cli.repo / "keep.txt"
    cli.srv.anthropic.enqueue(
        turn(tool_call("Write", {"file_path": str(target), "content": "x"}, id="w1")), turn(text("ok"))
    )
    client = RecordingClient("reject_once")
    async with agent(cli, client) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("write")])
        await settle()
    (end,) = [u for u in client.of(ToolCallProgress) if u.status is not None]
    assert end.status == "failed" and "rejected" in end.raw_output
    assert not target.exists()


async def test_cancel_mid_stream(cli: CliEnv) -> None:
    slow = turn(text("one two three four", chunks=4), gate_after=3)
    cli.srv.anthropic.enqueue(slow)
    client = RecordingClient()
    try:
        async with agent(cli, client) as conn:
            new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
            running = asyncio.ensure_future(conn.prompt(session_id=new.session_id, prompt=[acp.text_block("count")]))
            await asyncio.to_thread(cli.srv.anthropic.wait_for_requests, 1)
            while not client.of(AgentMessageChunk):
                await asyncio.sleep(0.01)
            await conn.cancel(session_id=new.session_id)
            done = await asyncio.wait_for(running, 30)
    finally:
        slow.gate.set()
    assert done.stop_reason == "cancelled"


async def test_load_replays_the_session_and_mode_changes(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(tool_call("Read", {"file_path": "README.md"}, id="r1")), turn(text("read it")))
    (cli.repo / "README.md").write_text("hi\n")
    first = RecordingClient()
    async with agent(cli, first) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("read the readme")])
    again = RecordingClient()
    async with agent(cli, again) as conn:
        listed = await conn.list_sessions(cwd=str(cli.repo))
        assert new.session_id in [s.session_id for s in listed.sessions]
        loaded = await conn.load_session(cwd=str(cli.repo), session_id=new.session_id, mcp_servers=[])
        assert loaded is not None
        await conn.set_session_mode(session_id=new.session_id, mode_id="plan")
        await settle()

    assert "read the readme" in [u.content.text for u in again.of(UserMessageChunk)]
    assert [u.tool_call_id for u in again.of(ToolCallStart)] == ["r1"]
    assert "read it" in message_text(again)
    assert [u.current_mode_id for u in again.of(CurrentModeUpdate)] == ["plan"]


async def test_resume_opens_a_stored_session_without_replaying_it(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(turn(text("noted")), turn(text("it was kiwi")))
    first = RecordingClient()
    async with agent(cli, first) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("remember the word kiwi")])
    again = RecordingClient()
    async with agent(cli, again) as conn:
        resumed = await conn.resume_session(cwd=str(cli.repo), session_id=new.session_id, mcp_servers=[])
        assert resumed.modes is not None and resumed.modes.current_mode_id == "default"
        done = await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("which word?")])
        await settle()
    assert done.stop_reason == "end_turn" and message_text(again) == "it was kiwi"
    assert not again.of(UserMessageChunk) and not again.of(ToolCallStart)  # nothing replayed
    assert "remember the word kiwi" in json.dumps(cli.srv.anthropic.requests[1].body["messages"])


def _pids_with(marker: str) -> list[int]:
    found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True)
    return [int(pid) for pid in found.stdout.split()]


async def _started(marker: str) -> list[int]:
    """The pids of the background command once it runs (the sandbox starts it a little later)."""
    for _ in range(400):
        if pids := _pids_with(marker):
            return pids
        await asyncio.sleep(0.05)
    return []


async def test_close_ends_the_sessions_shells_and_forgets_it(cli: CliEnv) -> None:
    marker = f"sleep 300.{uuid.uuid4().int % 10**12:012d}"  # a command line no other process has
    command = marker
    cli.srv.anthropic.enqueue(
        turn(tool_call("Bash", {"command": command, "run_in_background": True}, id="b1")), turn(text("started"))
    )
    client = RecordingClient("allow_once")
    async with agent(cli, client) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("start a sleeper")])
        shells = await _started(marker)
        try:
            assert shells
            await conn.close_session(session_id=new.session_id)
            assert not _pids_with(marker)
            with pytest.raises(acp.RequestError) as closed:
                await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("still there?")])
            assert closed.value.code == -32602
        finally:
            for pid in _pids_with(marker):  # only when close failed: the shell this test started
                os.kill(pid, signal.SIGKILL)


async def test_bad_requests_get_json_rpc_errors(cli: CliEnv) -> None:
    client = RecordingClient()
    async with agent(cli, client) as conn:
        with pytest.raises(acp.RequestError) as unknown:
            await conn.load_session(cwd=str(cli.repo), session_id="no-such-session", mcp_servers=[])
        assert unknown.value.code == -32002
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        with pytest.raises(acp.RequestError) as mode:
            await conn.set_session_mode(session_id=new.session_id, mode_id="dontAsk")
        assert mode.value.code == -32602 and "unknown mode" in json.dumps(mode.value.data)


async def test_the_task_list_is_sent_as_a_plan(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(
            tool_call("TaskCreate", {"subject": "Write the parser", "description": "d"}, id="t1"),
            tool_call("TaskCreate", {"subject": "Test it", "description": "d"}, id="t2"),
        ),
        turn(tool_call("TaskUpdate", {"task_id": "1", "status": "in_progress"}, id="t3")),
        turn(text("planned")),
    )
    client = RecordingClient()
    async with agent(cli, client) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("plan it")])
        await settle()
    plans = [[(e.content, e.status) for e in u.entries] for u in client.of(AgentPlanUpdate)]
    assert plans[0] == [("Write the parser", "pending"), ("Test it", "pending")]
    assert plans[-1] == [("Write the parser", "in_progress"), ("Test it", "pending")]


def test_malformed_json_is_answered_not_a_traceback(cli: CliEnv) -> None:
    command = skawld_command()
    proc = subprocess.run(
        [*command, "acp", "--model", MODEL],
        input='{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"bogus":true}}\n',
        capture_output=True,
        text=True,
        env=cli.env,
        cwd=cli.repo,
        timeout=60,
        executable=command[0] if len(command) == 1 else sys.executable,
    )
    (answer,) = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert answer["id"] == 1 and answer["error"]["code"] == -32602
    assert "Traceback" not in proc.stderr


async def test_read_is_served_by_the_editors_unsaved_buffer_and_rules_still_apply(cli: CliEnv) -> None:
    saved = cli.repo / "draft.py"
    saved.write_text("print('saved on disk')\n")
    secret = cli.repo / ".env"
    secret.write_text("TOKEN=1\n")
    cli.write_project_config(
        {"permissions": {"rules": [{"kind": "path", "tools": ["Read"], "paths": [".env"], "decision": "deny"}]}}
    )
    cli.srv.anthropic.enqueue(
        turn(
            tool_call("Read", {"file_path": str(saved)}, id="r1"),
            tool_call("Read", {"file_path": str(secret)}, id="r2"),
        ),
        turn(text("seen")),
    )
    client = RecordingClient(buffers={str(saved): "print('unsaved in the editor')\n", str(secret): "TOKEN=editor\n"})
    async with agent(cli, client, "--accept-project-config") as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("read the draft")])
        await settle()
    results = {u.tool_call_id: u for u in client.of(ToolCallProgress) if u.status is not None}
    assert results["r1"].status == "completed" and "unsaved in the editor" in results["r1"].raw_output
    assert results["r2"].status == "failed" and "TOKEN" not in results["r2"].raw_output
    assert client.reads == [(str(saved), 1, 2000)]  # the denied file was never asked for


async def test_write_and_edit_go_through_the_editor(cli: CliEnv) -> None:
    draft = cli.repo / "draft.py"
    draft.write_text("x = 'on disk'\n")
    fresh = cli.repo / "pkg" / "new.py"
    cli.srv.anthropic.enqueue(
        turn(tool_call("Read", {"file_path": str(draft)}, id="r1")),
        turn(tool_call("Edit", {"file_path": str(draft), "old_string": "unsaved", "new_string": "edited"}, id="e1")),
        turn(tool_call("Write", {"file_path": str(fresh), "content": "y = 1\n"}, id="w1")),
        turn(text("done")),
    )
    client = RecordingClient(buffers={str(draft): "x = 'unsaved'\n"}, saves=True)
    async with agent(cli, client) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("edit the draft")])
        await settle()
    results = {u.tool_call_id: u for u in client.of(ToolCallProgress) if u.status is not None}
    assert [results[i].status for i in ("r1", "e1", "w1")] == ["completed"] * 3, results
    assert [a.tool_call_id for a, _ in client.asks] == ["e1", "w1"]  # permission asks are unchanged
    # the edit applies to the editor's unsaved buffer, and both changes reach the editor
    assert client.writes == [(str(draft), "x = 'edited'\n"), (str(fresh), "y = 1\n")]
    assert draft.read_text() == "x = 'edited'\n" and fresh.read_text() == "y = 1\n"
    (edit,) = [u for u in client.of(ToolCallStart) if u.tool_call_id == "e1"]
    (diff,) = edit.content  # shown against the editor's buffer, not the file on disk
    assert (diff.old_text, diff.new_text) == ("x = 'unsaved'\n", "x = 'edited'\n")


async def test_editor_writes_keep_the_deny_rules_and_check_the_real_path(cli: CliEnv) -> None:
    secret = cli.repo / ".env"
    secret.write_text("TOKEN=1\n")
    link = cli.repo / "innocent.txt"
    link.symlink_to(secret)
    vault_key = cli.repo / "vault" / "key.txt"
    vault_key.parent.mkdir()
    swapped = cli.repo / "swapped.txt"
    swapped.symlink_to(cli.repo / "harmless.txt")  # neither exists yet: Write may create it
    cli.write_project_config(
        {
            "permissions": {
                "rules": [
                    {"kind": "path", "tools": ["Write", "Edit"], "paths": [".env", "vault/**"], "decision": "deny"}
                ]
            }
        }
    )
    cli.srv.anthropic.enqueue(
        turn(
            tool_call("Write", {"file_path": str(secret), "content": "TOKEN=2\n"}, id="w1"),
            tool_call("Write", {"file_path": str(link), "content": "TOKEN=3\n"}, id="w2"),
        ),
        turn(tool_call("Write", {"file_path": str(swapped), "content": "TOKEN=4\n"}, id="w3")),
        turn(text("tried")),
    )
    client = RecordingClient("allow_once", buffers={}, saves=True)

    def swap_the_link(_call: Any) -> None:  # after the check, before the write: point it into the vault
        swapped.unlink()
        swapped.symlink_to(vault_key)

    client.on_ask = swap_the_link
    async with agent(cli, client, "--accept-project-config") as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("write the secret")])
        await settle()
    results = {u.tool_call_id: u for u in client.of(ToolCallProgress) if u.status is not None}
    assert [results[i].status for i in ("w1", "w2", "w3")] == ["failed"] * 3, results
    assert client.writes == [] and [a.tool_call_id for a, _ in client.asks] == ["w3"]
    assert secret.read_text() == "TOKEN=1\n" and not vault_key.exists()
    assert "vault" in results["w3"].raw_output, results["w3"].raw_output


async def test_bash_output_is_streamed_while_the_command_runs(cli: CliEnv) -> None:
    go = cli.repo / "go"
    # the command prints, then waits for the editor to have shown that output before it goes on
    command = "echo first; for i in $(seq 400); do [ -e go ] && break; sleep 0.05; done; echo second"
    cli.srv.anthropic.enqueue(
        turn(tool_call("Bash", {"command": command, "timeout_ms": 30000}, id="b1")), turn(text("ran"))
    )
    client = RecordingClient("allow_once")
    shown: list[str] = []

    def on_update(update: Any) -> None:
        if isinstance(update, ToolCallProgress) and update.status == "in_progress" and update.content:
            shown.append(update.content[0].content.text)
            if "first" in shown[-1]:
                go.touch()

    client.on_update = on_update
    async with agent(cli, client) as conn:
        new = await conn.new_session(cwd=str(cli.repo), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[acp.text_block("run it")])
        await settle()
    (end,) = [u for u in client.of(ToolCallProgress) if u.status in ("completed", "failed")]
    assert end.status == "completed" and "first\nsecond" in end.raw_output, end.raw_output
    assert shown and shown[0].startswith("first") and "second" not in shown[0]
    assert "second" in shown[-1]  # the live view is caught up before the result arrives
    statuses = [u.status for u in client.of(ToolCallProgress) if u.status]
    assert statuses[-1] == "completed" and set(statuses[:-1]) == {"in_progress"}


ACP_SDK = (
    ROOT / ".ci" / "acp-sdk" / "node_modules" / "@agentclientprotocol" / "sdk" / "dist" / "v1" / "stable" / "acp.js"
)
NODE = shutil.which("node")


@pytest.mark.skipif(
    (not ACP_SDK.is_file() or NODE is None) and os.environ.get("CI") != "true",
    reason="the TypeScript ACP SDK is not installed (bash .ci/run installs it under .ci/acp-sdk)",
)
def test_the_typescript_acp_client(cli: CliEnv) -> None:
    draft = cli.repo / "draft.md"
    draft.write_text("on disk\n")
    cli.srv.anthropic.enqueue(
        turn(text("Reading."), tool_call("Read", {"file_path": str(draft)}, id="r1")),
        turn(tool_call("Edit", {"file_path": str(draft), "old_string": "unsaved", "new_string": "edited"}, id="e1")),
        turn(text("It said: unsaved.")),
    )
    command = skawld_command()
    spec = {
        "sdk": ACP_SDK.as_uri(),
        "command": command[0],
        "args": [*command[1:], "acp", "--model", MODEL, "--base-url", cli.srv.url],
        "cwd": str(cli.repo),
        "env": cli.env,
        "buffer": {"path": str(draft), "text": "unsaved buffer text\n"},
    }
    assert NODE is not None
    proc = subprocess.run(
        [NODE, str(Path(__file__).with_name("acp_ts") / "client.mjs"), json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=100,
    )
    (out,) = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert "error" not in out, out.get("error")
    assert out["agentInfo"]["name"] == "skawld" and out["stopReason"] == "end_turn"
    assert [m["id"] for m in out["modes"]["availableModes"]] == ["default", "acceptEdits", "plan", "yolo"]
    assert set(out["reads"]) == {str(draft)}  # Read, and Edit reading the buffer it changes
    kinds = [u["sessionUpdate"] for u in out["updates"]]
    assert "agent_message_chunk" in kinds and "tool_call" in kinds and "available_commands_update" in kinds
    read, edit = [u for u in out["updates"] if u["sessionUpdate"] == "tool_call_update" and u.get("status")]
    assert read["toolCallId"] == "r1" and read["status"] == "completed" and "unsaved buffer text" in read["rawOutput"]
    assert edit["toolCallId"] == "e1" and edit["status"] == "completed", edit
    assert out["asks"] == ["e1"] and out["writes"] == [[str(draft), "edited buffer text\n"]]
    assert draft.read_text() == "edited buffer text\n"


ZED_ADAPTER = ROOT / ".ci" / "zed-acp" / "node_modules" / "@zed-industries" / "claude-code-acp" / "dist" / "index.js"


@pytest.mark.skipif(
    (not ZED_ADAPTER.is_file() or not ACP_SDK.is_file() or NODE is None) and os.environ.get("CI") != "true",
    reason="Zed's claude-code-acp adapter is not installed (bash .ci/run installs it under .ci/zed-acp)",
)
def test_zeds_claude_code_adapter_drives_skawld(cli: CliEnv) -> None:
    cli.srv.anthropic.enqueue(
        turn(text("Making it."), tool_call("Bash", {"command": "touch made-by-bash.txt"}, id="b1")),
        turn(text("Made it.")),
    )
    env = {
        **cli.env,
        "CLAUDE_CODE_EXECUTABLE": skawld_command()[0],
        "SKAWLD_MODEL": MODEL,
        "SKAWLD_BASE_URL": cli.srv.url,
    }
    spec = {
        "sdk": ACP_SDK.as_uri(),
        "adapter": str(ZED_ADAPTER),
        "cwd": str(cli.repo),
        "env": env,
        "prompt": "make a file",
        "load": True,
    }
    assert NODE is not None
    proc = subprocess.run(
        [NODE, str(Path(__file__).with_name("zed_acp") / "client.mjs"), json.dumps(spec)],
        capture_output=True,
        text=True,
        timeout=110,
    )
    (out,) = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert "error" not in out, f"{out.get('error')}\nstderr:\n{proc.stderr[-3000:]}"
    first = out["first"]
    assert first["stopReason"] == "end_turn"
    assert [(a["toolCallId"], "allow_once" in a["options"]) for a in first["asks"]] == [("b1", True)]
    (done,) = [u for u in first["updates"] if u["sessionUpdate"] == "tool_call_update" and u.get("status")]
    assert done["toolCallId"] == "b1" and done["status"] == "completed" and "exit: 0" in done["rawOutput"]
    said = "".join(u["content"]["text"] for u in first["updates"] if u["sessionUpdate"] == "agent_message_chunk")
    assert said == "Making it.Made it."
    assert (cli.repo / "made-by-bash.txt").exists()  # skawld ran it, in its own sandbox
    # session/load: the adapter replays Claude Code's transcript, which skawld writes beside its store
    replayed = out["load"]["updates"]
    assert "make a file" in [u["content"]["text"] for u in replayed if u["sessionUpdate"] == "user_message_chunk"]
    assert [u["toolCallId"] for u in replayed if u["sessionUpdate"] == "tool_call"] == ["b1"]
    assert out["load"]["modes"]["currentModeId"] == "default"
