"""``skawld acp``: skawld as an Agent Client Protocol agent over stdio (Zed, JetBrains, Neovim, Toad).

Built on the official `acp` package (PyPI ``agent-client-protocol``): it speaks the newline-delimited
JSON-RPC and validates every request, answering a malformed one with a JSON-RPC error. `SkawldAcp`
holds one skawld `Agent` and `Session` per ACP session (each with the ``cwd`` the client gives), maps
the run's events to ``session/update`` (`skawld_tui.acp.updates`) and turns a permission ask into
``session/request_permission`` (allow once, always — saved as the app's "always" —, reject).

When the client advertises ``fs.readTextFile`` / ``fs.writeTextFile``, Read, Write and Edit go
through the editor (`skawld_tui.acp.client_fs`): skawld's permission and path rules still decide
first. Bash keeps running in skawld's own sandbox, its output streamed to the editor as it comes
(`skawld_tui.acp.live_shell`). Each prompt ends with a ``usage_update``.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import acp
from acp import helpers
from acp.schema import (
    AgentCapabilities,
    AllowedOutcome,
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PermissionOption,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from skawld_core.events import (
    AssistantEvent,
    PartialAssistantEvent,
    PartialText,
    PartialThinking,
    ResultEvent,
    UsageEvent,
    UserEvent,
)
from skawld_core.messages import ToolResultBlock

from . import updates
from .prompt_blocks import prompt_parts
from .session_factory import AcpSession, list_sessions, open_acp_session, remember_always

if TYPE_CHECKING:
    from skawld_core.permissions import CanUseToolRequest
    from skawld_core.settings import CliOptions

MODES = {
    "default": ("Default", "Ask before edits and commands"),
    "acceptEdits": ("Accept edits", "Edit files in the project without asking"),
    "plan": ("Plan", "Read-only: explore and propose a plan"),
    "yolo": ("Yolo", "Run everything without asking (bypassPermissions)"),
}
_STOP = {"success": "end_turn", "max_turns": "max_turn_requests", "aborted": "cancelled", "interrupted": "cancelled"}
_PERMISSION_OPTIONS = [
    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
]


class SkawldAcp:
    """The ACP agent (the `acp.Agent` protocol)."""

    def __init__(self, options: CliOptions) -> None:
        self.options = options
        self.conn: Any = None
        self.client_caps: ClientCapabilities | None = None
        self.sessions: dict[str, AcpSession] = {}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # -- the handshake ---------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        from skawld_core import __version__

        self.client_caps = client_capabilities
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
                mcp_capabilities=McpCapabilities(http=True, sse=True),
                session_capabilities=SessionCapabilities(
                    list=SessionListCapabilities(),
                    resume=SessionResumeCapabilities(),
                    close=SessionCloseCapabilities(),
                ),
            ),
            auth_methods=[],
            agent_info=Implementation(name="skawld", title="skawld", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse | None:
        """Nothing to do: the API key comes from the environment (a missing one fails session/new)."""
        return AuthenticateResponse()

    # -- sessions --------------------------------------------------------------------

    async def _open(self, cwd: str, session_id: str | None, mcp_servers: Any) -> AcpSession:
        fs = self.client_caps.fs if self.client_caps is not None else None
        state = await open_acp_session(
            self.options,
            cwd,
            session_id,
            mcp_servers,
            can_use_tool=lambda ref: self.can_use_tool(self.sessions, ref),
            conn=self.conn,
            editor_reads=bool(fs and fs.read_text_file),
            editor_writes=bool(fs and fs.write_text_file),
        )
        old = self.sessions.get(state.session.id)
        self.sessions[state.session.id] = state
        if old is not None:  # the same session opened again (load after new): the new agent serves it
            await old.agent.close()
        return state

    def _modes(self, state: AcpSession) -> SessionModeState:
        return SessionModeState(
            current_mode_id=state.agent.permissions.mode,
            available_modes=[SessionMode(id=k, name=n, description=d) for k, (n, d) in MODES.items()],
        )

    def _config(self, state: AcpSession) -> list[Any]:
        return [
            SessionConfigOptionSelect(
                id="model",
                name="Model",
                category="model",
                type="select",
                current_value=state.session.model,
                options=[SessionConfigSelectOption(value=m, name=m) for m in state.models],
            )
        ]

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any) -> NewSessionResponse:
        state = await self._open(cwd, None, mcp_servers)
        await self._announce_commands(state)
        return NewSessionResponse(
            session_id=state.session.id, modes=self._modes(state), config_options=self._config(state)
        )

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse | None:
        state = await self._open(cwd, session_id, mcp_servers)
        stored = await state.agent.store.load_messages(session_id)
        for update in updates.replay((m.message for m in stored), state.cwd):
            await self.conn.session_update(session_id, update)
        await self._announce_commands(state)
        return LoadSessionResponse(modes=self._modes(state), config_options=self._config(state))

    async def resume_session(
        self, session_id: str, cwd: str, mcp_servers: Any = None, **kwargs: Any
    ) -> ResumeSessionResponse:
        """Open a stored session without replaying it (the client already shows it)."""
        state = await self._open(cwd, session_id, mcp_servers)
        await self._announce_commands(state)
        return ResumeSessionResponse(modes=self._modes(state), config_options=self._config(state))

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse | None:
        """End the session here: stop its prompt, its background shells and MCP servers, and
        close its store (which releases the session for other writers)."""
        state = self._state(session_id)
        del self.sessions[session_id]
        await _shut(state)
        return CloseSessionResponse()

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any) -> Any:
        rows = await list_sessions(self.options, cwd)
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=r.id,
                    cwd=cwd or str(Path.cwd()),
                    title=r.meta.get("title") if isinstance(r.meta.get("title"), str) else None,
                    updated_at=r.updated_at,
                )
                for r in rows
            ]
        )

    def _state(self, session_id: str) -> AcpSession:
        state = self.sessions.get(session_id)
        if state is None:
            raise acp.RequestError.invalid_params({"sessionId": f"no open session {session_id!r}"})
        return state

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> SetSessionModeResponse | None:
        state = self._state(session_id)
        if mode_id not in MODES:
            raise acp.RequestError.invalid_params({"modeId": f"unknown mode {mode_id!r} (expected {', '.join(MODES)})"})
        state.agent.set_permission_mode(mode_id)  # type: ignore[arg-type]
        await self.conn.session_update(session_id, helpers.update_current_mode(mode_id))
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: Any
    ) -> SetSessionConfigOptionResponse | None:
        state = self._state(session_id)
        if config_id != "model" or not isinstance(value, str) or not value:
            raise acp.RequestError.invalid_params({"configId": f"unknown option {config_id!r} or value {value!r}"})
        state.agent.model = value
        if value not in state.models:
            state.models.append(value)
        return SetSessionConfigOptionResponse(config_options=self._config(state))

    async def _announce_commands(self, state: AcpSession) -> None:
        from ..file_commands import PromptCommands  # lazy: command files are read once a session opens

        rows = PromptCommands(state.agent, home=Path.home()).completions()
        commands = [
            {"name": name, "description": description or name, "input": {"hint": hint} if hint else None}
            for name, hint, description in rows
        ]
        from acp.schema import AvailableCommand

        update = helpers.update_available_commands([AvailableCommand.model_validate(c) for c in commands])
        await self.conn.session_update(state.session.id, update)

    # -- prompts ---------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        state = self._state(session_id)
        if state.running is not None and not state.running.done():
            raise acp.RequestError.invalid_request({"sessionId": "a prompt is already running in this session"})
        text, images = prompt_parts(prompt)
        state.cancelled = False
        state.running = asyncio.current_task()
        try:
            result = await self._run(state, text, images)
        finally:
            state.running = None
        if state.cancelled or result is None:
            return PromptResponse(stop_reason="cancelled")
        return PromptResponse(
            stop_reason=_STOP.get(result.subtype, "end_turn"), usage=updates.prompt_usage(result.total_usage)
        )

    async def _run(self, state: AcpSession, text: str, images: list[dict[str, Any]]) -> ResultEvent | None:
        send = self.conn.session_update
        sid = state.session.id
        streamed = False
        names: dict[str, str] = {}  # tool_use id → tool name, for the task tools' plan
        result: ResultEvent | None = None
        last_turn = None
        async with state.session.run(text, images=images) as run:
            async for event in run:
                if isinstance(event, PartialAssistantEvent):
                    if isinstance(event.delta, PartialText) and event.delta.text:
                        streamed = True
                        await send(sid, helpers.update_agent_message_text(event.delta.text))
                    elif isinstance(event.delta, PartialThinking) and event.delta.text:
                        await send(sid, helpers.update_agent_thought_text(event.delta.text))
                elif isinstance(event, AssistantEvent):
                    if not streamed and event.message.text():
                        await send(sid, helpers.update_agent_message_text(event.message.text()))
                    streamed = False
                    for block in event.message.tool_uses():
                        names[block.id] = block.name
                        before = await self._editor_text(state, updates.edited_path(block, state.cwd))
                        await send(sid, updates.tool_call_start(block, state.cwd, before))
                elif isinstance(event, UserEvent) and event.subtype == "tool_result":
                    results = [p for p in event.message.content if isinstance(p, ToolResultBlock)]
                    for part in results:
                        await send(sid, updates.tool_call_done(part))
                    if any(names.get(p.tool_use_id) in updates.TASK_TOOLS for p in results):
                        tasks = await state.agent.store.list_tasks(sid)
                        await send(sid, updates.plan_of(tasks))
                elif isinstance(event, UsageEvent):
                    last_turn = event.usage
                elif isinstance(event, ResultEvent):
                    result = event
        if result is not None and result.total_cost_usd is not None:
            state.cost_usd = (state.cost_usd or 0.0) + result.total_cost_usd
        window = state.agent.provider.context_window(state.agent.model)
        await send(sid, updates.usage_update(last_turn, window, state.cost_usd))
        return result

    async def _editor_text(self, state: AcpSession, path: Path | None) -> str | None:
        """The editor's text of `path` (its unsaved buffer) when it reads files for us, else None."""
        fs = self.client_caps.fs if self.client_caps is not None else None
        if path is None or fs is None or not fs.read_text_file:
            return None
        try:
            answer = await self.conn.read_text_file(session_id=state.session.id, path=str(path))
        except Exception:  # no such file in the editor either: the diff falls back to the disk
            return None
        return str(answer.content)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        state = self.sessions.get(session_id)
        if state is None:
            return
        state.cancelled = True
        state.session.abort()

    # -- permissions -----------------------------------------------------------------

    def can_use_tool(self, state_ref: Mapping[str, AcpSession], session_id: list[str]) -> Any:
        """skawld's `can_use_tool` for one ACP session: ``session/request_permission``."""
        from skawld_core.permissions import PermissionAllow, PermissionDeny

        async def ask(req: CanUseToolRequest) -> Any:
            sid = session_id[0]
            state = state_ref.get(sid)
            tool_call = helpers.update_tool_call(
                req.tool_use_id,
                title=updates.title_of(req.tool_name, req.input),
                kind=updates.kind_of(req.tool_name),  # type: ignore[arg-type]
                status="pending",
                raw_input=dict(req.input),
                locations=updates.locations_of(req.input, state.cwd) if state else None,
            )
            try:
                answer = await self.conn.request_permission(
                    session_id=sid, tool_call=tool_call, options=_PERMISSION_OPTIONS
                )
            except Exception as exc:  # the client went away or answered with an error
                return PermissionDeny(message=f"permission request failed: {exc}")
            outcome = answer.outcome
            if not isinstance(outcome, AllowedOutcome) or outcome.option_id == "reject_once":
                return PermissionDeny(message="The user rejected this tool call in the editor.")
            if outcome.option_id == "allow_always" and state is not None:
                remember_always(state.agent, req)
            return PermissionAllow()

        return ask


