"""Skills through a real Agent: events, listing, Skill tool, overlays,
persistence and resume, compaction re-injection, multi-dir config
(skills-wiring.test, configdir-multi-dir.test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ext_helpers import MockExec, make_agent, types, write_agent, write_skill

from skawld_core.events import SkillInvokedEvent, ToolCallEndEvent, UserEvent
from skawld_core.messages import Message, TextBlock, ToolResultBlock
from skawld_core.permissions import PermissionAllow
from skawld_core.sessions.sqlite import SqliteSessionStore
from skawld_core.testing import ScriptedProvider, reply, tool_call

pytestmark = pytest.mark.timeout(30)


def skills_dir(tmp_path: Path) -> Path:
    cfg = tmp_path / ".skawld"
    write_skill(
        cfg,
        "commit",
        "description: Write a commit\narguments: [message]\nargument_hint: <message>",
        "Commit with message: $message (all: $ARGUMENTS) in ${SKAWLD_SKILL_DIR}",
    )
    write_skill(cfg, "deploy", "description: Deploy\nmodel: big-model\nallowed_tools: [MockExec]", "Deploy now.")
    return cfg


def result_text(events: list[Any], tool_use_id: str) -> str:
    for e in events:
        if isinstance(e, UserEvent):
            for b in e.message.content:
                if isinstance(b, ToolResultBlock) and b.tool_use_id == tool_use_id:
                    return b.content if isinstance(b.content, str) else str(b.content)
    raise AssertionError("no result")


async def test_no_skills_no_skill_tool(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, ScriptedProvider([reply("hi")]))
    session = await agent.session()
    assert "Skill" not in agent.tools
    assert "Subagent" in agent.tools  # always: the built-in default agent exists
    events = [e async for e in session.run("hi")]
    assert types(events) == ["system", "user", "assistant", "usage", "result"]
    await agent.close()


async def test_skills_load_listing_and_invocation(tmp_path: Path) -> None:
    skills_dir(tmp_path)
    provider = ScriptedProvider(
        [reply(tool_call("Skill", {"skill": "/commit", "args": '"fix bug" extra'}, id="s1")), reply("done")]
    )
    agent = make_agent(tmp_path, provider)
    session = await agent.session()
    assert "Skill" in agent.tools
    assert "Skill" in agent.system_blocks()[2].text
    events = [e async for e in session.run("commit please")]
    assert types(events)[:3] == ["system", "skills_loaded", "user"]
    assert [s.name for s in events[1].skills] == ["commit", "deploy"]
    first = events[2].message.content[0]
    assert isinstance(first, TextBlock)
    assert "<system-reminder>" in first.text and "<skill_listing>" in first.text and "- commit:" in first.text
    kinds = types(events)
    assert kinds.index("skill_invoked") < kinds.index("tool_call_start") < kinds.index("skill_completed")
    invoked = next(e for e in events if isinstance(e, SkillInvokedEvent))
    assert (invoked.name, invoked.args) == ("commit", '"fix bug" extra')
    completed = next(e for e in events if e.type == "skill_completed")
    assert completed.is_error is False
    # a plain skill is auto-allowed: no permission_request in default mode
    assert "permission_request" not in kinds
    text = result_text(events, "s1")
    skill_dir = (tmp_path / ".skawld" / "skills" / "commit").resolve()
    assert (
        text
        == f'Skill base directory: {skill_dir}\n\nCommit with message: fix bug (all: "fix bug" extra) in {skill_dir}'
    )
    assert [r.name for r in session.invoked_skills] == ["commit"]
    # the listing is only in the first message of a new session
    provider.enqueue(reply("ok"))
    events2 = [e async for e in session.run("again")]
    assert "<skill_listing>" not in str(events2[2].message.content[0])
    await agent.close()


async def test_unknown_and_disabled_skill(tmp_path: Path) -> None:
    cfg = tmp_path / ".skawld"
    write_skill(cfg, "secret", "description: hidden\ndisable_model_invocation: true")
    write_skill(cfg, "open", "description: visible")
    provider = ScriptedProvider(
        [
            reply(tool_call("Skill", {"skill": "nope"}, id="a"), tool_call("Skill", {"skill": "secret"}, id="b")),
            reply("done"),
        ]
    )
    agent = make_agent(tmp_path, provider, permission_mode="yolo")
    session = await agent.session()
    events = [e async for e in session.run("x")]
    assert result_text(events, "a") == "Unknown skill: nope"
    assert result_text(events, "b") == "Skill is not invokable by the model: secret"
    assert "secret" not in (agent.skill_listing() or "")
    ends = [e for e in events if isinstance(e, ToolCallEndEvent)]
    assert all(e.is_error for e in ends)
    await agent.close()


async def test_overlay_model_and_allowed_tools_for_next_turn_only(tmp_path: Path) -> None:
    skills_dir(tmp_path)
    asked: list[str] = []

    async def can_use_tool(req: Any) -> Any:
        asked.append(req.tool_name if hasattr(req, "tool_name") else str(req))
        return PermissionAllow()

    provider = ScriptedProvider(
        [
            reply(tool_call("Skill", {"skill": "deploy"}, id="d1")),
            reply(tool_call("MockExec", {"path": "a"}, id="e1")),
            reply(tool_call("MockExec", {"path": "b"}, id="e2")),
            reply("done"),
        ]
    )
    agent = make_agent(tmp_path, provider, tools=[MockExec()], can_use_tool=can_use_tool)
    session = await agent.session()
    events = [e async for e in session.run("deploy")]
    assert events[-1].subtype == "success"
    # the skill itself asks (it changes model/tools); MockExec in the overlay turn does not; later it asks again
    assert asked == ["Skill", "MockExec"]
    tool = agent.tools.get("Skill")
    assert tool.overlay_for("/deploy") == ("big-model", ["MockExec"])  # type: ignore[union-attr]
    assert tool.overlay_for("commit") == (None, None)  # type: ignore[union-attr]
    models = [r.model for r in provider.requests]
    assert models == ["test-model", "big-model", "test-model", "test-model"]
    await agent.close()


async def test_persisted_and_reemitted_on_resume(tmp_path: Path) -> None:
    skills_dir(tmp_path)
    store = SqliteSessionStore(path=tmp_path / "s.db")
    provider = ScriptedProvider([reply(tool_call("Skill", {"skill": "commit", "args": "msg"}, id="s1")), reply("ok")])
    agent = make_agent(tmp_path, provider, session_store=store)
    session = await agent.session()
    [e async for e in session.run("go")]
    sid = session.id
    await agent.close()

    store2 = SqliteSessionStore(path=tmp_path / "s.db")
    record = await store2.load(sid)
    assert record is not None and [r.name for r in record.invoked_skills] == ["commit"]
    assert record.invoked_skills[0].args == "msg"
    agent2 = make_agent(tmp_path, ScriptedProvider([reply("resumed")]), session_store=store2)
    resumed = await agent2.session(id=sid)
    assert [r.name for r in resumed.invoked_skills] == ["commit"]
    events = [e async for e in resumed.run("more")]
    assert types(events)[:3] == ["system", "skills_loaded", "skill_invoked"]
    assert events[2].name == "commit" and events[2].args == "msg"
    # a resumed session is not new: no listing in its prompt message
    prompt = next(e for e in events if isinstance(e, UserEvent))
    assert "<skill_listing>" not in str(prompt.message.content[0])
    await agent2.close()


class KeepLast:
    id = "keep-last"

    async def compact(self, messages: list[Message], **_: Any) -> list[Message]:
        return [Message(role="user", content=[TextBlock(text="<summary of earlier conversation>\n\nS")]), messages[-1]]


async def test_reinjected_after_compaction(tmp_path: Path) -> None:
    from skawld_core.messages import Usage

    skills_dir(tmp_path)
    provider = ScriptedProvider(
        [
            reply(tool_call("Skill", {"skill": "commit", "args": "m"}, id="s1")),
            reply("done", usage=Usage(input_tokens=90_000, output_tokens=5)),
            reply("after"),
        ],
        context_window=100_000,
    )
    agent = make_agent(tmp_path, provider, compaction=KeepLast())
    session = await agent.session()
    [e async for e in session.run("go")]
    events = [e async for e in session.run("next")]
    assert "compaction" in types(events)
    last_request = provider.requests[-1].messages
    assert "<skill_listing>" in last_request[-2].content[0].text  # type: ignore[union-attr]
    body = last_request[-1].content[0].text  # type: ignore[union-attr]
    assert body.startswith("<system-reminder>\nSkill base directory:") and "Commit with message: m" in body
    await agent.close()


async def test_config_dir_multi(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write_skill(one, "commit", "description: one's commit")
    write_skill(two, "commit", "description: two's commit")
    write_skill(two, "lint", "description: lint")
    write_agent(one, "researcher.md", "description: researches")
    write_agent(two, "reviewer.md", "description: reviews")
    write_agent(two, "researcher.md", "description: shadowed")
    agent = make_agent(tmp_path, ScriptedProvider(), config_dir=[one, two])
    await agent.session()
    assert [(s.name, s.description) for s in agent.skill_summaries()] == [("commit", "one's commit"), ("lint", "lint")]
    registry = agent.extensions.subagents
    assert [(a.name, a.description) for a in registry.list()] == [("researcher", "researches"), ("reviewer", "reviews")]
    await agent.close()

    write_skill(tmp_path / ".skawld", "local", "description: default dir")
    agent = make_agent(tmp_path, ScriptedProvider(), config_dir=[])
    await agent.session()
    assert [s.name for s in agent.skill_summaries()] == ["local"]
    await agent.close()
