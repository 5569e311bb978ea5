"""``skawld mcp serve`` as a subprocess, used by the `mcp` package's own client over stdio: the
tools are listed, a Read runs, and calls the permission rules would ask about are refused with
the reason (an MCP client cannot answer a prompt)."""

from __future__ import annotations

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.cli.harness import CliEnv, skawld_command

pytestmark = pytest.mark.timeout(120)


def server(cli: CliEnv, *args: str) -> Client:
    command = skawld_command()
    params = StdioServerParameters(
        command=command[0], args=[*command[1:], "mcp", "serve", *args], env=cli.env, cwd=str(cli.repo)
    )
    return Client(stdio_client(params))


def text_of(result: object) -> str:
    return "".join(getattr(c, "text", "") for c in getattr(result, "content", []))


async def test_tools_listed_read_runs_and_an_ask_is_refused(cli: CliEnv) -> None:
    (cli.repo / "notes.txt").write_text("served by skawld\n")
    async with server(cli) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert {"Read", "Write", "Edit", "Bash", "Glob", "Grep"} <= set(names) and "Subagent" not in names
        read = await client.call_tool("Read", {"file_path": str(cli.repo / "notes.txt")})
        assert not read.is_error and "served by skawld" in text_of(read)
        write = await client.call_tool("Write", {"file_path": str(cli.repo / "new.txt"), "content": "x"})
        assert write.is_error and "needs approval" in text_of(write) and "MCP client cannot be asked" in text_of(write)
    assert not (cli.repo / "new.txt").exists()


async def test_deny_rules_and_the_mode_apply(cli: CliEnv) -> None:
    cli.write_project_config(
        {"permissions": {"rules": [{"kind": "path", "tools": ["Read"], "paths": ["secret.txt"], "decision": "deny"}]}}
    )
    (cli.repo / "secret.txt").write_text("TOKEN=1\n")
    async with server(cli, "--permission-mode", "acceptEdits", "--cwd", str(cli.repo)) as client:
        denied = await client.call_tool("Read", {"file_path": str(cli.repo / "secret.txt")})
        assert denied.is_error and "TOKEN" not in text_of(denied)
        write = await client.call_tool("Write", {"file_path": str(cli.repo / "made.txt"), "content": "hi\n"})
        assert not write.is_error, text_of(write)
    assert (cli.repo / "made.txt").read_text() == "hi\n"
