"""skawld_core: an agent SDK — Agent, Session, the run loop and its events.

`import skawld_core` is cheap: provider SDKs, MCP and Textual are imported only
where they are first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    AbortError,
    AuthError,
    ConfigError,
    ContextLengthError,
    HookError,
    PermissionDeniedError,
    ProviderError,
    RateLimitError,
    SessionStoreError,
    SkawldError,
    SkillError,
    ToolExecutionError,
    ToolInputError,
    TurnLimitError,
)
from .events import (
    EVENT_ADAPTER,
    AssistantEvent,
    CompactionEvent,
    ErrorEvent,
    ErrorInfo,
    Event,
    HookErrorEvent,
    PartialAssistantEvent,
    PartialText,
    PartialThinking,
    PartialToolInput,
    PermissionRequestEvent,
    PermissionRequestItem,
    ResultEvent,
    SkillCompletedEvent,
    SkillInvokedEvent,
    SkillsLoadedEvent,
    SkillSummary,
    SubagentEvent,
    SystemEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UsageEvent,
    UserEvent,
    from_json,
    is_assistant_event,
    is_compaction_event,
    is_error_event,
    is_hook_error_event,
    is_partial_assistant_event,
    is_permission_request_event,
    is_result_event,
    is_skill_completed_event,
    is_skill_invoked_event,
    is_skills_loaded_event,
    is_subagent_event,
    is_system_event,
    is_tool_call_end_event,
    is_tool_call_start_event,
    is_usage_event,
    is_user_event,
    to_json,
)
from .lazy_exports import lazy_exports
from .messages import (
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    InvokedSkillRecord,
    Message,
    PermissionMode,
    StopReason,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
    add_usage,
)
from .version import package_version

if TYPE_CHECKING:
    from .agent import Agent
    from .config import load_config
    from .from_config import agent_from_config
    from .session import Run, Session
    from .tools import default_tools

    __version__: str

_lazy = lazy_exports(
    __name__,
    {
        "Agent": ".agent",
        "Session": ".session",
        "Run": ".session",
        "load_config": ".config",
        "default_tools": ".tools",
        "agent_from_config": ".from_config",
    },
)


def __getattr__(name: str) -> Any:
    if name == "__version__":
        value = package_version()
        globals()["__version__"] = value
        return value
    return _lazy(name)


__all__ = [
    "EVENT_ADAPTER",
    "AbortError",
    "Agent",
    "AssistantEvent",
    "AuthError",
    "CompactionEvent",
    "ConfigError",
    "ContentBlock",
    "ContextLengthError",
    "ErrorEvent",
    "ErrorInfo",
    "Event",
    "HookError",
    "HookErrorEvent",
    "DocumentBlock",
    "ImageBlock",
    "InvokedSkillRecord",
    "Message",
    "PartialAssistantEvent",
    "PartialText",
    "PartialThinking",
    "PartialToolInput",
    "PermissionDeniedError",
    "PermissionMode",
    "PermissionRequestEvent",
    "PermissionRequestItem",
    "ProviderError",
    "RateLimitError",
    "ResultEvent",
    "Run",
    "Session",
    "SessionStoreError",
    "SkawldError",
    "SkillCompletedEvent",
    "SkillError",
    "SkillInvokedEvent",
    "SkillSummary",
    "SkillsLoadedEvent",
    "StopReason",
    "SubagentEvent",
    "SystemEvent",
    "TextBlock",
    "ThinkingBlock",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolExecutionError",
    "ToolInputError",
    "ToolResultBlock",
    "ToolUseBlock",
    "TurnLimitError",
    "Usage",
    "UsageEvent",
    "UserEvent",
    "__version__",
    "add_usage",
    "agent_from_config",
    "default_tools",
    "from_json",
    "is_assistant_event",
    "is_compaction_event",
    "is_error_event",
    "is_hook_error_event",
    "is_partial_assistant_event",
    "is_permission_request_event",
    "is_result_event",
    "is_skill_completed_event",
    "is_skill_invoked_event",
    "is_skills_loaded_event",
    "is_subagent_event",
    "is_system_event",
    "is_tool_call_end_event",
    "is_tool_call_start_event",
    "is_usage_event",
    "is_user_event",
    "load_config",
    "to_json",
]
