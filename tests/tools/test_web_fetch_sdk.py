"""The installed `skawld`, driven by `claude-agent-sdk`, has WebFetch: the host is asked once per
domain, and answering with the suggested rule allows that domain for the rest of the session."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from claude_agent_sdk import (
    ClaudeAgentOptions,
    ClaudeSDKClient,
    PermissionResultAllow,
    ResultMessage,
    ToolPermissionContext,
    ToolResultBlock,
    UserMessage,
)

from tests.cli.harness import MODEL, CliEnv, cli, skawld_command  # noqa: F401
from tests.support.wire_server import text, tool_call, turn

from .web_site import Site, serve_site

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def site() -> Iterator[Site]:
    with serve_site() as s:
        yield s


async def test_one_ask_per_domain_and_the_suggestion_allows_it(cli: CliEnv, site: Site) -> None:  # noqa: F811
    cli.srv.anthropic.enqueue(
        turn(tool_call("WebFetch", {"url": site.url("/plain")}, id="w1")),
        turn(tool_call("WebFetch", {"url": site.url("/json")}, id="w2")),
        turn(text("fetched both")),
    )
    asked: list[tuple[str, list[Any]]] = []

    async def can_use_tool(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Any:
        asked.append((name, ctx.suggestions))
        return PermissionResultAllow(updated_permissions=ctx.suggestions)

    opts = ClaudeAgentOptions(
        cli_path=skawld_command()[0],
        cwd=str(cli.repo),
        env=cli.env,
        model=MODEL,
        extra_args={"base-url": cli.srv.url},
        can_use_tool=can_use_tool,
    )
    async with ClaudeSDKClient(opts) as client:
        await client.query("fetch the two pages")
        messages = [m async for m in client.receive_response()]

    assert len(asked) == 1 and asked[0][0] == "WebFetch"
    suggestion = asked[0][1][0]
    assert suggestion.type == "addRules" and suggestion.behavior == "allow"
    assert suggestion.rules[0].tool_name == "WebFetch" and suggestion.rules[0].rule_content == "domain:127.0.0.1"
    results = {
        b.tool_use_id: b
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for b in m.content
        if isinstance(b, ToolResultBlock)
    }
    assert not results["w1"].is_error and "just text" in str(results["w1"].content)
    assert not results["w2"].is_error and '{"a": 1}' in str(results["w2"].content)
    assert site.paths == ["/plain", "/json"]
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "fetched both"
