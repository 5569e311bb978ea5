"""Pilot tests of the interactive app over a real Agent with a ScriptedProvider."""

from __future__ import annotations

import asyncio
import gc
import random
import weakref
from pathlib import Path
from typing import Any

import pytest

from skawld_core.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock
from skawld_core.sessions import InMemorySessionStore
from skawld_core.testing import ScriptedProvider, reply, text, tool_call
from skawld_tui.app.screens.confirm import ConfirmScreen
from skawld_tui.app.screens.permission import PermissionScreen
from skawld_tui.app.widgets.blocks import AssistantMarkdown, ErrorBlock, NoteLine, UserMessage
from skawld_tui.app.widgets.tool_panel import SubagentPane, ToolPanel
from tests.support.mock_tools import MockExec, MockRead, MockWrite
from tests.support.nesting import Delegate, is_child

from .helpers import SIZE, make_app, ready, run_done, send, until

pytestmark = pytest.mark.timeout(60)


def footers(app: Any) -> list[str]:
    return [str(n.render()) for n in app.query(NoteLine) if n.has_class("run-footer")]


def panel(app: Any, tool_use_id: str) -> ToolPanel:
    found = [p for p in app.query(ToolPanel) if p.tool_use_id == tool_use_id]
    assert len(found) == 1, f"{len(found)} panels for {tool_use_id}"
    return found[0]


async def test_streaming_batches_deltas_into_one_markdown() -> None:
    body = "# Title\n\nSome *markdown* text with `code`.\n\n```python\nprint('hi')\n```\n" * 5
    app = make_app([reply(text(body, chunk=3))])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "write something")
        await run_done(pilot)
        mds = list(app.query(AssistantMarkdown))
        assert len(mds) == 1
        assert mds[0].source == body
        assert footers(app) == ["  success · 10 in / 5 out"]
        assert app.status.info.tokens == 15


async def test_final_assistant_message_replaces_partials_when_they_differ() -> None:
    # A turn without partial text: the final message is still rendered.
    from skawld_core.providers.base import MessageEnd, MessageStart, TextDelta
    from skawld_core.testing import ScriptedTurn

    turn = ScriptedTurn(events=[MessageStart(), TextDelta(text="final answer"), MessageEnd(stop_reason="end_turn")])
    app = make_app([turn])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "q")
        await run_done(pilot)
        assert app.query_one(AssistantMarkdown).source == "final answer"


async def test_parallel_tool_panels_filled_by_id_in_shuffled_order() -> None:
    reader = MockRead()
    ids = [f"r{i}" for i in range(5)]
    for i in ids:
        reader.gates[f"f{i}"] = asyncio.Event()
    calls = [tool_call("MockRead", {"path": f"f{i}"}, id=i) for i in ids]
    app = make_app([reply(*calls), reply("all read")], tools=[reader], mode="yolo")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "read them all")
        await until(lambda: len(app.query(ToolPanel)) == 5 and reader.running == 5, pilot)
        assert {p.status for p in app.query(ToolPanel)} == {"running"}
        order = ids[:]
        random.Random(7).shuffle(order)
        for n, i in enumerate(order, start=1):
            reader.gates[f"f{i}"].set()
            await until(lambda i=i: panel(app, i).status == "ok", pilot)
            done = [p.tool_use_id for p in app.query(ToolPanel) if p.status == "ok"]
            assert len(done) == n
        await run_done(pilot)
        for i in ids:
            p = panel(app, i)
            assert p.result == f"read f{i}"
            assert p.summary == f"MockRead f{i}"
        # expanding shows the panel's own result
        target = panel(app, "r3")
        target.collapsed = False
        await pilot.pause()
        shown = " ".join(str(w.render()) for w in target.query(".tool-output *, .tool-output"))
        assert "read fr3" in shown


def nested_provider() -> ScriptedProvider:
    provider = ScriptedProvider()
    provider.enqueue(reply(tool_call("Subagent", {"description": "research", "prompt": "OUTER task"}, id="s")))
    provider.enqueue(reply(tool_call("Delegate", {"prompt": "INNER task"}, id="d")), match=is_child("OUTER"))
    provider.enqueue(reply(text("inner findings", chunk=3)), match=is_child("INNER"))
    provider.enqueue(reply("outer summary"), match=is_child("OUTER"))
    provider.enqueue(reply("All done."))
    return provider


