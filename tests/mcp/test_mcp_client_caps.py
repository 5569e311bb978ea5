"""skawld as an MCP client offers roots, elicitation and list-changed handling, tested against the
real fixture server (stdio and streamable HTTP): the server lists the client's roots, asks the user
a form (answered, declined, defaults applied as SEP-1034 says, a wrong answer never sent), and adds a
tool mid-session that the next model turn sees without a restart."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ext_helpers import make_agent
from mcp_support import fixture_entry, http_fixture, run_calls

from skawld_core.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    apply_defaults,
    check_answer,
    form_fields,
)
from skawld_core.permissions import PermissionAllow
from skawld_core.testing import ScriptedProvider

pytestmark = pytest.mark.timeout(60)


async def allow(*_args: Any) -> PermissionAllow:
    return PermissionAllow()


def text_of(block: Any) -> str:
    content = block.content
    return content if isinstance(content, str) else "".join(getattr(b, "text", "") for b in content)


async def test_roots_are_the_project_and_added_directories(tmp_path: Path) -> None:
    added = tmp_path / "shared"
    added.mkdir()
    agent = make_agent(
        tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()}, additional_directories=[str(added)]
    )
    got = await run_calls(agent, ("mcp__fx__roots", {}, "r"))
    assert text_of(got["r"]).splitlines() == [tmp_path.resolve().as_uri(), added.resolve().as_uri()]
    await agent.close()


async def test_elicitation_answer_gets_defaults_and_is_typed(tmp_path: Path) -> None:
    seen: list[ElicitationRequest] = []

    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        seen.append(request)
        return ElicitationAnswer("accept", {"name": "Grace", "age": "41", "colour": ""})  # typed as text

    agent = make_agent(
        tmp_path, ScriptedProvider(), mcp_servers={"fx": fixture_entry()}, can_use_tool=allow, elicit=answer
    )
    got = await run_calls(agent, ("mcp__fx__ask", {}, "a"))
    action, content = text_of(got["a"]).split(": ", 1)
    assert action == "accept"
    assert json.loads(content) == {"name": "Grace", "age": 41, "score": 9.5, "colour": "green", "subscribe": True}
    [request] = seen
    assert (request.server, request.message, request.mode) == ("fx", "Who are you?", "form")
    assert [(f.name, f.type, f.required) for f in request.fields][:2] == [
        ("name", "string", False),
        ("age", "integer", False),
    ]
    await agent.close()


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        (None, "decline: null"),  # no handler (headless): the spec's decline
        (ElicitationAnswer("cancel"), "cancel: null"),
        (ElicitationAnswer("accept", {"age": "old"}), "decline: null"),  # a wrong answer is never sent
    ],
)
async def test_elicitation_without_an_answer(tmp_path: Path, answer: ElicitationAnswer | None, expected: str) -> None:
    async def handler(_request: ElicitationRequest) -> ElicitationAnswer:
        assert answer is not None
        return answer

    agent = make_agent(
        tmp_path,
        ScriptedProvider(),
        mcp_servers={"fx": fixture_entry()},
        can_use_tool=allow,
        elicit=None if answer is None else handler,
    )
    got = await run_calls(agent, ("mcp__fx__ask", {}, "a"))
    assert text_of(got["a"]) == expected
    await agent.close()


@pytest.mark.parametrize("transport", ["stdio", "http", "sse"])
async def test_a_tool_added_mid_session_is_picked_up_without_a_restart(tmp_path: Path, transport: str) -> None:
    """stdio and streamable HTTP speak 2026-07-28 here (changes come on `subscriptions/listen`); the
    legacy SSE transport speaks 2025-11-25 (changes come as notifications during the call)."""

    async def run(entry: dict[str, Any]) -> None:
        provider = ScriptedProvider()
        agent = make_agent(tmp_path, provider, mcp_servers={"fx": entry}, can_use_tool=allow)
        got = await run_calls(agent, ("mcp__fx__grow", {"name": "fresh"}, "g"))
        assert text_of(got["g"]) == "added fresh"
        manager = agent.extensions.mcp
        await manager.wait_for_change("fx:tools")
        assert set(manager.changes) == {"fx:tools"}
        again = await run_calls(agent, ("mcp__fx__fresh", {"text": "hi"}, "f"))
        assert "mcp__fx__fresh" in [t.name for t in provider.requests[-2].tools]
        assert text_of(again["f"]) == "fresh: hi"
        assert agent.extensions.mcp.connections["fx"].starts == 1  # no restart
        await agent.close()

    if transport == "stdio":
        await run(fixture_entry())
    else:
        async with http_fixture(*(("--sse",) if transport == "sse" else ())) as (url, _proc):
            await run({"type": transport, "url": url})


def test_form_fields_and_checks_table() -> None:
    schema = {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "default": ["a"]},
            "plan": {"type": "string", "oneOf": [{"const": "free"}, {"const": "pro"}]},
            "ok": {"type": "boolean"},
        },
        "required": ["plan"],
    }
    tags, plan, ok = form_fields(schema)
    assert (tags.multiple, tags.choices, plan.choices, plan.required, ok.type) == (
        True,
        ("a", "b"),
        ("free", "pro"),
        True,
        "boolean",
    )
    assert apply_defaults(schema, {"ok": ""}) == {"tags": ["a"]}
    assert check_answer(schema, {"plan": "pro", "ok": "yes", "tags": "a, b"}) == {
        "tags": ["a", "b"],
        "plan": "pro",
        "ok": True,
    }
    for bad, message in (
        ({}, "plan is required"),
        ({"plan": "gold"}, "expected one of free, pro"),
        ({"plan": "pro", "tags": "c"}, "c not one of"),
    ):
        with pytest.raises(ValueError, match=message):
            check_answer(schema, bad)
