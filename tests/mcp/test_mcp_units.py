"""MCP naming, config parsing and result mapping (no server needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from skawld_core.errors import ConfigError
from skawld_core.mcp import HttpServerConfig, StdioServerConfig, parse_server_config, qualified_name
from skawld_core.mcp.naming import check_server_names, plan_tool_names
from skawld_core.mcp.results import map_call_result
from skawld_core.messages import ImageBlock, TextBlock


def test_qualified_name_normalization() -> None:
    assert qualified_name("github", "create_issue") == "mcp__github__create_issue"
    assert qualified_name("my server", "get.weather/now") == "mcp__my_server__get_weather_now"
    assert qualified_name("a-b", "c-d") == "mcp__a-b__c-d"


def test_server_name_problems() -> None:
    problems = check_server_names(["ok", "", "my.server", "my_server"])
    assert problems[""] == "server name is empty"
    assert "collides with 'my.server'" in problems["my_server"]
    assert "ok" not in problems and "my.server" not in problems


def test_tool_name_collisions_and_length() -> None:
    names, problems = plan_tool_names(
        {"a__b": ["c"], "a": ["b__c", "x", "x"], "s": ["y" * 121, "z" * 120]}, taken=["mcp__s__taken"]
    )
    assert names == {("a__b", "c"): "mcp__a__b__c", ("a", "x"): "mcp__a__x", ("s", "z" * 120): "mcp__s__" + "z" * 120}
    assert any("'b__c' collides with 'c' of server 'a__b'" in p for p in problems)
    assert any("'x' collides" in p for p in problems)
    assert any("longer than 128" in p for p in problems)
    _, problems = plan_tool_names({"s": ["taken"]}, taken=["mcp__s__taken"])
    assert problems == ["s: tool 'taken' collides with an existing tool as 'mcp__s__taken'"]


def test_config_parsing(tmp_path: Path) -> None:
    c = parse_server_config("t", {"command": "srv", "args": ["-x", 1], "env": {"K": 2}, "timeoutMs": 500}, tmp_path)
    assert isinstance(c, StdioServerConfig)
    assert (c.command, c.args, c.env, c.timeout_ms, c.cwd) == ("srv", ("-x", "1"), {"K": "2"}, 500, tmp_path)
    assert (
        parse_server_config("t", {"command": "s", "inherit_env": True, "cwd": "sub"}, tmp_path).cwd == tmp_path / "sub"
    )
    h = parse_server_config("h", {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"A": "b"}}, tmp_path)
    assert isinstance(h, HttpServerConfig) and h.headers == {"A": "b"} and h.timeout_ms == 60_000
    assert isinstance(parse_server_config("h", {"url": "https://x/mcp"}, tmp_path), HttpServerConfig)
    sse = parse_server_config("s", {"type": "sse", "url": "http://h/sse"}, tmp_path)
    assert isinstance(sse, HttpServerConfig) and sse.transport == "sse"
    for bad in [{"command": ""}, {"type": "http"}, {"type": "ws", "url": "x"}, {"command": "a", "timeoutMs": 0}]:
        with pytest.raises(ConfigError):
            parse_server_config("b", bad, tmp_path)


def test_result_mapping() -> None:
    r = map_call_result(CallToolResult(content=[TextContent(type="text", text="  hello\n  world  ")]))
    assert (r.content, r.summary, r.is_error) == ("  hello\n  world  ", "hello world", False)
    r = map_call_result(
        CallToolResult(
            content=[
                TextContent(type="text", text="t"),
                ImageContent(type="image", data="AAAA", mime_type="image/png"),
                AudioContent(type="audio", data="AAAA", mime_type="audio/wav"),
                EmbeddedResource(type="resource", resource=TextResourceContents(uri="file:///a", text="body")),
                EmbeddedResource(type="resource", resource=BlobResourceContents(uri="file:///b", blob="AAAA")),
                ResourceLink(type="resource_link", name="d", uri="file:///d"),
            ]
        )
    )
    assert isinstance(r.content, list)
    assert isinstance(r.content[1], ImageBlock) and r.content[1].source.data == "AAAA"  # type: ignore[union-attr]
    texts = [b.text for b in r.content if isinstance(b, TextBlock)]
    assert texts == [
        "t",
        "[audio content omitted]",
        "[resource file:///a]\nbody",
        "[resource content omitted: file:///b]",
        "[resource link: file:///d]",
    ]
    assert map_call_result(CallToolResult(content=[])).content == "(no content)"
    assert map_call_result(CallToolResult(content=[], structured_content={"a": 1})).content == '{"a": 1}'
    err = map_call_result(CallToolResult(content=[TextContent(type="text", text="x" * 100)], is_error=True))
    assert err.is_error and err.summary.startswith("error: xxx") and len(err.summary) == 87
