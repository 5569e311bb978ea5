"""Model providers. The vendor SDKs are imported only when a provider is used."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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

_LAZY = {
    "AnthropicProvider": ".anthropic",
    "OpenAIChatProvider": ".openai_chat",
    "OpenAIResponsesProvider": ".openai_responses",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
