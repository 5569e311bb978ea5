"""Keeping the transcript valid: every `tool_use` gets a `tool_result` (DESIGN decision 1)."""

from __future__ import annotations

from collections.abc import Sequence

from .messages import Message, ToolResultBlock

INTERRUPTED = "Tool call interrupted; side effects unknown."
NOT_RUN_MAX_TOKENS = "Tool call not executed: the response was cut off (max_tokens) before the call completed."


def dangling_tool_uses(messages: Sequence[Message]) -> list[str]:
    """Ids of `tool_use` blocks in the last assistant message that no later
    user message answers. Only the last assistant message can dangle, because
    the loop answers each turn before the next request."""
    for i in range(len(messages) - 1, -1, -1):
        msg = messages[i]
        if msg.role != "assistant":
            continue
        ids = [b.id for b in msg.tool_uses()]
        if not ids:
            return []
        answered = {
            b.tool_use_id for later in messages[i + 1 :] for b in later.content if isinstance(b, ToolResultBlock)
        }
        return [tid for tid in ids if tid not in answered]
    return []


def synthetic_results(ids: Sequence[str], text: str = INTERRUPTED) -> Message:
    """One user message answering `ids` with an error result."""
    return Message(
        role="user",
        content=[ToolResultBlock(tool_use_id=tid, content=text, is_error=True) for tid in ids],
    )
