"""AskUser: validation, summary, answers, declines, invalid responses, cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from skawld_core.errors import ConfigError, ToolInputError
from skawld_core.tools import (
    AskUserAnswer,
    AskUserAnswers,
    AskUserDeclined,
    AskUserRequest,
    AskUserResponse,
    AskUserTool,
    ToolContext,
    ToolRegistry,
    default_tools,
)

from .conftest import text_of


def q(
    question: str = "Which backend should we use?", header: str = "Backend", multi: bool = False, n: int = 2
) -> dict[str, Any]:
    labels = ["SQLite", "Postgres", "MySQL", "Files"][:n]
    return {
        "question": question,
        "header": header,
        "options": [{"label": label} for label in labels],
        "multi_select": multi,
    }


def answering(response: AskUserResponse | Mapping[str, Any] | Any) -> tuple[AskUserTool, list[AskUserRequest]]:
    seen: list[AskUserRequest] = []

    async def handler(request: AskUserRequest) -> Any:
        seen.append(request)
        return response

    return AskUserTool(handler), seen


async def run(tool: AskUserTool, ctx: ToolContext, questions: list[dict[str, Any]]) -> Any:
    return await tool.execute(tool.validate({"questions": questions}), ctx)


@pytest.mark.parametrize(
    "questions",
    [
        [],
        [q()] * 5,
        [q(question="")],
        [q(header="")],
        [q(header="x" * 13)],
        [q(n=1)],
        [{**q(), "options": [{"label": str(i)} for i in range(5)]}],
        [{**q(), "options": [{"label": "A"}, {"label": "A"}]}],
        [{**q(), "options": [{"label": ""}, {"label": "B"}]}],
    ],
)
def test_validation_rejects(questions: list[dict[str, Any]]) -> None:
    tool, _ = answering({})
    with pytest.raises(ToolInputError):
        tool.validate({"questions": questions})


def test_validation_accepts() -> None:
    tool, _ = answering({})
    v = tool.validate({"questions": [q(header="x" * 12)] * 4})
    assert len(v.questions) == 4 and v.questions[0].multi_select is False
    assert tool.scope == "read" and not tool.parallel_safe


def test_summary() -> None:
    tool, _ = answering({})
    assert tool.summarize(tool.validate({"questions": [q("Which backend?")]})) == 'Ask user: "Which backend?"'
    assert tool.summarize(tool.validate({"questions": [q("A?"), q("B?"), q("C?")]})) == 'Ask user: "A?" (+2 more)'
    long = "L" * 70
    assert tool.summarize(tool.validate({"questions": [q(long)]})) == f'Ask user: "{"L" * 60}…"'


async def test_answers(ctx: ToolContext) -> None:
    tool, seen = answering(AskUserAnswers(answers=[AskUserAnswer(selected=["SQLite"])]))
    r = await run(tool, ctx, [q()])
    assert not r.is_error
    assert text_of(r) == "User answered:\n\n[Backend] Which backend should we use?\n→ SQLite"
    assert r.summary == "User answered 1 question"
    assert seen[0].tool_use_id == "toolu-1" and seen[0].questions[0].header == "Backend"


async def test_multi_select_free_text_and_plural(ctx: ToolContext) -> None:
    tool, _ = answering({"answers": [{"selected": ["macOS", "Linux"]}, {"selected": ["something else entirely"]}]})
    r = await run(tool, ctx, [q("Platforms?", "OS", multi=True), q("Backend?")])
    assert "→ macOS, Linux" in text_of(r)
    assert "[Backend] Backend?\n→ something else entirely" in text_of(r)
    assert "\n\n[Backend]" in text_of(r)
    assert r.summary == "User answered 2 questions"


async def test_decline(ctx: ToolContext) -> None:
    tool, _ = answering(AskUserDeclined())
    r = await run(tool, ctx, [q()])
    assert not r.is_error and "declined" in text_of(r) and "(reason:" not in text_of(r)
    tool, _ = answering({"declined": True, "reason": "in a meeting"})
    r = await run(tool, ctx, [q()])
    assert not r.is_error and "(reason: in a meeting)" in text_of(r)


@pytest.mark.parametrize(
    ("response", "message"),
    [
        ({"answers": []}, "expected 1 answer"),
        ({"answers": [{"selected": "SQLite"}]}, "selected must be an array"),
        ({"answers": [{"selected": []}]}, "non-empty"),
        ({"answers": [{"selected": [""]}]}, "non-empty"),
        (None, "expected an object"),
        ({"declined": False}, "declined must be true"),
        ({"answers": [{"selected": ["SQLite", "Postgres"]}]}, "exactly one entry"),
    ],
)
async def test_invalid_responses(ctx: ToolContext, response: Any, message: str) -> None:
    tool, _ = answering(response)
    r = await run(tool, ctx, [q()])
    assert r.is_error and message in text_of(r)


async def test_handler_raises(ctx: ToolContext) -> None:
    async def broken(request: AskUserRequest) -> AskUserResponse:
        raise RuntimeError("something broke")

    r = await run(AskUserTool(broken), ctx, [q()])
    assert r.is_error and text_of(r) == "AskUser failed: something broke"


async def test_cancel_mid_wait_ignores_late_answer(ctx: ToolContext) -> None:
    started, release = asyncio.Event(), asyncio.Event()
    finished: list[bool] = []

    async def slow(request: AskUserRequest) -> AskUserResponse:
        started.set()
        await release.wait()
        finished.append(True)
        return AskUserAnswers(answers=[AskUserAnswer(selected=["SQLite"])])

    task = asyncio.create_task(run(AskUserTool(slow), ctx, [q()]))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    release.set()
    assert finished == []


def test_default_tools_registers_ask_user_only_with_handler() -> None:
    async def handler(request: AskUserRequest) -> AskUserResponse:
        return AskUserDeclined()

    assert "AskUser" not in [t.name for t in default_tools()]
    tools = default_tools(ask_user=handler)
    assert [t.name for t in tools][-1] == "AskUser"
    registry = ToolRegistry(tools)
    with pytest.raises(ConfigError, match="AskUser"):
        registry.register(AskUserTool(handler))