async def test_nested_subagent_panes_two_levels(tmp_path: Path) -> None:
    app = make_app(provider=nested_provider(), tools=[Delegate()], mode="yolo", cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await run_done(pilot)
        outer_panel = panel(app, "s")
        panes = list(app.query(SubagentPane))
        assert [p.display_name for p in panes] == ["Agent #1", "Inner"]
        outer, inner = panes
        assert outer in outer_panel.query(SubagentPane)
        # the inner pane sits inside the Delegate panel inside the outer pane
        delegate = panel(app, "d")
        assert delegate in outer.query(ToolPanel)
        assert inner in delegate.query(SubagentPane)
        assert [m.source for m in inner.query(AssistantMarkdown)] == ["inner findings"]
        assert "outer summary" in [m.source for m in outer.query(AssistantMarkdown)]
        assert outer.state == inner.state == "success"
        assert outer_panel.result == "outer summary"
        # the top level only holds the top-level answer
        top = [m for m in app.transcript.children if isinstance(m, AssistantMarkdown)]
        assert [m.source for m in top] == ["All done."]


async def test_permission_modal_allow_always_deny_by_key() -> None:
    writer = MockWrite()
    app = make_app(
        [
            reply(tool_call("MockWrite", {"path": "a"}, id="w1")),
            reply(tool_call("MockWrite", {"path": "b"}, id="w2")),
            reply(tool_call("MockWrite", {"path": "c"}, id="w3")),
            reply("done"),
            reply(tool_call("MockExec", {"path": "x"}, id="e1")),
            reply("denied, ok"),
        ],
        tools=[writer, MockExec()],
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "write")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        assert panel(app, "w1").status == "pending"
        assert "waiting for approval" in panel(app, "w1").title
        await pilot.press("y")  # allow once
        await until(lambda: isinstance(app.screen, PermissionScreen) and app.screen.tool_input == {"path": "b"}, pilot)
        assert writer.calls == ["a"]
        await pilot.press("s")  # this session: w3 is not asked
        await run_done(pilot)
        assert writer.calls == ["a", "b", "c"]
        assert ("MockWrite",) in app.broker.session_allowed
        await send(pilot, "exec")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        app.screen.query_one("#deny-reason").value = "not now"  # type: ignore[attr-defined]
        app.screen.query_one("#allow").focus()
        await pilot.press("n")
        await run_done(pilot, runs=2)
        assert panel(app, "e1").status == "error"
        sent = app.test_provider.requests[-1].messages[-1]  # type: ignore[attr-defined]
        result = next(b for b in sent.content if isinstance(b, ToolResultBlock))
        assert "not now" in str(result.content)


async def test_panels_keep_the_model_call_order_when_a_later_call_needs_approval() -> None:
    app = make_app(
        [
            reply(tool_call("MockRead", {"path": "r"}, id="r1"), tool_call("MockExec", {"path": "x"}, id="x1")),
            reply("ok"),
        ],
        tools=[MockRead(), MockExec()],
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        assert panel(app, "r1").status in ("queued", "running", "ok")
        assert panel(app, "x1").status == "pending"
        await pilot.press("y")
        await run_done(pilot)
        order = [p.tool_use_id for p in app.query(ToolPanel)]
        assert order == ["r1", "x1"]


async def test_several_asks_in_one_batch_are_answered_in_turn() -> None:
    app = make_app(
        [
            reply(tool_call("MockExec", {"path": "1"}, id="e1"), tool_call("MockExec", {"path": "2"}, id="e2")),
            reply("ok"),
        ],
        tools=[MockExec()],
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "two")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        assert app.screen.position == "1 of 2"  # type: ignore[attr-defined]
        assert {panel(app, "e1").status, panel(app, "e2").status} == {"pending"}
        await pilot.press("n")
        await until(lambda: isinstance(app.screen, PermissionScreen) and app.screen.position == "2 of 2", pilot)  # type: ignore[attr-defined]
        await pilot.press("y")
        await run_done(pilot)
        assert panel(app, "e1").status == "error" and panel(app, "e2").status == "ok"


async def test_abort_closes_the_open_modal() -> None:
    app = make_app([reply(tool_call("MockExec", {"path": "1"}, id="e1"))], tools=[MockExec()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "x")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        await pilot.press("escape")  # Esc in the modal: deny and interrupt
        await run_done(pilot)
        assert not isinstance(app.screen, PermissionScreen)
        assert footers(app)[-1].strip().startswith("interrupted")

    app = make_app([reply(tool_call("MockExec", {"path": "1"}, id="e1"))], tools=[MockExec()])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "x")
        await until(lambda: isinstance(app.screen, PermissionScreen), pilot)
        assert app.session is not None
        app.session.abort()
        await run_done(pilot)
        assert not isinstance(app.screen, PermissionScreen)
        assert footers(app)[-1].strip().startswith("aborted")


async def test_ctrl_s_finishes_the_step_and_one_escape_aborts() -> None:
    exec_tool = MockExec()
    exec_tool.gate = asyncio.Event()
    app = make_app(
        [reply(tool_call("MockExec", {"path": "p"}, id="e1")), reply("never")], tools=[exec_tool], mode="yolo"
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "run")
        await until(lambda: exec_tool.started.is_set(), pilot)
        await pilot.press("ctrl+s")
        assert "finishing this step" in app.status.info.state
        exec_tool.gate.set()
        await run_done(pilot)
        assert footers(app)[-1].strip().startswith("interrupted")
        assert app.test_provider.remaining == 1  # type: ignore[attr-defined]

    hold = asyncio.Event()
    turn = reply(text("streaming forever " * 5, chunk=5))
    turn.hold, turn.hold_at = hold, 6
    app = make_app([turn])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "talk")
        await until(lambda: bool(app.query(AssistantMarkdown)), pilot)
        await pilot.press("escape")
        await run_done(pilot)
        assert footers(app)[-1].strip().startswith("aborted")
        assert not hold.is_set()


async def test_steer_typed_mid_run() -> None:
    exec_tool = MockExec()
    exec_tool.gate = asyncio.Event()
    app = make_app(
        [reply(tool_call("MockExec", {"path": "p"}, id="e1")), reply("steered answer")], tools=[exec_tool], mode="yolo"
    )
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "start")
        await until(lambda: exec_tool.started.is_set(), pilot)
        await send(pilot, "also check the tests")
        assert any("queued: also check the tests" in str(n.render()) for n in app.query(NoteLine))
        exec_tool.gate.set()
        await run_done(pilot)
        steers = [u for u in app.query(UserMessage) if u.has_class("-steer")]
        assert [u.text for u in steers] == ["also check the tests"]
        assert not any("queued:" in str(n.render()) for n in app.query(NoteLine))
        last_request = app.test_provider.requests[-1].messages  # type: ignore[attr-defined]
        assert "also check the tests" in last_request[-1].text()
        assert app.runs_completed == 1


