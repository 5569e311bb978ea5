"""`SkawldApp`: the interactive Textual chat over the agent loop.

The agent runs in one Textual worker per prompt (`exit_on_error=False`, so a
failure is shown, never fatal). Events go through `EventRenderer` into the
transcript; `can_use_tool` and AskUser open modal screens whose answers
resolve futures awaited in the run's own task. Typing while a run is going
steers it. The run lifecycle (start, steer, Esc/Ctrl+C stop, Ctrl+S finish
this step, Shift+Tab) lives in `RunController` (`app.runs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static
from textual.worker import Worker, WorkerState

from skawld_core.sessions.writer import SessionBusyError

from ..startup_gc import collect_idle
from ..transcript_model import cost_usd, history_items, restored_notice, tail_start
from .focus_guard import route_typing
from .run_state import RunState
from .sessions import SessionsMixin
from .widgets.prompt import AttachmentBar, AttachmentChip, CompletionList, PromptArea
from .widgets.status import StatusBar
from .widgets.transcript import HistoryMarker, Transcript, history_widgets

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.messages import Message
    from skawld_core.permissions import CanUseToolRequest, PermissionAllow, PermissionDeny
    from skawld_core.session import Session
    from skawld_core.sessions.store import SessionRecord

    from ..commands import AppHost
    from ..file_commands import PromptCommands
    from ..permission_broker import PermissionBroker
    from .composer import Composer
    from .run_controller import RunController
    from .widgets.renderer import EventRenderer

# What the first frame does not draw: imported after it, in a thread (`start_agent`),
# before the agent's own modules; a part used earlier imports its module on the spot.
AFTER_FIRST_FRAME = (
    "skawld_tui.app.widgets.blocks",
    "skawld_tui.app.widgets.renderer",
    "skawld_tui.app.composer",
    "skawld_tui.app.run_controller",
    "skawld_tui.permission_broker",
    "skawld_tui.app.screens.permission",
    "skawld_tui.app.screens.ask_user",
    "skawld_tui.app.screens.elicitation",
    "skawld_tui.file_commands",
    "skawld_tui.app.widgets.welcome",
    # what `build_agent` imports, so that the main thread only builds
    "skawld_core.agent",
    "skawld_core.tools.defaults",
    "skawld_core.providers.anthropic",
    "skawld_core.sessions.sqlite",
    "skawld_core.checkpoints",
    "skawld_core.sandbox.probe",
    "skawld_core.from_config",
)

AgentFactory = Callable[..., "Agent"]
RESUME_KEEP = 4  # messages mounted when a session is resumed; more until the view is full, the rest on scroll
RESUME_FETCH = 200  # messages read first when a session is resumed (shown before its whole history loads)
EARLIER_CHUNK = 40
MEASURE_INLINE = 2_000  # messages: a longer restored history has its context share estimated in a thread


class SkawldApp(SessionsMixin, App[int]):
    """The skawld chat app. `agent_factory(can_use_tool, ask_user)` builds the Agent."""

    CSS_PATH = str(Path(__file__).with_name("app.tcss"))
    TITLE = "skawld"
    SHOW_TIMINGS = True  # tests turn this off so snapshots hold no durations
    SHOW_WELCOME = True  # the first screen of a new session; tests turn it off (their own test shows it)
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+s", "finish_step", "Finish this step", show=False),
        Binding("ctrl+c", "ctrl_c", "Quit", priority=True, show=False),
        Binding("ctrl+q", "quit_app", "Quit", priority=True, show=False),
        Binding("shift+tab", "cycle_mode", "Mode", priority=True, show=False),
        Binding("ctrl+up", "load_earlier", "Earlier", show=False),
        Binding("ctrl+end", "follow", "Follow", show=False),
        Binding("ctrl+o", "toggle_panels", "Panels", show=False),
        # Ctrl+Z suspends to the shell (`fg` resumes), as in Claude Code; TextArea's undo loses it.
        Binding("ctrl+z", "suspend_process", "Suspend", priority=True, show=False),
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
        self.agent_factory = agent_factory
        self.resume_id = resume_id
        self.settings = settings
        self.initial_prompt = initial_prompt
        self.agent_ready = asyncio.Event()
        self.agent: Agent | None = None
        self.session: Session | None = None
        self.prompt_commands: PromptCommands | None = None
        self.session_ready = asyncio.Event()
        self.history_shown = asyncio.Event()  # a resumed session's last turns are on screen (before `session_ready`)
        self._preview: tuple[int, list[Message]] | None = None  # (first index, messages) shown before the load
        self.session_error: BaseException | None = None
        self._agent_closed = False
        self._quit_confirmed = False
        self._gc_thresholds = gc.get_threshold()  # restored on unmount
        self.state = RunState()

    # The parts below are built on first use: their modules are not needed for the
    # first frame (see AFTER_FIRST_FRAME).

    @cached_property
    def composer(self) -> Composer:
        """The prompt being written: completion, attachments, routing of a submitted line."""
        from .composer import Composer  # lazy: after the first frame

        return Composer(self)

    @cached_property
    def runs(self) -> RunController:
        """The run lifecycle: start, steer, interrupt, finish this step."""
        from .run_controller import RunController  # lazy: after the first frame

        return RunController(self)

    @cached_property
    def broker(self) -> PermissionBroker:
        """Permission answers: remembered rules, plans, the modal."""
        from ..permission_broker import PermissionBroker  # lazy: after the first frame
        from .screens.permission import AppPermissionAsker

        return PermissionBroker(AppPermissionAsker(self), lambda: self.agent, env=getattr(self.settings, "env", None))

    @cached_property
    def command_host(self) -> AppHost:
        """The `CommandHost` slash commands run against."""
        from ..commands import AppHost  # lazy: after the first frame

        return AppHost(self)

    @cached_property
    def renderer(self) -> EventRenderer:
        """Agent events into transcript widgets."""
        from .widgets.renderer import EventRenderer  # lazy: after the first frame

        return EventRenderer(
            self.transcript, model=lambda: self.agent.model if self.agent else "", show_timings=self.SHOW_TIMINGS
        )

    # -- layout ----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        yield CompletionList(id="completions")
        yield AttachmentBar(id="attachments")
        yield Static(id="history-search")
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
        gc.set_threshold(*GC_THRESHOLDS)
        self.transcript.anchor()
        self.completions.display = False
        prompt = self.prompt  # its hooks into the composer, which is built on first use
        prompt.has_attachments = lambda: bool(self.composer.images)
        prompt.image_paths = lambda text: self.composer.pasted_image_paths(text)
        prompt.cancel_shell = lambda: self.composer.cancel_shell()
        self.prompt.focus()
        self.call_after_refresh(self.start_agent)

    @work(group="start", exit_on_error=False)
    async def start_agent(self) -> None:
        """After the first frame: build the agent and open the session in the background.

        The app's later modules and the agent's (`AFTER_FIRST_FRAME`) are imported in a
        thread so keys keep flowing meanwhile; the provider's constructor starts warming
        its HTTP client (see `http_transport.prewarm`), so the first request of the first
        prompt pays for none of it. A prompt submitted before this finishes waits for it
        (or an `initial_prompt` given on the command line).
        """
        try:
            await asyncio.to_thread(_import_all, AFTER_FIRST_FRAME)
            self.agent = self.agent_factory(self.can_use_tool, self.ask_user)
            from .screens.elicitation import elicit_in_app  # lazy: imported above, after the first frame

            self.agent.elicit = lambda request: elicit_in_app(self, request)  # MCP servers' questions: a form
            self.agent.shell_policy.network_ask = self.broker.ask_network  # the sandbox's network question
        except Exception as exc:
            from .widgets.blocks import ErrorBlock  # lazy: after the first frame

            self.session_error = exc
            self.agent_ready.set()
            self.session_ready.set()
            self.history_shown.set()
            await self.transcript.mount(ErrorBlock("Could not start the agent", f"{type(exc).__name__}: {exc}"))
            return
        from ..file_commands import PromptCommands  # lazy: after the first frame

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
            await self.load_session(session_id, paint_first=True)
        except Exception as exc:
            self.session_error = exc
            self.session_ready.set()  # release waiting prompts; they report the error
            self.history_shown.set()
            raise

    async def load_session(self, session_id: str | None, *, paint_first: bool = False) -> None:
        """Create or resume a session and render its stored history.

        A resumed session's last turns are shown first, from the store's tail
        (`load_tail`); then its whole history is loaded and repaired under its writer
        lock (`Agent.session`), after they are painted when `paint_first` (only from a
        worker: a message handler waiting for a frame would hold it up). A prompt typed
        meanwhile stays on screen, below the history, and is sent once the session is open."""
        assert self.agent is not None
        self.session_ready.clear()
        self.history_shown.clear()
        if self.session is not None:  # another session was open: its transcript goes
            await self.transcript.clear()
            self.renderer.reset()
        shown = await self._show_tail(session_id) if session_id is not None else []
        if shown and paint_first:
            await self._painted()
        self.history_shown.set()
        try:
            session = await self.agent.session(session_id)
        except SessionBusyError as busy:  # running in another process: nothing was written; offer a fork
            await self._drop_preview(shown)
            self.offer_fork(busy)
            return
        preview = self._preview
        self.session, self._preview = session, None
        self.state.session_loaded(session.usage)
        history = session.full_history
        if preview is None or len(history) != preview[0] + len(preview[1]):
            # repaired (a dangling tool call answered) or written between the two reads: shown afresh
            await self._drop_preview(shown)
            await self._show_history(session, history, len(history))
        self._session_opened(session)

    async def _drop_preview(self, shown: list[Any]) -> None:
        """Remove the history shown before the load (`shown`, and earlier turns mounted
        above it meanwhile), not what was typed below it."""
        self._preview = None
        transcript = self.transcript
        if shown:
            children = list(transcript.children)
            last = children.index(shown[-1])
            await transcript.remove_children([c for c in children[: last + 1] if c is not transcript.marker])
        transcript.marker.set_hidden(0)

    async def _show_tail(self, session_id: str) -> list[Any]:
        """Mount the last turns of stored session `session_id` (its history is not loaded
        yet); the widgets mounted, none for a new or empty session."""
        assert self.agent is not None
        store = self.agent.store
        if not hasattr(store, "load_tail"):  # a store written before `load_tail`: shown once loaded
            return []
        total, tail = await store.load_tail(session_id, RESUME_FETCH)
        record = await store.load(session_id) if total else None
        if record is None:
            return []
        messages = [m.message for m in tail]
        self._preview = (total - len(messages), messages)
        return await self._show_history(record, messages, total)

    async def _show_history(self, session: Session | SessionRecord, messages: list[Message], total: int) -> list[Any]:
        """Mount the last turns of `messages` (the last of the `total` a session holds)
        above anything typed meanwhile, with the "restored" notice; the widgets mounted."""
        from .widgets.blocks import NoteLine  # lazy: after the first frame
        from .widgets.welcome import Welcome, WelcomeInfo

        transcript = self.transcript
        base = total - len(messages)
        if not messages:
            if self.SHOW_WELCOME and self.agent is not None:
                await transcript.mount(Welcome(WelcomeInfo.of(self.agent)))
            return []
        start = tail_start(messages, RESUME_KEEP)
        widgets = [
            *self._history_widgets(messages, start, len(messages), base),
            NoteLine(restored_notice(total, session)),
        ]
        await transcript.mount_all(widgets, after=transcript.marker)
        transcript.marker.set_hidden(base + start)
        return widgets

    async def _painted(self) -> None:
        """Wait until the screen has been refreshed (what was mounted is painted); then
        `history_shown` is set."""
        painted: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def done() -> None:
            self.history_shown.set()
            if not painted.done():
                painted.set_result(None)

        self.call_after_refresh(done)
        await painted

    def _session_opened(self, session: Session) -> None:
        """The session is open: its status line, then prompts waiting for it go."""
        usage = self.state.base_usage
        tokens, estimated, context_pct = usage.input_tokens + usage.output_tokens, False, 0
        measure_later = len(session.full_history) > MEASURE_INLINE
        if not measure_later:
            context_pct, size = self._estimated_context(session)
            if not tokens and size:  # no usage stored with it (an older or aborted session): its size, marked ~
                tokens, estimated = size, True
        self.status.set(
            session_id=session.id,
            context_pct=context_pct,
            tokens=tokens,
            size_estimated=estimated,
            cost=cost_usd(session.model, usage) if usage.input_tokens or usage.output_tokens else None,
        )
        self.session_ready.set()
        self.transcript.scroll_end(animate=False)
        self.transcript.call_after_refresh(self.transcript.fill_view)
        if measure_later:  # a long history is measured in a thread, once the transcript is painted
            self.call_after_refresh(self._measure_in_thread, session, not tokens)

    @work(group="measure", exit_on_error=False)
    async def _measure_in_thread(self, session: Session, show_size: bool) -> None:
        pct, size = await asyncio.to_thread(self._estimated_context, session)
        if session is self.session:
            if show_size and size:  # no stored usage: the status line shows the size, marked ~
                self.status.set(context_pct=pct, tokens=size, size_estimated=True)
            else:
                self.status.set(context_pct=pct)

    def _estimated_context(self, session: Session) -> tuple[int, int]:
        """The restored session's context share (percent) and size (tokens), estimated: no
        request has reported them yet."""
        if not session.full_history or self.agent is None:
            return 0, 0
        from ..commands.context import measure  # lazy: only a restored session is measured

        use = measure(self.agent, session)
        return (min(100, round(100 * use.used / use.window)) if use.window > 0 else 0), use.used

    def _loaded_history(self) -> tuple[int, list[Message]]:
        """The history at hand and the index of its first message: the whole history once
        the session is open, the tail shown first before that."""
        if self._preview is not None:  # (while another session may still be `self.session`)
            return self._preview
        return (0, self.session.full_history) if self.session is not None else (0, [])

    def _history_widgets(self, history: list[Message], start: int, end: int, base: int = 0) -> list[Any]:
        """Widgets for `history[start:end]`, `history` starting at message `base` of the session."""
        items = history_items(history[start:end], offset=base + start)
        registry = self.agent.tools if self.agent else None
        return history_widgets(items, show_timings=self.SHOW_TIMINGS, registry=registry)

    async def action_load_earlier(self, keep_position: bool = False) -> None:
        """Mount the previous chunk of history above what is shown, then show its top
        (or, with `keep_position`, keep on screen what was there)."""
        transcript = self.transcript
        marker = transcript.marker
        base, loaded = self._loaded_history()
        end = marker.hidden_messages
        history = loaded[: end - base] if end > base else []
        start = tail_start(history, EARLIER_CHUNK)
        if not history or (base > 0 and start == 0):  # the rest comes with the whole history
            transcript.loading_earlier = False
            return
        widgets = self._history_widgets(history, start, end - base, base)
        height = transcript.virtual_size.height
        transcript.loading_earlier = True  # our own scrolling below must not load more
        if widgets:
            await transcript.mount_all(widgets, after=marker)
        marker.set_hidden(base + start)

        def place() -> None:  # after the layout: the old top moved down by what was added
            if keep_position:
                transcript.scroll_to(y=max(0, transcript.virtual_size.height - height), animate=False, immediate=True)
            else:
                transcript.scroll_home(animate=False, immediate=True)
            transcript.loading_earlier = False
            transcript.call_after_refresh(transcript.fill_view)

        transcript.call_after_refresh(place)

    async def on_history_marker_load(self, message: HistoryMarker.Load) -> None:
        await self.action_load_earlier(message.keep_position)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "scroll_transcript":
            return len(self.screen_stack) == 1  # a modal keeps its own paging keys
        return True

    def action_scroll_transcript(self, direction: int) -> None:
        if direction < 0:
            self.transcript.scroll_page_up(animate=False)
        else:
            self.transcript.scroll_page_down(animate=False)

    def action_toggle_panels(self) -> None:
        self.renderer.toggle_panels()

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

    # thin bindings for the run lifecycle (`RunController`)

    @property
    def running(self) -> bool:
        return self.runs.running

    @property
    def runs_completed(self) -> int:
        return self.runs.runs_completed

    async def start_run(self, text: str, *, images: Any = (), context: Any = ()) -> None:
        await self.runs.start(text, images=images, context=context)

    async def prune_transcript(self) -> None:
        await self.transcript.prune()
        self.call_after_refresh(idle_gc)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            from .widgets.blocks import ErrorBlock  # lazy: after the first frame

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

    def on_prompt_area_history_search_changed(self, message: PromptArea.HistorySearchChanged) -> None:
        bar = self.query_one("#history-search", Static)
        bar.update(message.view or "")
        bar.display = message.view is not None

    async def on_prompt_area_remove_last_attachment(self, _: PromptArea.RemoveLastAttachment) -> None:
        await self.composer.remove_image()

    async def on_attachment_chip_remove(self, message: AttachmentChip.Remove) -> None:
        await self.composer.remove_image(message.index)

    # -- control -----------------------------------------------------------------------

    def action_interrupt(self) -> None:
        """Esc: close the completions, else stop the run at once (idle: Esc Esc rewinds)."""
        if self.completions.display:
            self.completions.show([])
            self.prompt.completing = False
            return
        self.runs.escape()

    def on_key(self, event: events.Key) -> None:
        route_typing(self, event)  # focus never traps typing

    def action_finish_step(self) -> None:
        self.runs.finish_step()

    async def action_ctrl_c(self) -> None:
        await self.runs.ctrl_c()

    async def action_quit_app(self) -> None:
        from ..commands.bashes import running_shells  # lazy: the command registry loads after the first frame

        host = self.command_host
        running = running_shells(host)
        if running and not self._quit_confirmed:
            shells = f"{running} background shell{'s' if running > 1 else ''}"

            async def picked(choice: str) -> None:
                if choice == "quit":
                    self._quit_confirmed = True
                    await self.action_quit_app()

            await host.choose(
                f"{shells} still running: quitting ends {'them' if running > 1 else 'it'}.",
                [("quit", f"Quit and end {shells}"), ("stay", "Stay")],
                picked,
            )
            return
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
        gc.set_threshold(*self._gc_thresholds)
        await self.close_agent()

    def action_cycle_mode(self) -> None:
        self.runs.cycle_mode()

    # -- callbacks from the agent --------------------------------------------------------

    async def can_use_tool(self, req: CanUseToolRequest) -> PermissionAllow | PermissionDeny:
        """The permission callback: the broker (plans, remembered rules, the modal)."""
        return await self.broker.can_use_tool(req)

    async def ask_user(self, request: Any) -> dict[str, Any]:
        """The AskUser handler: a modal with the questions."""
        from .screens.ask_user import AskUserScreen  # lazy: a screen, when the agent first asks
        from .screens.permission import ask_modal

        async with self.broker.lock:
            answer = await ask_modal(self, AskUserScreen(list(request.questions)))
        return answer if isinstance(answer, dict) else {"declined": True}


def _import_all(names: tuple[str, ...]) -> None:
    """Import `names` in order (run in a thread: the main thread keeps handling keys)."""
    import importlib

    for name in names:
        importlib.import_module(name)


def idle_gc() -> None:
    """Collect while idle (a run just ended) and freeze the survivors (`collect_idle`).

    Objects that outlive a run (history, mounted widgets) would otherwise be
    rescanned by every full collection during the next stream, which stalls the
    UI for hundreds of ms in long sessions. A full pass (which frees pruned
    widgets, cyclic garbage that was frozen) runs only once the frozen heap grew
    by a quarter, so its cost per turn does not grow with the session.
    """
    global _last_idle_gc
    now = time.monotonic()
    if now - _last_idle_gc < IDLE_GC_EVERY:
        return
    _last_idle_gc = now
    collect_idle()


IDLE_GC_EVERY = 5.0  # seconds; back-to-back short runs share one collection
# Streaming allocates many short-lived objects: rarer young collections, and far
# rarer full ones (idle_gc does those between runs), keep key presses under 100 ms.
GC_THRESHOLDS = (5000, 20, 100)
_last_idle_gc = 0.0
