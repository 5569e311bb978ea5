"""Assembling one provider stream into an assistant `Message` (spec §2.6).

Everything a model sends is made well-formed here, for every provider: a lone UTF-16
surrogate (`"\\udcff"` in the wire JSON of a text delta or a tool input) becomes U+FFFD,
so the message can always be stored, sent back and printed; `well_formed_result` does the
same for a tool's result (the scheduler applies it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .events import PartialAssistantEvent, PartialDelta, PartialText, PartialThinking, PartialToolInput
from .messages import (
    ContentBlock,
    Message,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultContent,
    ToolResultPart,
    ToolUseBlock,
    Usage,
)
from .providers.base import (
    MessageEnd,
    ProviderStreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolUseEnd,
    ToolUseInputDelta,
    ToolUseStart,
)

INVALID_JSON_KEY = "__invalidJson"
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def well_formed(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD (a split pair is joined back)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def well_formed_result(content: str | Sequence[ToolResultPart]) -> ToolResultContent:
    """A tool result's content with lone surrogates in its text replaced (a tool that decoded
    bytes with ``surrogateescape``, an MCP server's JSON)."""
    if isinstance(content, str):
        return well_formed(content)
    return [
        part.model_copy(update={"text": well_formed(part.text)}) if isinstance(part, TextBlock) else part
        for part in content
    ]


def _well_formed_value(value: Any) -> Any:
    if isinstance(value, str):
        return well_formed(value)
    if isinstance(value, list):
        return [_well_formed_value(v) for v in value]
    if isinstance(value, dict):
        return {well_formed(k): _well_formed_value(v) for k, v in value.items()}
    return value


def parse_tool_input(raw: str) -> dict[str, Any]:
    """Empty or blank → `{}`; unparseable or non-object → the invalid-JSON marker.
    Lone surrogates in the strings become U+FFFD."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {INVALID_JSON_KEY: True, "raw": well_formed(raw)}
    if not isinstance(value, dict):
        return {INVALID_JSON_KEY: True, "raw": well_formed(raw)}
    if _SURROGATE_ESCAPE.search(raw) or not raw.isascii():
        return _well_formed_value(value)  # type: ignore[no-any-return]
    return value


class StreamAssembler:
    """Feeds on normalized stream events; `partial()` gives the render delta for
    an event (or None), `message()` the assembled assistant message."""

    def __init__(self) -> None:
        self.blocks: list[ContentBlock] = []
        self._text: list[str] | None = None
        self._thinking: list[str] | None = None
        self._signature: str | None = None
        self._tools: dict[str, tuple[str, list[str]]] = {}
        self._tool_order: list[str] = []
        self.stop_reason: StopReason = "end_turn"
        self.usage = Usage()
        self.provider_metadata: dict[str, Any] | None = None
        self.ended = False
        self.produced_output = False

    def _flush(self) -> None:
        if self._text is not None:
            self.blocks.append(TextBlock(text=well_formed("".join(self._text))))
            self._text = None
        if self._thinking is not None:
            self.blocks.append(ThinkingBlock(thinking=well_formed("".join(self._thinking)), signature=self._signature))
            self._thinking = None
            self._signature = None

    def feed(self, event: ProviderStreamEvent) -> PartialDelta | None:
        """Apply one event; returns the partial delta to render, if any."""
        if isinstance(event, TextDelta):
            self.produced_output = True
            if self._text is None:
                self._flush()
                self._text = []
            self._text.append(event.text)
            return PartialText(text=well_formed(event.text))
        if isinstance(event, ThinkingDelta):
            self.produced_output = True
            if self._thinking is None:
                self._flush()
                self._thinking = []
            self._thinking.append(event.text)
            if event.signature:
                self._signature = event.signature
            return PartialThinking(text=well_formed(event.text)) if event.text else None
        if isinstance(event, ToolUseStart):
            self.produced_output = True
            self._flush()
            self._tools[event.id] = (event.name, [])
            self._tool_order.append(event.id)
            self.blocks.append(ToolUseBlock(id=event.id, name=event.name, input={}))
            return None
        if isinstance(event, ToolUseInputDelta):
            entry = self._tools.get(event.id)
            if entry is not None:
                entry[1].append(event.json_delta)
            return PartialToolInput(tool_use_id=event.id, json_delta=event.json_delta)
        if isinstance(event, ToolUseEnd):
            self._finish_tool(event.id)
            return None
        if isinstance(event, MessageEnd):
            self._flush()
            self.stop_reason = event.stop_reason
            self.usage = event.usage
            self.provider_metadata = event.provider_metadata
            self.ended = True
        return None

    def _finish_tool(self, tool_id: str) -> None:
        entry = self._tools.pop(tool_id, None)
        if entry is None:
            return
        name, parts = entry
        block = ToolUseBlock(id=tool_id, name=name, input=parse_tool_input("".join(parts)))
        for i, existing in enumerate(self.blocks):
            if isinstance(existing, ToolUseBlock) and existing.id == tool_id:
                self.blocks[i] = block
                break

    def message(self) -> Message:
        """The assembled message (open buffers flushed, unfinished tools closed)."""
        self._flush()
        for tool_id in list(self._tools):
            self._finish_tool(tool_id)
        return Message(role="assistant", content=list(self.blocks), provider_metadata=self.provider_metadata)


def partial_event(delta: PartialDelta) -> PartialAssistantEvent:
    return PartialAssistantEvent(delta=delta)
