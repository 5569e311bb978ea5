"""`Agent`: the long-lived handle that owns the provider, tools, permissions,
hooks, store and system prompt, and creates or resumes sessions."""

from __future__ import annotations

import asyncio
import os
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .compaction import CompactionStrategy, default_compaction
from .errors import ConfigError
from .events import SkillSummary
from .extensions import Extensions, close_extensions, connect_extensions
from .hooks import HookContext, HookRunner, SessionEndInput
from .messages import Message, PermissionMode
from .model_aliases import api_model, is_claude_alias
from .permissions import PermissionEngine
from .permissions.mode import EXIT_PLAN_MODE_TOOL
from .permissions.sandbox_spec import read_denied_paths
from .pricing import DEFAULT_TABLE, PriceTable
from .providers.base import BaseProvider, CacheTtl, SystemBlock
from .sandbox import ShellPolicy
from .scheduler import default_tool_concurrency
from .session import Session
from .sessions.claims import RunGuardStore
from .sessions.fork import fork_session
from .sessions.meta import git_branch
from .system_prompt import build_system_blocks
from .tools import default_tools
from .tools.ask_user import AskUserHandler, AskUserTool
from .tools.base import AnyTool
from .tools.exit_plan_mode import ExitPlanModeTool
from .tools.registry import ToolRegistry
from .transcript import dangling_tool_uses, synthetic_results

if TYPE_CHECKING:
    from .checkpoints import CheckpointEngine
    from .hooks import Hooks
    from .mcp.elicitation import ElicitationHandler
    from .permissions import CanUseTool, PermissionRule
    from .plugins.types import Plugin
    from .sandbox import SandboxSettings, SandboxStatus
    from .sessions.retry import StoreRetry
    from .sessions.store import SessionRecord, SessionStore
    from .subagents.definitions import AgentDefinition

_MODES = ("default", "acceptEdits", "plan", "yolo")


def _check_arguments(
    provider: object,
    model: object,
    permission_mode: object,
    max_retries: object,
    max_turns: object,
    max_output_tokens: object,
) -> None:
    if provider is None:
        raise ConfigError("Agent requires a provider")
    if not isinstance(model, str) or not model:
        raise ConfigError("Agent requires a model")
    _check_int("max_retries", max_retries, 0)
    _check_int("max_turns", max_turns, 1)
    _check_int("max_output_tokens", max_output_tokens, 1)
    if permission_mode not in _MODES:
        raise ConfigError(f"permission_mode must be one of {', '.join(_MODES)} (got {permission_mode!r})")


def _check_limits(max_budget_usd: object, cache_ttl: object) -> None:
    if max_budget_usd is not None and (
        isinstance(max_budget_usd, bool) or not isinstance(max_budget_usd, int | float) or max_budget_usd <= 0
    ):
        raise ConfigError(f"max_budget_usd must be a number > 0 (got {max_budget_usd!r})")
    if cache_ttl not in (None, "5m", "1h"):
        raise ConfigError(f"cache_ttl must be '5m' or '1h' (got {cache_ttl!r})")


def _check_int(name: str, value: object, minimum: int) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{name} must be an integer >= {minimum} (got {value!r})")


