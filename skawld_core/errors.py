"""The `SkawldError` hierarchy. Every error has a `kind` and a `retryable` flag."""

from __future__ import annotations

from typing import ClassVar


class SkawldError(Exception):
    """Base of every error skawld raises on purpose."""

    kind: ClassVar[str] = "skawld"
    default_retryable: ClassVar[bool] = False

    def __init__(self, message: str = "", *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retryable: bool = self.default_retryable
        if cause is not None:
            self.__cause__ = cause

    @property
    def name(self) -> str:
        return type(self).__name__

    @property
    def cause(self) -> BaseException | None:
        return self.__cause__


class ConfigError(SkawldError):
    kind = "config"


class AuthError(SkawldError):
    kind = "auth"


class RateLimitError(SkawldError):
    kind = "rate_limit"
    default_retryable = True

    def __init__(
        self, message: str = "", *, retry_after_seconds: float | None = None, cause: BaseException | None = None
    ) -> None:
        super().__init__(message, cause=cause)
        self.retry_after_seconds = retry_after_seconds


class ContextLengthError(SkawldError):
    """The prompt does not fit the model's context window; drives compaction."""

    kind = "context_length"


class ProviderError(SkawldError):
    kind = "provider"

    def __init__(
        self,
        message: str = "",
        *,
        status: int | None = None,
        retryable: bool = False,
        cause: BaseException | None = None,
    ) -> None:
        super().__init__(message, cause=cause)
        self.status = status
        self.retryable = retryable


class PermissionDeniedError(SkawldError):
    kind = "permission_denied"

    def __init__(self, message: str = "", *, tool_name: str = "", reason: str = "") -> None:
        super().__init__(message or reason)
        self.tool_name = tool_name
        self.reason = reason


class ToolExecutionError(SkawldError):
    kind = "tool_execution"

    def __init__(self, message: str = "", *, tool_name: str = "", cause: BaseException | None = None) -> None:
        super().__init__(message, cause=cause)
        self.tool_name = tool_name


class ToolInputError(ToolExecutionError):
    """A tool's input failed validation."""


class AbortError(SkawldError):
    """Internal signal that a run was aborted; consumers see `result(aborted)`."""

    kind = "abort"


class SkillError(SkawldError):
    kind = "skill"

    def __init__(self, message: str = "", *, skill_name: str | None = None) -> None:
        super().__init__(message)
        self.skill_name = skill_name


class SessionStoreError(SkawldError):
    kind = "session_store"


class HookError(SkawldError):
    kind = "hook"


class TurnLimitError(SkawldError):
    """The run hit `max_turns`."""

    kind = "turn_limit"


class BudgetLimitError(SkawldError):
    """The run's cost reached `max_budget_usd` (checked before each model call)."""

    kind = "budget_limit"
