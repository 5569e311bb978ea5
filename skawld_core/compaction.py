"""Compaction: the 80% trigger and the default keep-recent-10 strategy (§2.11).

Compaction only rewrites the session's provider view; the full history and the
store are never touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .assembly import well_formed
from .messages import Message, TextBlock, Usage, add_usage
from .providers.base import BaseProvider, MessageEnd, ProviderRequest, SystemBlock, TextDelta

THRESHOLD = 0.8
DEFAULT_OUTPUT_RESERVE = 32768
SUMMARY_PREFIX = "<summary of earlier conversation>"
SUMMARY_INSTRUCTIONS = (
    "You are summarizing the earlier part of a coding session so that the work can continue "
    "without it. Capture: the decisions made and why; every file that was read, written or "
    "edited, with its path; the tool calls that mattered and their outcomes; open questions; "
    "the state of any tasks. Be dense and factual. No greetings, no preamble."
)


@dataclass
class UsageReport:
    """Filled in by a strategy with the usage of its summary call."""

    usage: Usage | None = None


@runtime_checkable
class CompactionStrategy(Protocol):
    """Turns a copy of the provider view into a shorter one.

    A strategy whose `compact` also takes a `focus` keyword gets the text of a
    manual `/compact <focus>`; one that takes `keep_turns` is told, on a manual
    compaction, to keep only that many recent turns (the user asked for it, so
    it compacts even a short conversation). One without them is called as before.
    """

    id: str

    async def compact(
        self, messages: list[Message], *, provider: BaseProvider, model: str, usage_report: UsageReport
    ) -> list[Message]: ...


def should_compact(last_usage: Usage | None, max_output_tokens: int | None, context_window: int) -> bool:
    """True when the last prompt plus the output reserve reaches 80% of the window."""
    if last_usage is None:
        return False
    projected = last_usage.input_tokens + (max_output_tokens or DEFAULT_OUTPUT_RESERVE)
    return projected >= THRESHOLD * context_window


def last_n_turn_boundaries(messages: list[Message], n: int = 10) -> list[Message]:
    """The slice starting at the n-th-from-last assistant message; the same list
    when there are fewer than n assistant messages."""
    seen = 0
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "assistant":
            seen += 1
            if seen == n:
                return messages[i:]
    return messages


def strip_response_chaining(messages: Sequence[Message]) -> list[Message]:
    """Copies without the Responses `response_id` (other metadata kept, empty
    metadata dropped). The inputs are never mutated."""
    out: list[Message] = []
    for m in messages:
        meta = m.provider_metadata
        if not meta or "openai_responses" not in meta:
            out.append(m)
            continue
        new_meta = dict(meta)
        responses = {k: v for k, v in dict(meta["openai_responses"]).items() if k != "response_id"}
        if responses:
            new_meta["openai_responses"] = responses
        else:
            del new_meta["openai_responses"]
        out.append(m.model_copy(update={"provider_metadata": new_meta or None}))
    return out


def summary_instructions(focus: str | None = None) -> str:
    """The summariser's system prompt; a `focus` (`/compact <focus>`) says what to keep above all."""
    if not focus or not focus.strip():
        return SUMMARY_INSTRUCTIONS
    return f"{SUMMARY_INSTRUCTIONS}\n\nThe user asked the summary to focus on: {focus.strip()}"


async def summarize(
    provider: BaseProvider, model: str, messages: list[Message], report: UsageReport, *, focus: str | None = None
) -> str:
    """One provider call that summarizes `messages` (`focus`: what the user wants kept)."""
    request = ProviderRequest(
        model=model,
        system=[SystemBlock(text=summary_instructions(focus), cacheable=False)],
        tools=[],
        messages=[*messages, Message(role="user", content=[TextBlock(text="Summarize the conversation so far.")])]
        if messages and messages[-1].role == "assistant"
        else messages,
        max_output_tokens=4096,
        cache_prompt=False,
    )
    parts: list[str] = []
    usage = Usage()
    gen = provider.stream(request)
    try:
        async for event in gen:
            if isinstance(event, TextDelta):
                parts.append(event.text)
            elif isinstance(event, MessageEnd):
                usage = add_usage(usage, event.usage)
    finally:
        await gen.aclose()
    report.usage = usage
    return well_formed("".join(parts)).strip()


MANUAL_KEEP_TURNS = 1
"""Turns a manual `/compact` keeps verbatim (the rest is summarized)."""


class KeepRecentTurns:
    """Keep the last `turns` assistant turns; summarize everything older."""

    def __init__(self, turns: int = 10) -> None:
        self.turns = turns
        self.id = "default-keep-recent-10" if turns == 10 else f"keep-recent-{turns}"

    async def compact(
        self,
        messages: list[Message],
        *,
        provider: BaseProvider,
        model: str,
        usage_report: UsageReport,
        focus: str | None = None,
        keep_turns: int | None = None,
    ) -> list[Message]:
        """Summarize all but the last `keep_turns` turns (default: the strategy's)."""
        recent = last_n_turn_boundaries(messages, self.turns if keep_turns is None else keep_turns)
        older = messages[: len(messages) - len(recent)]
        if recent is messages or not older:
            return messages
        if keep_turns is not None and not any(m.role == "assistant" for m in older):
            return messages  # asked before a second answer: only a prompt to summarize
        summary = await summarize(provider, model, older, usage_report, focus=focus)
        head = Message(role="user", content=[TextBlock(text=f"{SUMMARY_PREFIX}\n\n{summary}")])
        return strip_response_chaining([head, *recent])


def default_compaction() -> CompactionStrategy:
    return KeepRecentTurns(10)


def takes_focus(strategy: CompactionStrategy) -> bool:
    """True when `strategy.compact` accepts a `focus` keyword."""
    return takes_keyword(strategy, "focus")


def takes_keyword(strategy: CompactionStrategy, name: str) -> bool:
    """True when `strategy.compact` accepts the keyword `name`."""
    import inspect

    try:
        params = inspect.signature(strategy.compact).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
