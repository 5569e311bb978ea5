"""The AskUser tool: structured clarifying questions answered through an app handler.

The application supplies an `AskUserHandler`: an async callable that receives an
`AskUserRequest` and returns `AskUserAnswers` or `AskUserDeclined` (or the
equivalent dict). Cancellation (abort) propagates out of the handler's await, so a
late answer is ignored.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..model_base import SkawldModel
from .base import Tool, ToolContext, ToolResult, error_result

MAX_HEADER = 12


class AskUserOption(SkawldModel):
    """One choice offered to the user."""

    model_config = ConfigDict(extra="forbid")

    label: str = Field(min_length=1, description="Short option text (unique within the question).")
    description: str | None = Field(default=None, description="What choosing this option means.")

    @field_validator("label")
    @classmethod
    def _label(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("label must not be empty")
        return value


class AskUserQuestion(SkawldModel):
    """One question with 2–4 options."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, description="The full question.")
    header: str = Field(min_length=1, max_length=MAX_HEADER, description="A very short label (max 12 chars).")
    options: list[AskUserOption] = Field(min_length=2, max_length=4, description="2–4 options.")
    multi_select: bool = Field(default=False, description="Allow several options to be selected.")

    @field_validator("question", "header")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("options")
    @classmethod
    def _unique(cls, value: list[AskUserOption]) -> list[AskUserOption]:
        labels = [o.label for o in value]
        if len(set(labels)) != len(labels):
            raise ValueError("option labels must be unique")
        return value


class AskUserInput(SkawldModel):
    """Input of AskUser: 1–4 questions."""

    model_config = ConfigDict(extra="forbid")

    questions: list[AskUserQuestion] = Field(min_length=1, max_length=4)


@dataclass(frozen=True, kw_only=True)
class AskUserRequest:
    """What the handler receives."""

    tool_use_id: str
    questions: list[AskUserQuestion]


class AskUserAnswer(SkawldModel):
    """The selection for one question (option labels or free text)."""

    selected: list[str]


class AskUserAnswers(SkawldModel):
    """One answer per question, in order."""

    answers: list[AskUserAnswer]


class AskUserDeclined(SkawldModel):
    """The user chose not to answer."""

    declined: Literal[True] = True
    reason: str | None = None


AskUserResponse = AskUserAnswers | AskUserDeclined
AskUserHandler = Callable[[AskUserRequest], Awaitable[AskUserResponse | Mapping[str, Any]]]


class InvalidResponse(Exception):
    """The handler's response does not have the required shape."""


def _plural(n: int) -> str:
    return f"{n} question" if n == 1 else f"{n} questions"


def parse_response(raw: object, questions: list[AskUserQuestion]) -> AskUserResponse:
    """Check a handler response against the questions; raises `InvalidResponse`."""
    if isinstance(raw, BaseModel):
        raw = raw.model_dump()
    if not isinstance(raw, Mapping):
        raise InvalidResponse("expected an object")
    if "declined" in raw:
        if raw["declined"] is not True:
            raise InvalidResponse("declined must be true")
        reason = raw.get("reason")
        return AskUserDeclined(reason=str(reason) if reason else None)
    answers = raw.get("answers")
    if not isinstance(answers, list):
        raise InvalidResponse("answers must be an array")
    if len(answers) != len(questions):
        raise InvalidResponse(
            f"expected {len(questions)} answer{'s' if len(questions) != 1 else ''}, got {len(answers)}"
        )
    parsed = []
    for n, (answer, question) in enumerate(zip(answers, questions, strict=True), start=1):
        selected = answer.get("selected") if isinstance(answer, Mapping) else None
        if not isinstance(selected, list):
            raise InvalidResponse(f"answer {n}: selected must be an array")
        if not selected or not all(isinstance(s, str) and s.strip() for s in selected):
            raise InvalidResponse(f"answer {n}: selected must be a non-empty array of non-empty strings")
        if not question.multi_select and len(selected) != 1:
            raise InvalidResponse(f"answer {n}: selected must have exactly one entry (multi_select is false)")
        parsed.append(AskUserAnswer(selected=list(selected)))
    return AskUserAnswers(answers=parsed)


def render_answers(answers: AskUserAnswers, questions: list[AskUserQuestion]) -> str:
    """`User answered:`, a blank line, then `[Header] question` / `→ a, b` per question."""
    blocks = [
        f"[{q.header}] {q.question}\n→ {', '.join(a.selected)}" for q, a in zip(questions, answers.answers, strict=True)
    ]
    return "User answered:\n\n" + "\n\n".join(blocks)


class AskUserTool(Tool[AskUserInput]):
    """Ask the user 1–4 multiple-choice questions and wait for the answers."""

    name = "AskUser"
    description = (
        "Ask the user 1–4 clarifying questions, each with a short header (max 12 chars) and 2–4 options "
        "(set multi_select to allow several). The user may also answer in free text or decline. Use it only "
        "when a decision genuinely needs the user."
    )
    scope = "read"
    parallel_safe = False
    input_model = AskUserInput

    def __init__(self, handler: AskUserHandler) -> None:
        """`handler` shows the questions (TUI, headless protocol...) and returns the answers."""
        self.handler = handler

    def summarize(self, value: AskUserInput) -> str:
        """`Ask user: "<first question>"` (cut at 60 chars) and `(+N more)`."""
        first = value.questions[0].question
        if len(first) > 60:
            first = first[:60] + "…"
        more = len(value.questions) - 1
        return f'Ask user: "{first}"' + (f" (+{more} more)" if more else "")

    async def execute(self, value: AskUserInput, ctx: ToolContext) -> ToolResult:
        """Call the handler; cancellation propagates (the batch aborts)."""
        request = AskUserRequest(tool_use_id=ctx.tool_use_id, questions=value.questions)
        try:
            raw = await self.handler(request)
        except Exception as exc:
            return error_result(f"AskUser failed: {exc}", prefix="")
        try:
            response = parse_response(raw, value.questions)
        except InvalidResponse as exc:
            return error_result(f"AskUser handler returned an invalid response: {exc}")
        if isinstance(response, AskUserDeclined):
            reason = f" (reason: {response.reason})" if response.reason else ""
            text = (
                f"The user declined to answer{reason}. Do not ask again; proceed with your best judgement "
                "and state the assumptions you make."
            )
            return ToolResult(content=text, summary="User declined")
        n = len(value.questions)
        return ToolResult(content=render_answers(response, value.questions), summary=f"User answered {_plural(n)}")