def stored_history() -> list[Message]:
    return [
        Message(
            role="user",
            content=[TextBlock(text="<env>\nToday's date: 2026-01-01\n</env>"), TextBlock(text="fix the bug")],
        ),
        Message(
            role="assistant",
            content=[
                TextBlock(text="Let me look."),
                ToolUseBlock(id="h1", name="Read", input={"file_path": "app.py"}),
            ],
        ),
        Message(role="user", content=[ToolResultBlock(tool_use_id="h1", content="1\tprint('x')")]),
        Message(role="assistant", content=[TextBlock(text="Fixed **it**.")]),
    ]


async def test_resume_restores_session_and_continues() -> None:
    store = InMemorySessionStore()
    await store.create(id="old-session")
    await store.append_messages("old-session", stored_history())
    app = make_app([reply("continuing")], store=store, resume_id="old-session")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert [u.text for u in app.query(UserMessage)] == ["fix the bug"]
        assert panel(app, "h1").result == "1\tprint('x')" and panel(app, "h1").status == "ok"
        assert [m.source for m in app.query(AssistantMarkdown)] == ["Let me look.", "Fixed **it**."]
        await send(pilot, "and now?")
        await run_done(pilot)
        sent = app.test_provider.requests[0].messages  # type: ignore[attr-defined]
        assert len(sent) == 5 and sent[0].text().endswith("fix the bug")


