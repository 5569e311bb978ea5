"""Normalized messages: content blocks, `Message`, `Usage`, `StopReason`.

The shapes are Anthropic-like and provider-neutral; every provider translates
to and from them. Field names equal the spec's JSON keys.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from .model_base import SkawldModel

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal", "error"]
PermissionMode = Literal["default", "acceptEdits", "plan", "yolo"]
Role = Literal["user", "assistant"]


class _Block(SkawldModel):
    model_config = ConfigDict(frozen=True)


class TextBlock(_Block):
    """Plain text."""

    type: Literal["text"] = "text"
    text: str


class Base64Source(_Block):
    type: Literal["base64"] = "base64"
    media_type: str
    data: str


class UrlSource(_Block):
    type: Literal["url"] = "url"
    url: str


ImageSource = Annotated[Base64Source | UrlSource, Field(discriminator="type")]


class ImageBlock(_Block):
    """An image, inline (base64) or by URL."""

    type: Literal["image"] = "image"
    source: ImageSource


class DocumentBlock(_Block):
    """A PDF in a tool result: sent as a document to providers that read PDFs (Anthropic).

    `text` is the PDF's extracted text, which providers without document input
    receive instead; `title` names the file.
    """

    type: Literal["document"] = "document"
    source: Base64Source
    title: str | None = None
    text: str = ""


class ToolUseBlock(_Block):
    """A tool call made by the model."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]


ToolResultPart = TextBlock | ImageBlock | DocumentBlock
ToolResultContent = str | list[Annotated[ToolResultPart, Field(discriminator="type")]]


class ToolResultBlock(_Block):
    """The answer to one `tool_use` block, sent back in a user message."""

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: ToolResultContent
    is_error: bool | None = None


class ThinkingBlock(_Block):
    """Extended thinking / reasoning text, with the provider's signature when given."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None


ContentBlock = Annotated[
    TextBlock | ImageBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock,
    Field(discriminator="type"),
]


class Message(SkawldModel):
    """One conversation message. `provider_metadata` is namespaced per provider
    (`openai_responses`, `anthropic`) and persisted with the message."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: list[ContentBlock]
    provider_metadata: dict[str, Any] | None = None

    def tool_uses(self) -> list[ToolUseBlock]:
        """The `tool_use` blocks of this message, in order."""
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def text(self) -> str:
        """All text blocks joined with newlines."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))


class Usage(SkawldModel):
    """Token counts. `input_tokens` is the cache-inclusive prompt size; the cache
    fields are subsets of it."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int | None = None
    cache_creation_tokens: int | None = None

    def __add__(self, other: Usage) -> Usage:
        return add_usage(self, other)


def add_usage(a: Usage, b: Usage) -> Usage:
    """Sum all four fields, a missing field counting as 0."""
    return Usage(
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cache_read_tokens=(a.cache_read_tokens or 0) + (b.cache_read_tokens or 0),
        cache_creation_tokens=(a.cache_creation_tokens or 0) + (b.cache_creation_tokens or 0),
    )


class InvokedSkillRecord(SkawldModel):
    """A skill invoked in a session, persisted so it can be re-emitted on resume
    and re-injected after compaction."""

    model_config = ConfigDict(frozen=True)

    name: str
    args: str | None = None
    body: str = ""
    invoked_at: str | None = None


def user_text(text: str) -> Message:
    """A user message holding one text block."""
    return Message(role="user", content=[TextBlock(text=text)])
