"""`SkawldApp`: the interactive Textual chat over the agent loop.

The agent runs in one Textual worker per prompt (`exit_on_error=False`, so a
failure is shown, never fatal). Events go through `EventRenderer` into the
transcript; `can_use_tool` and AskUser open modal screens whose answers
resolve futures awaited in the run's own task. Typing while a run is going
steers it; Esc interrupts (twice: abort); Ctrl+C twice quits.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.worker import Worker, WorkerState

from skawld_core.events import (
    PermissionRequestEvent,
    ResultEvent,
    SubagentEvent,
    SystemEvent,
    ToolCallEndEvent,
    UsageEvent,
    UserEvent,
)
from skawld_core.messages import Usage
from skawld_core.permissions import PermissionAllow, PermissionDeny

from . import slash_commands
from .app_sessions import SessionsMixin
from .commands import AppHost
from .composer import Composer
from .file_commands import PromptCommands
from .permission_broker import PermissionBroker
from .screens.ask_user import AskUserScreen
from .screens.permission import AppPermissionAsker, ask_modal
from .transcript_model import context_percent, cost_usd, history_items, tail_start
from .widgets.blocks import ErrorBlock, NoteLine, UserMessage
from .widgets.prompt import AttachmentBar, AttachmentChip, CompletionList, PromptArea
from .widgets.renderer import EventRenderer
from .widgets.status import StatusBar, sandbox_label
from .widgets.transcript import HistoryMarker, Transcript, history_widgets

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.messages import Message
    from skawld_core.permissions import CanUseToolRequest
    from skawld_core.session import Session

AgentFactory = Callable[..., "Agent"]
RESUME_KEEP = 40  # messages rendered when a session is resumed; the rest on demand
EARLIER_CHUNK = 40


class SkawldApp(SessionsMixin, App[int]):
    """The skawld chat app. `agent_factory(can_use_tool, ask_user)` builds the Agent."""

    CSS_PATH = str(Path(__file__).with_name("app.tcss"))
    TITLE = "skawld"
    SHOW_TIMINGS = True  # tests turn this off so snapshots hold no durations
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Quit", priority=True, show=False),
        Binding("ctrl+q", "quit_app", "Quit", priority=True, show=False),
        Binding("shift+tab", "cycle_mode", "Mode", priority=True, show=False),
        Binding("ctrl+up", "load_earlier", "Earlier", show=False),
        Binding("ctrl+end", "follow", "Follow", show=False),
        Binding("pageup", "scroll_transcript(-1)", "Page up", show=False, priority=True),
        Binding("pagedown", "scroll_transcript(1)", "Page down", show=False, priority=True),
    ]

    def __init__(
        self,
        *,
        agent_factory: AgentFactory,
        resume_id: str | None = None,
        settings: Any = None,
        initial_prompt: str | None = None,
        pick_session: bool = False,
        fork_picked: bool = False,
    ) -> None:
        super().__init__()
        self.pick_session = pick_session
        self.fork_picked = fork_picked
        self._last_idle_escape = 0.0
        self.agent_factory = agent_factory
        self.resume_id = resume_id
        self.settings = settings
        self.initial_prompt = initial_prompt
        self.agent_ready = asyncio.Event()
        self.agent: Agent | None = None
        self.session: Session | None = None
        self.prompt_commands: PromptCommands | None = None
        self.command_host = AppHost(self)
        self.session_ready = asyncio.Event()
        self.session_error: BaseException | None = None
        self._agent_closed = False
        self.running = False
        self.runs_completed = 0
        self.broker = PermissionBroker(AppPermissionAsker(self), lambda: self.agent, env=getattr(settings, "env", None))
        self._interrupt_pressed = False
        self._last_ctrl_c = 0.0
        self._base_usage = Usage()
        self._last_usage: Usage | None = None
        self._pending_steers: list[tuple[str, asyncio.Future[None], NoteLine]] = []
        self._queued_prompts: list[str] = []
        self._asks_total = 0
        self._asks_done = 0
        self.renderer: EventRenderer
        self.composer = Composer(self)

    # -- layout ----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        yield CompletionList(id="completions")
        yield AttachmentBar(id="attachments")
        yield PromptArea(id="prompt")
        yield StatusBar()

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def prompt(self) -> PromptArea:
        return self.query_one(PromptArea)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    @property
    def completions(self) -> CompletionList:
        return self.query_one(CompletionList)

    async def on_mount(self) -> None:
        # Everything alive now (modules, the base layout) lives as long as the app:
        # keep it out of the cyclic GC's full scans, which otherwise stall the UI.
        gc.freeze()
        self.transcript.anchor()
        self.completions.display = False
        self.renderer = EventRenderer(
            self.transcript, model=lambda: self.agent.model if self.agent else "", show_timings=self.SHOW_TIMINGS
        )
        self.composer.bind_prompt(self.prompt)
        self.prompt.focus()
        self.call_after_refresh(self.start_agent)

    @work(group="start", exit_on_error=False)
    async def start_agent(self) -> None:
        """After the first frame: build the agent and open the session in the background.

        The agent modules are imported in a thread so keys keep flowing meanwhile; the
        provider's constructor starts warming its HTTP client (see `http_transport.prewarm`),
        so the first request of the first prompt pays for none of it. A prompt submitted
        before this finishes waits for it (or an `initial_prompt` given on the command line).
        """
        import importlib

        try:
            await asyncio.to_thread(importlib.import_module, "skawld_core.agent")
            self.agent = self.agent_factory(self.can_use_tool, self.ask_user)
        except Exception as exc:
            self.session_error = exc
            self.agent_ready.set()
            self.session_ready.set()
            await self.transcript.mount(ErrorBlock("Could not start the agent", f"{type(exc).__name__}: {exc}"))
            return
        self.renderer.registry = self.agent.tools
        self.renderer.cwd = self.agent.cwd
        self.composer.agent_ready(self.agent.cwd)
        trusted = bool(getattr(self.settings, "project_trusted", False))
        self.prompt_commands = PromptCommands(self.agent, home=Path.home(), trusted=trusted)
        self.status.set(model=self.agent.model, mode=self.agent.permission_mode)
        self.agent_ready.set()
        self.open_session(self.resume_id)
        if self.pick_session:
            self.open_start_picker()

        if self.initial_prompt:
            prompt, self.initial_prompt = self.initial_prompt, None
            await self.submit(prompt)

    @work(group="session", exit_on_error=False)
    async def open_start_picker(self) -> None:
        """``skawld --resume`` without an id: the picker over a fresh session."""
        await self.session_ready.wait()
        await self.open_picker(fork=self.fork_picked)

    # -- sessions ----------------------------------------------------------------

    @work(group="session", exit_on_error=False)
    async def open_session(self, session_id: str | None) -> None:
        try:
            await self.load_session(session_id)
        except Exception as exc:
            self.session_error = exc
            self.session_ready.set()  # release waiting prompts; they report the error
            raise

    async def load_session(self, session_id: str | None) -> None:
        """Create or resume a session and render its stored history."""
        assert self.agent is not None
        self.session_ready.clear()
        session = await self.agent.session(session_id)
        self.session = session
        await self.transcript.clear()
        self.renderer.reset()
        self._base_usage = session.usage
        self._last_usage = None
        history = session.full_history
        if history:
            start = tail_start(history, RESUME_KEEP)
            await self.transcript.mount_all(self._history_widgets(history, start, len(history)))
            self.transcript.marker.set_hidden(start)
            await self.transcript.mount(NoteLine(restored_notice(session)))
        usage = self._base_usage
        self.status.set(
            session_id=session.id,
            context_pct=0,
            tokens=usage.input_tokens + usage.output_tokens,
            cost=cost_usd(session.model, usage) if usage.input_tokens or usage.output_tokens else None,
        )
        self.session_ready.set()
        self.transcript.scroll_end(animate=False)

    def _history_widgets(self, history: list[Message], start: int, end: int) -> list[Any]:
        items = history_items(history[start:end], offset=start)
        registry = self.agent.tools if self.agent else None
        return history_widgets(items, show_timings=self.SHOW_TIMINGS, registry=registry)

    async def action_load_earlier(self) -> None:
        """Mount the previous chunk of history above what is shown."""
        marker = self.transcript.marker
        if self.session is None or marker.hidden_messages <= 0:
            return
        end = marker.hidden_messages
        history = self.session.full_history[:end]
        start = tail_start(history, EARLIER_CHUNK)
        widgets = self._history_widgets(history, start, end)
        if widgets:
            await self.transcript.mount_all(widgets, after=marker)
        marker.set_hidden(start)
        self.transcript.scroll_home(animate=False)

    async def on_history_marker_load(self, _: HistoryMarker.Load) -> None:
        await self.action_load_earlier()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "scroll_transcript":
            return len(self.screen_stack) == 1  # a modal keeps its own paging keys
        return True

    def action_scroll_transcript(self, direction: int) -> None:
        if direction < 0:
            self.transcript.scroll_page_up(animate=False)
        else:
            self.transcript.scroll_page_down(animate=False)

    def action_follow(self) -> None:
        self.transcript.scroll_end(animate=False)
        self.transcript.anchor()

    # -- prompt -------------------------------------------------------------------

    async def on_prompt_area_submitted(self, message: PromptArea.Submitted) -> None:
        self.completions.show([])
        self.prompt.completing = False
        await self.submit(message.text)

    async def submit(self, text: str) -> None:
        """Handle one submitted prompt: a slash command, a `!cmd`, a steer, or a new run."""
        await self.composer.submit(text)

    def _steer(self, text: str, *, images: Any = (), context: Any = ()) -> None:
        session = self.session
        note = NoteLine(f"queued: {text}", classes="note queued")
        if session is not None and session.is_running:
            future = session.steer(text, images=images, context=context)
            self._pending_steers.append((text, future, note))
        else:
            self._queued_prompts.append(text)
        self.transcript.mount(note)

    async def start_run(self, text: str, *, images: Any = (), context: Any = ()) -> None:
        if self.agent is None and self.agent_ready.is_set():
            return  # the agent could not be built (the error is shown)
        index = len(self.session.full_history) if self.session is not None and self.session_ready.is_set() else None
        self.running = True
        self._interrupt_pressed = False
        self.status.set(state="● running (esc: interrupt)")
        await self.transcript.mount(UserMessage(text, history_index=index))
        self.transcript.anchor()
        self.run_agent(text, images, context)

    @work(group="agent", exit_on_error=False)
    async def run_agent(self, text: str, images: Any = (), context: Any = ()) -> None:
        try:
            await self.session_ready.wait()
            session = self.session
            if session is None:
                raise RuntimeError(f"no session could be opened: {self.session_error}")
            last = [c for c in self.transcript.children if isinstance(c, UserMessage)]
            if last and last[-1].history_index is None:
                last[-1].history_index = len(session.full_history)
            async with session.run(text, images=images, context=context) as run:
                async for event in run:
                    await self.renderer.apply(event)
                    self._observe(event)
            await self.checkpoint_notice(session)
        finally:
            await self._run_finished()

    def _observe(self, event: Any) -> None:
        inner = event
        while isinstance(inner, SubagentEvent):
            inner = inner.event
        if isinstance(inner, PermissionRequestEvent):  # a subagent's batch is numbered too
            self._asks_total, self._asks_done = len(inner.requests), 0
            return
        if isinstance(event, PermissionRequestEvent):
            self._asks_total, self._asks_done = len(event.requests), 0
        elif isinstance(event, SystemEvent):
            self.status.set(session_id=event.session_id, model=event.model, mode=event.permission_mode)
            self.status.set(sandbox=sandbox_label(event.sandbox))
        elif isinstance(event, UsageEvent):
            self._last_usage = event.usage
            total = self._base_usage + event.cumulative
            window = self.agent.provider.context_window(self.agent.model) if self.agent else 0
            self.status.set(
                context_pct=context_percent(event.usage, window),
                tokens=total.input_tokens + total.output_tokens,
                cost=cost_usd(self.agent.model, total) if self.agent else None,
            )
        elif isinstance(event, UserEvent) and event.subtype == "steering" and self._pending_steers:
            _, _, note = self._pending_steers.pop(0)
            note.remove()
        elif isinstance(event, ResultEvent):
            self._base_usage = self._base_usage + event.total_usage
        elif isinstance(event, ToolCallEndEvent) and event.tool_name == "ExitPlanMode" and self.agent is not None:
            self.status.set(mode=self.agent.permission_mode)  # an approved plan leaves plan mode

    async def _run_finished(self) -> None:
        self.running = False
        self._interrupt_pressed = False
        self.runs_completed += 1
        self.status.set(state="")
        root = self.renderer.sinks.get(())
        if root is not None:
            try:
                await self.renderer.close_text(root)
            except Exception:
                pass
        self.renderer.reset()
        leftovers = [t for t, f, note in self._pending_steers if f.done() and not f.cancelled() and f.exception()]
        for _, _, note in self._pending_steers:
            note.remove()
        self._pending_steers.clear()
        queued = leftovers + self._queued_prompts
        self._queued_prompts = []
        self.call_after_refresh(self._prune_transcript)
        if queued:
            await self.start_run("\n\n".join(queued))

    async def _prune_transcript(self) -> None:
        await self.transcript.prune()
        self.call_after_refresh(idle_gc)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            error = event.worker.error
            self.transcript.mount(ErrorBlock(f"{type(error).__name__}", str(error)))
            if event.worker.group == "session":
                self.notify("could not open the session", severity="error")

    # -- completion ------------------------------------------------------------------

    def on_text_area_changed(self, event: PromptArea.Changed) -> None:
        if event.text_area is not self.prompt:
            return
        self.composer.update_completions()

    def on_prompt_area_move_completion(self, message: PromptArea.MoveCompletion) -> None:
        self.completions.move(message.step)

    async def on_prompt_area_accept_completion(self, message: PromptArea.AcceptCompletion) -> None:
        await self.composer.accept_completion(message.submit)

    async def on_prompt_area_paste_requested(self, _: PromptArea.PasteRequested) -> None:
        self.run_worker(self.composer.paste(), group="composer-paste", exit_on_error=False)

    async def on_prompt_area_images_pasted(self, message: PromptArea.ImagesPasted) -> None:
        await self.composer.add_image_paths(message.paths)

    async def on_prompt_area_remove_last_attachment(self, _: PromptArea.RemoveLastAttachment) -> None:
        await self.composer.remove_image()

    async def on_attachment_chip_remove(self, message: AttachmentChip.Remove) -> None:
        await self.composer.remove_image(message.index)

    # -- control -----------------------------------------------------------------------

    def action_interrupt(self) -> None:
        """Esc: interrupt at the next turn boundary; a second Esc aborts at once."""
        if self.completions.display:
            self.completions.show([])
            self.prompt.completing = False
            return
        session = self.session
        if not self.running and session is not None and not self.prompt.text and len(self.screen_stack) == 1:
            now = time.monotonic()
            if now - self._last_idle_escape < 0.8:
                self._last_idle_escape = 0.0
                self.run_worker(self.open_rewind(), group="rewind", exit_on_error=False)
            else:
                self._last_idle_escape = now
            return
        if not self.running or session is None:
            return
        if not self._interrupt_pressed:
            self._interrupt_pressed = True
            session.interrupt()
            self.status.set(state="● interrupting (esc: abort)")
        else:
            session.abort()
            self.status.set(state="● aborting")

    async def action_ctrl_c(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c < 2.0:
            await self.action_quit_app()
            return
        self._last_ctrl_c = now
        if self.prompt.text:
            self.prompt.clear()
        self.notify("Press Ctrl+C again to quit", timeout=2)

    async def action_quit_app(self) -> None:
        await self.close_agent()
        self.exit(0)

    async def close_agent(self) -> None:
        """Abort a running turn and close the agent (MCP servers, the store's
        connection thread) once, whichever way the app ends."""
        if self._agent_closed:
            return
        self._agent_closed = True
        if self.session is not None:
            self.session.abort()
        self.workers.cancel_group(self, "agent")
        if self.agent is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.agent.close(), 5.0)

    async def on_unmount(self) -> None:
        await self.close_agent()

    def action_cycle_mode(self) -> None:
        if self.agent is None:
            return
        mode = slash_commands.next_mode(self.agent.permission_mode)
        self.agent.set_permission_mode(mode)  # type: ignore[arg-type]
        self.status.set(mode=mode)

    # -- callbacks from the agent --------------------------------------------------------

    async def can_use_tool(self, req: CanUseToolRequest) -> PermissionAllow | PermissionDeny:
        """The permission callback: the broker (plans, remembered rules, the modal)."""
        return await self.broker.can_use_tool(req)

    async def ask_user(self, request: Any) -> dict[str, Any]:
        """The AskUser handler: a modal with the questions."""
        async with self.broker.lock:
            answer = await ask_modal(self, AskUserScreen(list(request.questions)))
        return answer if isinstance(answer, dict) else {"declined": True}


def restored_notice(session: Session) -> str:
    """``restored N messages, last activity 5m ago`` for a resumed session."""
    from skawld_core.sessions.listing import ago

    history = session.full_history
    last = ago(session.updated_at)
    title = f" · {session.title}" if session.title else ""
    return f"restored {len(history)} messages, last activity {last} · session {session.id[:8]}{title}"


def idle_gc() -> None:
    """A full collection while idle (a run just ended), then freeze the survivors.

    Objects that outlive a run (history, mounted widgets) would otherwise be
    rescanned by every full collection during the next stream, which stalls the
    UI for hundreds of ms in long sessions. Unfreezing first lets pruned widgets
    (cyclic garbage) be collected.
    """
    global _last_idle_gc
    now = time.monotonic()
    if now - _last_idle_gc < IDLE_GC_EVERY:
        return
    _last_idle_gc = now
    gc.unfreeze()
    gc.collect()
    gc.freeze()


IDLE_GC_EVERY = 5.0  # seconds; back-to-back short runs share one collection
_last_idle_gc = 0.0