async def test_slash_resume_picker_restores_a_session() -> None:
    store = InMemorySessionStore()
    await store.create(id="old-session")
    await store.append_messages("old-session", stored_history())
    app = make_app([], store=store, resume_id="fresh")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert not app.query(UserMessage)
        await send(pilot, "/resume")
        from skawld_tui.app.screens.session_picker import SessionPicker

        await until(lambda: isinstance(app.screen, SessionPicker), pilot)
        await pilot.press("enter")
        await until(
            lambda: app.session is not None and app.session.id == "old-session" and app.session_ready.is_set(), pilot
        )
        await pilot.pause()
        assert [u.text for u in app.query(UserMessage)] == ["fix the bug"]
        assert app.status.info.session_id == "old-session"


async def test_slash_completion_and_commands() -> None:
    app = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("/", "m")
        assert app.completions.display
        assert [o.id for o in app.completions._options] == ["/model", "/mode", "/mcp", "/memory"][
            :0
        ] or app.completions.option_count == 4
        await pilot.press("down", "tab")
        assert app.prompt.text == "/mode "
        await pilot.press(*"yolo", "enter")
        await until(lambda: isinstance(app.screen, ConfirmScreen), pilot)  # yolo asks first
        await pilot.press("y")
        await until(lambda: app.agent is not None and app.agent.permission_mode == "yolo", pilot)
        await pilot.press("shift+tab")
        assert app.agent.permission_mode == "default" and app.status.info.mode == "default"
        await send(pilot, "/help")
        await pilot.pause()
        assert any("/resume" in m.source for m in app.query("CommandOutput"))  # type: ignore[attr-defined]
        await send(pilot, "/nonsense")
        await pilot.pause()
        assert any("unknown command" in str(n.render()) for n in app.query(NoteLine))


