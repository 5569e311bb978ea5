"""Model providers. The vendor SDKs are imported only when a provider is used."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy_exports import lazy_exports
from .base import (
    BaseProvider,
    MessageEnd,
    MessageStart,
    ProviderRequest,
    ProviderStreamEvent,
    SystemBlock,
    TextDelta,
    ThinkingConfig,
    ThinkingDelta,
    ToolSchema,
    ToolUseEnd,
    ToolUseInputDelta,
    ToolUseStart,
)

if TYPE_CHECKING:
    from .anthropic import AnthropicProvider
    from .openai_chat import OpenAIChatProvider
    from .openai_responses import OpenAIResponsesProvider

__all__ = [
    "AnthropicProvider",
    "BaseProvider",
    "MessageEnd",
    "MessageStart",
    "OpenAIChatProvider",
    "OpenAIResponsesProvider",
    "ProviderRequest",
    "ProviderStreamEvent",
    "SystemBlock",
    "TextDelta",
    "ThinkingConfig",
    "ThinkingDelta",
    "ToolSchema",
    "ToolUseEnd",
    "ToolUseInputDelta",
    "ToolUseStart",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "AnthropicProvider": ".anthropic",
        "OpenAIChatProvider": ".openai_chat",
        "OpenAIResponsesProvider": ".openai_responses",
    },
)