class Agent:
    """Configuration shared by every session: provider, model, tools,
    permissions, hooks, store, system prompt. Configured in code only.

    `max_budget_usd` ends a run with `BudgetLimitError` once its cost (priced by
    `pricing`, default: the list prices of `skawld_core.pricing`) reaches the budget;
    `record_usage` adds each run's tokens and cost to the session's ``usage`` meta.

    `extensions` (an `Extensions`) holds what the first `session()` connects: the MCP
    manager, the loaded skills and the subagent registry.

    `plugins` (Claude Code plugins, `skawld_core.plugins.load_plugin`) add their agents and
    skills under the plugin's name (`plugin:agent`) and their MCP servers; their hooks are shell
    commands the caller runs (the product does, from its config). `elicit` answers MCP servers'
    questions (`skawld_core.mcp.elicitation`); without it they are declined. `agents`
    (`AgentDefinition`s, e.g. from `subagents.inline.parse_inline_agents`) are subagent
    types given as data; they win over agent files of the same name.

    The session store defaults to `SqliteSessionStore` at
    `<cwd>/.skawld/sessions.db`, created on the first `session()` call, so an
    Agent that never starts a session never touches disk.
    """

    def __init__(
        self,
        *,
        provider: BaseProvider,
        model: str,
        tools: Iterable[AnyTool] | ToolRegistry | None = None,
        permission_mode: PermissionMode = "default",
        permission_rules: Sequence[PermissionRule | Mapping[str, Any]] = (),
        can_use_tool: CanUseTool | None = None,
        session_store: SessionStore | None = None,
        cwd: str | os.PathLike[str] | None = None,
        system_prompt: str | None = None,
        compaction: CompactionStrategy | None = None,
        max_retries: int = 5,
        max_output_tokens: int | None = None,
        include_partial_messages: bool = False,
        max_turns: int | None = None,
        cache_ttl: CacheTtl | None = None,
        config_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
        mcp_servers: Mapping[str, Mapping[str, Any]] | None = None,
        hooks: Hooks | Mapping[str, Any] | None = None,
        ask_user: AskUserHandler | None = None,
        mcp_fail_fast: bool = True,
        instruction_files: Sequence[str | os.PathLike[str]] = (),
        nested_instructions: bool = False,
        untrusted_config_dirs: Sequence[str | os.PathLike[str]] = (),
        additional_directories: Sequence[str | os.PathLike[str]] = (),
        sandbox: SandboxSettings | str | Mapping[str, Any] | None = None,
        env_passthrough: Sequence[str] = (),
        max_budget_usd: float | None = None,
        pricing: PriceTable | None = None,
        record_usage: bool = True,
        checkpoints: bool | CheckpointEngine | None = None,
        plugins: Sequence[Plugin] = (),
        elicit: ElicitationHandler | None = None,
        agents: Sequence[AgentDefinition] = (),
    ) -> None:
        _check_arguments(provider, model, permission_mode, max_retries, max_turns, max_output_tokens)
        _check_limits(max_budget_usd, cache_ttl)

        self.provider = provider
        self.model = model
        self.cwd = Path(cwd).resolve() if cwd is not None else Path.cwd()
        self.permission_mode: PermissionMode = permission_mode
        self.system_prompt = system_prompt
        self._init_host_settings()
        self.instruction_files = [str(p) for p in instruction_files]
        self.nested_instructions = nested_instructions
        self.compaction: CompactionStrategy = compaction or default_compaction()
        self.max_retries = max_retries
        self.max_output_tokens = max_output_tokens
        self.include_partial_messages = include_partial_messages
        self.max_turns = max_turns
        self.cache_ttl: CacheTtl | None = cache_ttl
        self.tool_concurrency = default_tool_concurrency()
        self.config_dirs = self._resolve_config_dirs(config_dir)
        # skills and agents loaded from these (an unaccepted project's) keep no tool grants or model
        self.untrusted_config_dirs = [Path(d).resolve() for d in untrusted_config_dirs]
        # Claude Code plugins: commands, agents and skills under the plugin's name, and its MCP servers
        # (its hooks are shell commands: the product runs them, `skawld_core.hooks.commands`)
        self.plugins: tuple[Plugin, ...] = tuple(plugins)
        # MCP servers' questions to the user (elicitation); None declines them
        self.elicit: ElicitationHandler | None = elicit
        self.inline_agents: tuple[AgentDefinition, ...] = tuple(agents)
        self.mcp_servers = _with_plugin_servers(mcp_servers, self.plugins)
        self.mcp_fail_fast = mcp_fail_fast
        # Where acceptEdits also approves writes (and the sandbox makes writable): real paths.
        self.additional_directories: list[Path] = _real_directories(self.cwd, additional_directories)
        self.max_budget_usd = max_budget_usd
        self.pricing: PriceTable = pricing if pricing is not None else DEFAULT_TABLE
        self.record_usage = record_usage

        self.tools = (
            tools if isinstance(tools, ToolRegistry) else ToolRegistry(default_tools() if tools is None else tools)
        )
        if permission_mode == "plan":
            self._ensure_plan_tool()
        self.ask_user: AskUserHandler | None = ask_user
        if ask_user is not None:
            self.tools.register(AskUserTool(ask_user))

        self.permissions: PermissionEngine = PermissionEngine(
            mode=permission_mode,
            rules=permission_rules,
            can_use_tool=can_use_tool,
            project_root=self.cwd,
            additional_directories=self.additional_directories,
        )
        self.env_passthrough: tuple[str, ...] = _variable_names(env_passthrough)
        # `additional_directories` (when set) are writable inside the sandbox too.
        self.shell_policy = ShellPolicy(
            sandbox=sandbox,
            env_passthrough=self.env_passthrough,
            permissions=self.permissions,
            writable_dirs=lambda: getattr(self, "additional_directories", None) or (),
        )
        self.permissions.bash_sandboxed = lambda: self.shell_policy.sandboxed
        self.hooks: HookRunner | None = HookRunner(hooks) if hooks is not None else None

        self._init_lazy_parts(session_store, checkpoints)

    def _init_host_settings(self) -> None:
        """Knobs a host sets after construction (the SDK dialect, `skawld work`), at their defaults."""
        self.skill_filter: tuple[str, ...] | None = None
        """Only the skills with these names load (a name, or a plugin skill's ``:name`` suffix);
        None: every skill found. Set before the extensions connect."""
        self.system_prompt_replaces_default = False
        """True: `system_prompt` is the whole system prompt (a host's own prompt, as the Claude
        Agent SDK's string ``systemPrompt``); skawld's identity, tool protocol and environment
        blocks are left out."""
        # Appends that meet a passing store fault end the run, unless this says to retry them
        # (`skawld work` does, so a one-second database fault does not run a task twice).
        self.store_retry: StoreRetry | None = None

    def _init_lazy_parts(self, session_store: SessionStore | None, checkpoints: bool | CheckpointEngine | None) -> None:
        """The parts created on first use: the store, the system prompt, extensions, sessions."""
        self._store = session_store
        self._store_created = session_store is not None
        self._system: list[SystemBlock] | None = None
        self._connect_task: asyncio.Future[None] | None = None
        self._connected = False
        self._skills: list[SkillSummary] = []
        self._skill_listing: str | None = None
        self.extensions: Extensions = Extensions()
        self._sessions: weakref.WeakValueDictionary[str, Session] = weakref.WeakValueDictionary()
        self._closed = False
        self._checkpoints: bool | CheckpointEngine | None = checkpoints

    @property
    def checkpoints(self) -> CheckpointEngine | None:
        """The checkpoint engine that snapshots the project before each prompt
        (`checkpoints=True` builds one under ``~/.skawld/checkpoints``), or `None`."""
        if self._checkpoints is True:
            from .checkpoints import CheckpointEngine  # lazy: only agents with checkpoints=True build one

            self._checkpoints = CheckpointEngine(self.cwd)
        engine = self._checkpoints or None
        if engine is not None and engine.exclude is None:
            # never store what Read deny rules cover (sandboxed Bash could read the store otherwise)
            engine.exclude = lambda: read_denied_paths(self.permissions)
        return engine

    def _resolve_config_dirs(
        self, config_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None
    ) -> list[Path]:
        if config_dir is None:
            return [self.cwd / ".skawld"]
        dirs = [config_dir] if isinstance(config_dir, str | os.PathLike) else list(config_dir)
        if not dirs:
            return [self.cwd / ".skawld"]
        return [(self.cwd / Path(d).expanduser()).resolve() for d in dirs]

    @property
    def sandbox(self) -> SandboxSettings:
        """The Bash sandbox settings (`Agent(sandbox=...)`)."""
        return self.shell_policy.settings

    def sandbox_status(self) -> SandboxStatus:
        """Whether Bash runs sandboxed; probes bubblewrap once per process."""
        return self.shell_policy.status()

    @property
    def config_dir(self) -> Path:
        """The first (highest-priority) config directory."""
        return self.config_dirs[0]

    # -- lazily created parts ---------------------------------------------

    @property
    def store(self) -> SessionStore:
        """The session store (the default SQLite store is created on first use)."""
        if self._store is None:
            from .sessions.sqlite import SqliteSessionStore  # lazy: aiosqlite, only for the default store

            self._store = SqliteSessionStore(cwd=self.cwd)
            self._store_created = True
        return self._store

    def system_blocks(self) -> list[SystemBlock]:
        """The cache-stable system prompt (rebuilt when tools register)."""
        if self._system is None and self.system_prompt_replaces_default:
            text = (self.system_prompt or "").strip()
            self._system = [SystemBlock(text=text)] if text else []
        if self._system is None:
            self._system = build_system_blocks(
                cwd=str(self.cwd),
                permission_mode=self.permission_mode,
                tool_names=self.tools.names(),
                user_instructions=self.system_prompt,
            )
        return self._system

    @property
    def resolves_claude_aliases(self) -> bool:
        """True when the provider is Anthropic's, whose models Claude Code's aliases name."""
        return getattr(getattr(self.provider, "inner", self.provider), "id", None) == "anthropic"

    def api_model(self, model: str) -> str:
        """The id sent for `model`: a Claude Code alias resolved on the Anthropic
        provider (`opusplan` by the current permission mode); else `model`."""
        return api_model(
            model, anthropic=self.resolves_claude_aliases, env=os.environ, plan_mode=self.permission_mode == "plan"
        )

    def definition_model(self, model: str | None) -> str | None:
        """A skill's, command's or agent file's `model`, or None for the session's: a
        Claude Code alias names no model on a provider other than Anthropic's."""
        if model is None or (is_claude_alias(model) and not self.resolves_claude_aliases):
            return None
        return model

    def set_permission_mode(self, mode: PermissionMode) -> None:
        """Switch the permission mode for later tool calls (the app's Shift+Tab)."""
        if mode not in _MODES:
            raise ConfigError(f"permission_mode must be one of {', '.join(_MODES)} (got {mode!r})")
        if mode == "plan":
            self._ensure_plan_tool()
        self.permission_mode = mode
        self.permissions.set_mode(mode)
        self.invalidate_system_prompt()

    def _ensure_plan_tool(self) -> None:
        """Plan mode needs `ExitPlanMode`; it is registered the first time the agent plans."""
        if EXIT_PLAN_MODE_TOOL not in self.tools:
            self.tools.register(ExitPlanModeTool())

    def invalidate_system_prompt(self) -> None:
        self._system = None

    def skill_summaries(self) -> list[SkillSummary]:
        return list(self._skills)

    def skill_listing(self) -> str | None:
        return self._skill_listing

    def set_skills(self, summaries: Sequence[SkillSummary], listing: str | None) -> None:
        """Install loaded skills (called by the skills connector)."""
        self._skills = sorted(summaries, key=lambda s: s.name)
        self._skill_listing = listing

    async def _connect(self) -> None:
        """Connect MCP servers, load skills and subagents: once, memoized. A
        failure clears the memo so a later `session()` can retry."""
        if self._connected:
            return
        if self._connect_task is None:
            self._connect_task = asyncio.ensure_future(self._do_connect())
        try:
            await asyncio.shield(self._connect_task)
        except BaseException:
            if self._connect_task is not None and self._connect_task.done():
                self._connect_task = None
            raise
        self._connected = True

    async def _do_connect(self) -> None:
        await connect_extensions(self, self.extensions)
        self.invalidate_system_prompt()

    # -- sessions ---------------------------------------------------------

    async def session(self, id: str | None = None, meta: Mapping[str, Any] | None = None) -> Session:
        """Create a session, or resume the one with `id` (an unknown id starts a
        new session with that id)."""
        if self._closed:
            raise ConfigError("Agent is closed")
        await self._connect()
        store = self.store
        live = self._sessions.get(id) if id is not None else None
        running_here = live is not None and live.is_running
        if id is not None and not running_here and isinstance(store, RunGuardStore):
            # One writer per session: hold its writer lock while loading and repairing it, so a
            # session running in another process is refused (SessionBusyError) before any write.
            async with store.run_guard(id):
                record, history = await self._load(id, meta, repair=True)
        else:
            record, history = await self._load(id, meta, repair=not running_here)
        session = Session(self, record, history)
        self._sessions[session.id] = session
        return session

    async def _load(
        self, id: str | None, meta: Mapping[str, Any] | None, *, repair: bool
    ) -> tuple[SessionRecord, list[Message]]:
        """Create or load the session, with its history (a dangling `tool_use` answered when `repair`)."""
        record = await self.store.create(id=id, meta=self._new_session_meta(meta))
        history = [m.message for m in await self.store.load_messages(record.id)] if id is not None else []
        if history and repair:
            history = await self._repair(record.id, history)
        return record, history

    def _new_session_meta(self, meta: Mapping[str, Any] | None) -> dict[str, Any]:
        """Meta for a new session: cwd, model and git branch, under the caller's."""
        base: dict[str, Any] = {"cwd": str(self.cwd), "model": self.model}
        branch = git_branch(self.cwd)
        if branch:
            base["git_branch"] = branch
        return {**base, **(meta or {})}

    async def fork_session(self, source_id: str, *, upto: int | None = None) -> Session:
        """Copy session `source_id` (its first `upto` messages, or all) into a new
        session and open it; the source is untouched. See `fork_session`."""
        record = await fork_session(self.store, source_id, upto=upto)
        return await self.session(record.id)

    async def _repair(self, session_id: str, history: list[Message]) -> list[Message]:
        """Answer any `tool_use` left without a result (a crash or kill mid-tool)."""
        dangling = dangling_tool_uses(history)
        if not dangling:
            return history
        fix = synthetic_results(dangling)
        await self.store.append_messages(session_id, [fix])
        return [*history, fix]

    def get_session(self, id: str) -> Session | None:
        """A live session object of this agent, by id."""
        return self._sessions.get(id)

    async def close(self) -> None:
        """Disconnect MCP servers and close the store (only if it was created)."""
        if self._closed:
            return
        self._closed = True
        await self._session_end_hooks()
        await close_extensions(self.extensions)
        await self.shell_policy.end_background()
        self.shell_policy.close()
        if self._store_created and self._store is not None:
            await self._store.close()

    async def _session_end_hooks(self) -> None:
        """SessionEnd hooks for each session that started (ran SessionStart) in this process.
        Their failures are not reported: nothing consumes events any more."""
        if self.hooks is None or not self.hooks.has("session_end"):
            return
        for session in list(self._sessions.values()):
            if session.session_started and not session.is_child:
                ctx = HookContext(
                    session_id=session.id, run_id="", cwd=str(self.cwd), permission_mode=self.permission_mode
                )
                await self.hooks.observe("SessionEnd", SessionEndInput(reason="other"), ctx)

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


def _with_plugin_servers(
    servers: Mapping[str, Mapping[str, Any]] | None, plugins: Sequence[Plugin]
) -> dict[str, dict[str, Any]]:
    """The MCP servers given, plus each plugin's unless that name is configured already."""
    out: dict[str, dict[str, Any]] = {k: dict(v) for k, v in (servers or {}).items()}
    for plugin in plugins:
        for name, entry in plugin.mcp_servers.items():
            out.setdefault(name, dict(entry))
    return out


def _real_directories(cwd: Path, directories: Sequence[str | os.PathLike[str]]) -> list[Path]:
    """`directories` (relative to `cwd`) as real paths, without duplicates."""
    if isinstance(directories, str | bytes | os.PathLike):
        raise ConfigError("additional_directories must be a list of directories")
    return list(dict.fromkeys(Path(os.path.realpath(cwd / Path(d).expanduser())) for d in directories))


def _variable_names(names: Sequence[str]) -> tuple[str, ...]:
    """`env_passthrough` checked: a list of variable names, not one string."""
    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise ConfigError("env_passthrough must be a list of variable names")
    return tuple(names)
