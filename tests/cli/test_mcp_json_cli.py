"""`.mcp.json` through the real `skawld -p` against the wire server: trust, `${VAR:-default}`,
an unset variable that skips one server, and the clash report of `skawld -v`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.cli.harness import CliEnv
from tests.support.wire_server import text, tool_call, turn

SERVER = str(Path(__file__).resolve().parents[1] / "fixtures" / "mcp_fixture_server.py")


def tool_results(body: Any) -> dict[str, Any]:
    """tool_use_id → content of every tool_result in one recorded Anthropic request body."""
    out: dict[str, Any] = {}
    for message in body["messages"]:
        if isinstance(message["content"], list):
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block["content"]
                    out[block["tool_use_id"]] = (
                        "".join(b.get("text", "") for b in content) if isinstance(content, list) else content
                    )
    return out


def write_mcp_json(cli: CliEnv, servers: dict[str, Any]) -> Path:
    path = cli.repo / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    return path


def test_mcp_json_server_with_expanded_vars_serves_the_model(cli: CliEnv) -> None:
    write_mcp_json(
        cli,
        {
            "fx": {
                "type": "stdio",
                "command": "${FX_PYTHON}",
                "args": [SERVER, "--tool-name", "${FX_TOOL:-from_default}"],
                "env": {"GREETING": "hi ${FX_WHO}"},
            },
            "needs_token": {"command": "${FX_PYTHON}", "args": [SERVER], "env": {"T": "${FX_UNSET_TOKEN}"}},
        },
    )
    env = {"FX_PYTHON": sys.executable, "FX_WHO": "there"}
    refused = cli.run(*cli.args("-p", "go"), env=env)
    assert refused.returncode == 3, refused.stderr
    assert "'fx'" in refused.stderr and ".mcp.json" in refused.stderr

    cli.srv.anthropic.enqueue(
        turn(
            tool_call("mcp__fx__env_var", {"name": "GREETING"}, id="a"),
            tool_call("mcp__fx__from_default", {"text": "ok"}, id="b"),
        ),
        turn(text("done")),
    )
    out = cli.run(*cli.args("-p", "go", "--accept-project-config", "--permission-mode", "yolo"), env=env)
    assert out.returncode == 0, out.stderr
    assert "needs_token" in out.stderr and "FX_UNSET_TOKEN" in out.stderr and ".mcp.json" in out.stderr
    requests = cli.srv.anthropic.wait_for_requests(2)
    tools = {t["name"] for t in requests[0].body["tools"]}
    assert {"mcp__fx__env_var", "mcp__fx__from_default"} <= tools
    assert not any(name.startswith("mcp__needs_token") for name in tools)
    results = tool_results(requests[1].body)
    assert results == {"a": "hi there", "b": "extra: ok"}


def test_verbose_reports_the_mcp_json_server_that_lost_a_clash(cli: CliEnv) -> None:
    cli.write_user_config({"mcpServers": {"fx": {"command": sys.executable, "args": [SERVER]}}})
    mcp = write_mcp_json(cli, {"fx": {"command": "never-started"}})
    cli.srv.anthropic.enqueue(turn(text("done")))
    out = cli.run(*cli.args("-p", "go", "-v"))
    assert out.returncode == 0, out.stderr
    assert f"config layer project: {mcp.resolve()}" in out.stderr
    lost = [line for line in out.stderr.splitlines() if "lost to" in line or "wins" in line]
    assert any("MCP server 'fx'" in line and str(mcp.resolve()) in line for line in lost), out.stderr