async def test_at_path_completion(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("x")
    (tmp_path / "setup.cfg").write_text("x")
    app = make_app([], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(*"look at @sr")
        assert app.completions.display and app.completions.value == "@src/"
        await pilot.press("tab")
        assert app.prompt.text == "look at @src/"
        assert app.completions.value == "@src/main.py"
        await pilot.press("tab")
        assert app.prompt.text == "look at @src/main.py "
        assert not app.completions.display


async def test_a_burst_of_keys_is_sent_whole() -> None:
    """Keys that arrive faster than the prompt handles them (a paste, typing during
    start-up) are submitted in order: Enter never jumps ahead of queued characters."""
    from textual import events

    app = make_app([reply("ok")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for ch in "what does app.py print?":
            app.post_message(events.Key(ch, ch))
        app.post_message(events.Key("enter", "\r"))
        await run_done(pilot)
        prompt = app.test_provider.requests[0].messages[0]  # type: ignore[attr-defined]
        assert any(isinstance(b, TextBlock) and b.text == "what does app.py print?" for b in prompt.content)
        assert app.prompt.text == ""


async def test_prompt_history_and_newline() -> None:
    app = make_app([reply("one"), reply("two")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await run_done(pilot)
        await pilot.press("a", "ctrl+j", "b")
        assert app.prompt.text == "a\nb"
        app.prompt.clear()
        await pilot.press("up")
        assert app.prompt.text == "first"
        await pilot.press("down")
        assert app.prompt.text == ""


async def test_worker_error_is_shown_and_app_survives() -> None:
    app = make_app([reply("after the failure")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert app.session is not None
        real_run = app.session.run

        def broken(prompt: str, **kw: Any) -> Any:
            app.session.run = real_run  # type: ignore[method-assign, union-attr]
            raise RuntimeError("engine exploded")

        app.session.run = broken  # type: ignore[method-assign]
        await send(pilot, "boom")
        await until(lambda: bool(app.query(ErrorBlock)), pilot)
        assert "engine exploded" in str(app.query_one(ErrorBlock).render())
        assert app.is_running and not app.running
        await send(pilot, "again")
        await run_done(pilot, runs=2)
        assert [m.source for m in app.query(AssistantMarkdown)] == ["after the failure"]


async def test_provider_error_renders_error_block() -> None:
    from skawld_core.errors import AuthError

    provider = ScriptedProvider()
    provider.fail(AuthError("invalid x-api-key"))
    app = make_app(provider=provider, max_retries=0)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await run_done(pilot)
        block = app.query_one(ErrorBlock)
        assert "invalid x-api-key" in str(block.render())
        assert footers(app)[-1].strip().startswith("error")


async def test_ctrl_c_twice_quits() -> None:
    app = make_app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press(*"draft")
        await pilot.press("ctrl+c")
        assert app.prompt.text == "" and app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


async def test_long_session_prunes_old_turns_and_keeps_history_reachable() -> None:
    turns = [reply(f"answer {i}") for i in range(40)]
    app = make_app(turns)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for i in range(40):
            await send(pilot, f"question {i}")
            await run_done(pilot, runs=i + 1)
        await app.transcript.prune()
        mounted = [u.text for u in app.query(UserMessage)]
        assert len(mounted) <= app.transcript.MAX_TURNS
        assert mounted[-1] == "question 39"
        marker = app.transcript.marker
        assert marker.display and marker.hidden_messages > 0
        await pilot.press("ctrl+up")
        await pilot.pause()
        more = [u.text for u in app.query(UserMessage)]
        assert len(more) > len(mounted) and more[-1] == "question 39"
        assert more == [f"question {i}" for i in range(40 - len(more), 40)]


async def test_pruned_turns_release_their_rendered_lines() -> None:
    turns = [reply(f"answer {i}") for i in range(30)]
    app = make_app(turns)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "question 0")
        await run_done(pilot, runs=1)
        await pilot.pause()
        first_cache = weakref.ref(app.query(UserMessage).first()._styles_cache)
        for i in range(1, 30):
            await send(pilot, f"question {i}")
            await run_done(pilot, runs=i + 1)
        await app.transcript.prune()
        assert "question 0" not in [u.text for u in app.query(UserMessage)]
        gc.unfreeze()
        gc.collect()
        assert first_cache() is None  # not pinned by Textual's styles lru_cache


async def test_ask_user_modal_answers_by_number_key() -> None:
    question = {
        "questions": [
            {"question": "Which database?", "header": "DB", "options": [{"label": "Postgres"}, {"label": "SQLite"}]}
        ]
    }
    app = make_app([reply(tool_call("AskUser", question, id="q1")), reply("SQLite it is")])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "set up storage")
        from skawld_tui.app.screens.ask_user import AskUserScreen

        await until(lambda: isinstance(app.screen, AskUserScreen), pilot)
        await pilot.press("2")
        await run_done(pilot)
        assert "→ SQLite" in (panel(app, "q1").result or "")


async def test_every_slash_command_runs(tmp_path: Path) -> None:
    app = make_app([reply("hi")], cwd=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await run_done(pilot)
        for command in ["/usage", "/skills", "/agents", "/mcp", "/tasks", "/model other-model", "/compact"]:
            await send(pilot, command)
            await pilot.pause()
        assert not app.query(ErrorBlock)
        assert app.agent is not None and app.agent.model == "other-model"
        assert app.status.info.model == "other-model"
        await send(pilot, "/export out.md")
        await pilot.pause()
        exported = (tmp_path / "out.md").read_text()
        assert "## User\n\nhello" in exported and "## Assistant\n\nhi" in exported
        await send(pilot, "/new")
        await until(lambda: app.session is not None and app.session.id != "test-session", pilot)
        await pilot.pause()
        assert not app.query(UserMessage)
        await send(pilot, "/exit")
        await pilot.pause()
    assert app.return_code == 0


async def test_agent_is_closed_however_the_app_ends(tmp_path: Path) -> None:
    from skawld_core.sessions import SqliteSessionStore

    store = SqliteSessionStore(tmp_path / "s.db")
    app = make_app([reply("hi")], store=store)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await run_done(pilot)
    assert app.agent is not None and app.agent._closed
    await store.close()  # the agent does not own a store it was given; closing twice is fine


async def test_resumed_long_session_shows_a_tail_and_loads_earlier() -> None:
    store = InMemorySessionStore()
    await store.create(id="long")
    history: list[Message] = []
    for i in range(60):
        history += [
            Message(role="user", content=[TextBlock(text=f"question {i}")]),
            Message(role="assistant", content=[TextBlock(text=f"answer {i}")]),
        ]
    await store.append_messages("long", history)
    app = make_app([], store=store, resume_id="long")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        transcript = app.transcript
        # A short tail, then earlier chunks until the view is full: no more than that.
        await until(lambda: transcript.max_scroll_y > 0 and not transcript.loading_earlier, pilot)
        shown = [u.text for u in app.query(UserMessage)]
        assert shown == [f"question {i}" for i in range(60 - len(shown), 60)]
        assert len(shown) < 60 and transcript.marker.hidden_messages == 2 * (60 - len(shown))
        await pilot.press("ctrl+up")
        await pilot.pause()
        await until(lambda: not transcript.loading_earlier, pilot)
        more = [u.text for u in app.query(UserMessage)]
        assert more == [f"question {i}" for i in range(60 - len(shown) - 20, 60)]  # 40 messages more
        assert transcript.marker.hidden_messages == 2 * (60 - len(more))


async def test_scrolling_up_mounts_earlier_turns_down_to_the_first() -> None:
    store = InMemorySessionStore()
    await store.create(id="long")
    history: list[Message] = []
    for i in range(300):
        history += [
            Message(role="user", content=[TextBlock(text=f"question {i}")]),
            Message(role="assistant", content=[TextBlock(text=f"answer {i}")]),
        ]
    await store.append_messages("long", history)
    app = make_app([], store=store, resume_id="long")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        transcript = app.transcript
        await until(lambda: transcript.max_scroll_y > 0 and not transcript.loading_earlier, pilot)
        hidden_at_start = transcript.marker.hidden_messages
        assert hidden_at_start > 500  # only a tail is mounted
        loads = 0
        for _ in range(200):  # page up until the first turn is on screen (bounded)
            first = app.query(UserMessage).first()
            if first.text == "question 0" and first.region.y >= transcript.region.y:
                break
            hidden = transcript.marker.hidden_messages
            await pilot.press("pageup")
            await pilot.pause()
            await until(lambda: not transcript.loading_earlier, pilot)
            if transcript.marker.hidden_messages < hidden:  # this page reached the top: a load
                loads += 1
                # what was on top stays on screen: the view did not jump to the new chunk's top
                assert transcript.region.overlaps(first.region), first.text
        first = app.query(UserMessage).first()
        assert first.text == "question 0"
        assert transcript.region.contains(first.region.x, first.region.y)  # visible, not just mounted
        assert transcript.marker.hidden_messages == 0
        shown = [u.text for u in app.query(UserMessage)]
        assert shown == [f"question {i}" for i in range(300)]  # every turn between, in order
        assert loads == -(-hidden_at_start // 40)  # one chunk of 40 messages per visit to the top


async def test_a_long_resumed_history_gets_its_context_share_after_it_is_shown() -> None:
    from skawld_tui.app import skawld_app

    store = InMemorySessionStore()
    await store.create(id="long")
    turns = skawld_app.MEASURE_INLINE // 2 + 10
    history: list[Message] = []
    for i in range(turns):
        history += [
            Message(role="user", content=[TextBlock(text=f"question {i} " + "x" * 200)]),
            Message(role="assistant", content=[TextBlock(text=f"answer {i}")]),
        ]
    await store.append_messages("long", history)
    app = make_app([], store=store, resume_id="long")
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await until(lambda: app.status.info.context_pct > 0, pilot, timeout=30)
        assert app.session is not None
        assert app.status.info.context_pct == app._estimated_context(app.session)[0]  # the same estimate
