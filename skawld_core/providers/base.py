"""The provider contract: a `ProviderRequest` in, normalized stream events out.

A provider maps its vendor's errors to skawld's typed errors (`AuthError`,
`RateLimitError`, `ContextLengthError`, `ProviderError`) and applies the
skawld-managed retry budget (`request.max_retries`) to retryable failures that
happen before any output of an attempt was yielded.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from ..messages import Message, StopReason, Usage
from ..model_base import SkawldModel

CacheTtl = Literal["5m", "1h"]
Effort = Literal["low", "medium", "high", "max"]


class _Frozen(SkawldModel):
    model_config = ConfigDict(frozen=True)


class SystemBlock(_Frozen):
    """One block of the system prompt. `cacheable` blocks may carry a cache breakpoint."""

    type: Literal["text"] = "text"
    text: str
    cacheable: bool = True


class ToolSchema(_Frozen):
    """What the model is told about one tool."""

    name: str
    description: str
    input_schema: dict[str, Any]


class ThinkingConfig(_Frozen):
    """Extended thinking (Anthropic)."""

    enabled: bool = True
    budget_tokens: int | None = None


class ProviderRequest(_Frozen):
    """Everything one model call needs. `messages` is the session's provider view."""

    model: str
    system: list[SystemBlock] = Field(default_factory=list)
    tools: list[ToolSchema] = Field(default_factory=list)
    messages: list[Message]
    max_output_tokens: int | None = None
    temperature: float | None = None
    cache_prompt: bool = True
    cache_ttl: CacheTtl | None = None
    thinking: ThinkingConfig | None = None
    effort: Effort | None = None
    max_retries: int = 5


class MessageStart(_Frozen):
    type: Literal["message_start"] = "message_start"


class TextDelta(_Frozen):
    type: Literal["text_delta"] = "text_delta"
    text: str


class ThinkingDelta(_Frozen):
    type: Literal["thinking_delta"] = "thinking_delta"
    text: str
    signature: str | None = None


class ToolUseStart(_Frozen):
    type: Literal["tool_use_start"] = "tool_use_start"
    id: str
    name: str


class ToolUseInputDelta(_Frozen):
    type: Literal["tool_use_input_delta"] = "tool_use_input_delta"
    id: str
    json_delta: str


class ToolUseEnd(_Frozen):
    type: Literal["tool_use_end"] = "tool_use_end"
    id: str


class MessageEnd(_Frozen):
    type: Literal["message_end"] = "message_end"
    stop_reason: StopReason
    usage: Usage = Field(default_factory=Usage)
    provider_metadata: dict[str, Any] | None = None


ProviderStreamEvent = Annotated[
    MessageStart | TextDelta | ThinkingDelta | ToolUseStart | ToolUseInputDelta | ToolUseEnd | MessageEnd,
    Field(discriminator="type"),
]


def usage_estimated(provider_metadata: dict[str, Any] | None) -> bool:
    """True when a provider marked a turn's usage as its own estimate (the server reported
    none and had no tokenizer to count with): ``{"<provider>": {"usage_estimated": True}}``."""
    return any(
        isinstance(own, dict) and own.get("usage_estimated") is True for own in (provider_metadata or {}).values()
    )


DEFAULT_CONTEXT_WINDOW = 200_000


class BaseProvider(ABC):
    """A streaming adapter for one model API."""

    id: str = "provider"

    def context_window(self, model: str) -> int:
        """Context window of `model` in tokens (a sane default when unknown)."""
        return DEFAULT_CONTEXT_WINDOW

    @property
    def is_local(self) -> bool:
        """True when the model runs on this machine or a private network (a local
        server): such tokens cost nothing unless prices are configured."""
        return False

    @abstractmethod
    def stream(self, request: ProviderRequest) -> AsyncGenerator[ProviderStreamEvent, None]:
        """Stream one model turn. Implement as `async def stream(...)` with `yield`."""

    async def warm(self) -> None:  # noqa: B027 - optional hook
        """Prepare for the first request on the running loop (client, connection). Optional;
        must never raise."""

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release network clients. Optional."""
