"""Protocols through which the lower layers see the objects above them.

Dependencies point one way: the run loop, direct tool calls and the extension
packages (MCP, skills, subagents) are written against these Protocols rather
than `Agent` and `Session`, so they never import `agent.py` or `session.py`.
`Agent` satisfies `RunHost` and `ExtensionHost`; `Session` satisfies
`RunSession` and `ToolSession`; `Run` satisfies `SessionRun`.
(`session.py` adds `SessionHost`: the Agent as its sessions see it.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from .events import CompactionEvent, Event, HookErrorEvent, SkillSummary
    from .hooks import HookContext, HookRunner
    from .instructions import NestedInstructions
    from .mcp.elicitation import ElicitationHandler
    from .messages import InvokedSkillRecord, Message, PermissionMode, Usage
    from .permissions.engine import PermissionEngine
    from .plugins.types import Plugin
    from .pricing import PriceTable
    from .providers.base import BaseProvider, CacheTtl, Effort, SystemBlock, ThinkingConfig
    from .run_options import RunOptions, SteerEntry
    from .sandbox.policy import ShellPolicy
    from .sandbox.settings import SandboxStatus
    from .sessions.retry import StoreRetry
    from .sessions.store import SessionStore
    from .subagents.definitions import AgentDefinition
    from .tools.base import ToolContext
    from .tools.registry import ToolRegistry

__all__ = ["ExtensionHost", "RunHost", "RunSession", "SessionRun", "ToolSession"]


class RunHost(Protocol):
    """The Agent as a run sees it: the loop, direct tool calls and subagents."""

    provider: BaseProvider
    cwd: Path
    permissions: PermissionEngine
    permission_mode: PermissionMode
    hooks: HookRunner | None
    shell_policy: ShellPolicy
    pricing: PriceTable
    instruction_files: list[str]
    cache_ttl: CacheTtl | None
    include_partial_messages: bool
    max_budget_usd: float | None
    max_output_tokens: int | None
    max_retries: int
    max_turns: int | None
    record_usage: bool
    tool_concurrency: int
    store_retry: StoreRetry | None

    def get_session(self, id: str) -> RunSession | None:
        """A live session of this agent, by id."""

    def api_model(self, model: str) -> str:
        """The id sent for `model` (Claude Code's aliases resolved for the provider)."""

    def definition_model(self, model: str | None) -> str | None:
        """A skill's, command's or agent file's `model`, or None for the session's."""

    def sandbox_status(self) -> SandboxStatus:
        """Whether Bash runs sandboxed."""

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """Switch the permission mode for later tool calls."""

    def skill_listing(self) -> str | None:
        """The loaded skills' listing for the model (None without skills)."""

    def skill_summaries(self) -> list[SkillSummary]:
        """The loaded skills, by name."""


class RunSession(Protocol):
    """The Session as its run loop and direct tool calls see it."""

    is_child: bool
    interrupt_requested: bool
    skills_announced: bool
    session_started: bool
    start_source: Literal["clear", "compact"] | None
    replay_invoked_skills: bool
    invoked_skills: list[InvokedSkillRecord]
    last_usage: Usage | None
    nested_instructions: NestedInstructions | None
    provider_view: list[Message]
    full_history: list[Message]
    background_ended: list[tuple[str, str]]

    @property
    def agent(self) -> RunHost: ...
    @property
    def id(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def meta(self) -> dict[str, Any]: ...
    @property
    def store(self) -> SessionStore: ...
    @property
    def tools(self) -> ToolRegistry: ...

    def system_blocks(self) -> list[SystemBlock]: ...
    def tool_context(self, run_id: str, tool_use_id: str, emit: Callable[[Event], None]) -> ToolContext: ...
    def extend_history(self, messages: Sequence[Message]) -> None: ...
    def has_steers(self) -> bool: ...
    def pop_steer(self) -> SteerEntry | None: ...
    def reject_steers(self) -> None: ...
    def take_overlay(self) -> tuple[str | None, frozenset[str]]: ...
    def clear_overlay_tools(self) -> None: ...
    async def take_checkpoint(self, prompt: str) -> dict[str, Any] | None: ...
    async def record_prompt(self, index: int, prompt: str, checkpoint: dict[str, Any] | None) -> None: ...
    async def update_meta(self, patch: dict[str, Any]) -> dict[str, Any]: ...
    async def compact_view(
        self,
        trigger: Literal["threshold", "forced", "manual"],
        hook_context: HookContext,
        *,
        focus: str | None = None,
    ) -> tuple[CompactionEvent | None, list[HookErrorEvent]]: ...


class SessionRun(Protocol):
    """One run as its caller drives it: `async with session.run(...) as run: async for event in run`."""

    def __aiter__(self) -> AsyncIterator[Event]: ...
    async def __aenter__(self) -> AsyncIterator[Event]: ...
    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class ToolSession(Protocol):
    """The Session as the tools of the extension packages see it (`ctx.extras["session"]`)."""

    @property
    def agent(self) -> RunHost: ...
    @property
    def id(self) -> str: ...
    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def run_options(self) -> RunOptions | None: ...

    def run(self, prompt: str, *, thinking: ThinkingConfig | None = None, effort: Effort | None = None) -> SessionRun:
        """Start a run of this session."""

    def abort(self, reason: str | None = None) -> None:
        """End the active run with `result(aborted)`."""

    def set_overlay(self, *, model: str | None = None, allowed_tools: Sequence[str] = ()) -> None:
        """A skill's one-turn model and allowed-tools overlay."""

    async def record_invoked_skill(self, record: InvokedSkillRecord) -> None:
        """Remember (and persist) an invoked skill."""

    async def child_session(
        self, *, meta: Mapping[str, Any], model: str | None, tools: ToolRegistry, system: list[SystemBlock]
    ) -> ToolSession:
        """A new child session (a subagent's) of this one."""


class ExtensionHost(Protocol):
    """The agent-side surface the extension connectors use."""

    provider: BaseProvider
    model: str
    cwd: Path
    tools: ToolRegistry
    permissions: PermissionEngine
    config_dirs: list[Path]
    untrusted_config_dirs: list[Path]
    mcp_servers: dict[str, dict[str, Any]]
    mcp_fail_fast: bool
    env_passthrough: tuple[str, ...]
    plugins: tuple[Plugin, ...]
    skill_filter: tuple[str, ...] | None
    additional_directories: list[Path]
    elicit: ElicitationHandler | None
    inline_agents: tuple[AgentDefinition, ...]

    def invalidate_system_prompt(self) -> None:
        """Rebuild the system prompt before the next request (tools changed)."""

    def set_skills(self, summaries: Sequence[SkillSummary], listing: str | None) -> None:
        """Install the loaded skills' summaries and their listing."""