def run_acp(options: CliOptions) -> int:
    """Serve ACP on stdin/stdout until the client closes stdin; the exit code."""
    agent = SkawldAcp(options)
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # only the protocol goes to the real stdout
    try:
        asyncio.run(_serve(agent, real_stdout))
    except KeyboardInterrupt:
        return 130
    finally:
        sys.stdout = real_stdout
    return 0


async def _serve(agent: SkawldAcp, stdout: Any) -> None:
    from acp.stdio import stdio_streams

    stray, sys.stdout = sys.stdout, stdout  # the protocol's pipe is bound to the real stdout
    try:
        reader, writer = await stdio_streams()
    finally:
        sys.stdout = stray
    try:
        # unstable: session/resume and session/close are still marked so in the 0.12 schema
        await acp.run_agent(agent, writer, reader, use_unstable_protocol=True)  # type: ignore[arg-type]
    finally:  # the client closed stdin: end every session's work (MCP servers, shells) and exit
        for state in list(agent.sessions.values()):
            await _shut(state)


async def _shut(state: AcpSession) -> None:
    """Abort the session's prompt, wait for it to end, and close its agent."""
    running = state.running
    if running is not None and not running.done():
        state.cancelled = True
        state.session.abort()
        await asyncio.wait([running], timeout=10)
    await state.agent.close()
