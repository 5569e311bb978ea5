"""The app's run lifecycle: start a run, steer it, stop it, finish it, cycle the mode.

`RunController` owns everything between "a prompt was submitted" and "the
prompt is ready again": the worker that drives `session.run()`, the steers and
prompts queued meanwhile, and the keys that stop a run:

- Esc / Ctrl+C while a run is going stop it at once (`session.abort()`: the
  provider stream is cancelled, running tools and their process trees are
  ended, the transcript stays valid, the result is `aborted`);
- Ctrl+S asks it to finish the current step (`session.interrupt()`: stop at
  the next turn boundary, result `interrupted`);
- when idle, Esc Esc on an empty prompt opens the rewind picker, Ctrl+C copies
  the selection if there is one, else clears the prompt, and a second Ctrl+C
  within 2 s quits.

The app keeps thin bindings that call into this object (`app.runs`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skawld_core.events import (
    PermissionRequestEvent,
    ResultEvent,
    SubagentEvent,
    SystemEvent,
    ToolCallEndEvent,
    UsageEvent,
    UserEvent,
)

from ..transcript_model import context_percent, cost_usd
from .widgets.blocks import NoteLine, UserMessage
from .widgets.status import sandbox_label

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Sequence

    from skawld_core.session import ImageSpec

    from .host import ChatApp

RUNNING_STATE = "● running (esc: interrupt)"  # Claude Code's words; ctrl+s finishes the step
FINISHING_STATE = "● finishing this step (esc: stop now)"
IDLE_ESCAPE_WINDOW = 0.8  # seconds between the two Esc presses that open the rewind picker
QUIT_WINDOW = 2.0  # seconds between the two Ctrl+C presses that quit


@dataclass(frozen=True)
class _Prompt:
    """A prompt waiting for the next run, with what the composer attached to it."""

    text: str
    images: tuple[ImageSpec, ...] = ()
    context: tuple[str, ...] = ()


class RunController:
    """Starts, steers and stops the app's runs (one at a time)."""

    def __init__(self, app: ChatApp) -> None:
        self.app = app
        self.running = False
        self.runs_completed = 0
        self.stopping = False  # Esc / Ctrl+C: the run is being aborted
        self.finishing_step = False  # Ctrl+S: the run stops at the next turn boundary
        self._pending_steers: list[tuple[_Prompt, asyncio.Future[None], NoteLine]] = []
        self._queued_prompts: list[_Prompt] = []
        self._last_idle_escape = 0.0
        self._last_ctrl_c = 0.0

    # -- starting and steering ------------------------------------------------------

    def steer(self, text: str, *, images: Sequence[ImageSpec] = (), context: Sequence[str] = ()) -> None:
        """Text submitted while a run is going: steer it (or queue it for the next run
        when the run is being stopped or has not reached the model yet; a queued
        prompt keeps its images and context blocks)."""
        session = self.app.session
        note = NoteLine(f"queued: {text}", classes="note queued")
        prompt = _Prompt(text, tuple(images), tuple(context))
        if session is not None and session.is_running and not self.stopping:
            future = session.steer(text, images=images, context=context)
            self._pending_steers.append((prompt, future, note))
        else:
            self._queued_prompts.append(prompt)
        self.app.transcript.mount(note)

    async def start(self, text: str, *, images: Sequence[ImageSpec] = (), context: Sequence[str] = ()) -> None:
        """Show `text` as the user's message and start a run with it (and the
        composer's `images` and `context` blocks) in a worker."""
        app = self.app
        if app.agent is None and app.agent_ready.is_set():
            return  # the agent could not be built (the error is shown)
        session = app.session
        index = len(session.full_history) if session is not None and app.session_ready.is_set() else None
        self.running = True
        self.stopping = self.finishing_step = False
        app.status.set(state=RUNNING_STATE)
        await app.transcript.mount(UserMessage(text, history_index=index))
        app.transcript.anchor()
        app.run_worker(self._drive(text, images, context), group="agent", exit_on_error=False)

    async def _drive(self, text: str, images: Sequence[ImageSpec], context: Sequence[str]) -> None:
        app = self.app
        try:
            await app.session_ready.wait()
            session = app.session
            if session is None:
                raise RuntimeError(f"no session could be opened: {app.session_error}")
            if self.stopping:
                return  # stopped before the session was open: nothing was sent
            last = [c for c in app.transcript.children if isinstance(c, UserMessage)]
            if last and last[-1].history_index is None:
                last[-1].history_index = len(session.full_history)
            async with session.run(text, images=images, context=context) as run:
                if self.stopping:
                    run.abort()  # Esc raced the start: the run ends `aborted` at its first step
                async for event in run:
                    await app.renderer.apply(event)
                    self.observe(event)
            await app.checkpoint_notice(session)
        finally:
            await self._finished()

    def observe(self, event: Any) -> None:
        """Keep the status bar and the app's counters in step with the run's events."""
        app = self.app
        inner = event
        while isinstance(inner, SubagentEvent):
            inner = inner.event
        if isinstance(inner, PermissionRequestEvent):  # a subagent's batch is numbered too
            app.state.new_batch(len(inner.requests))
            return
        if isinstance(event, SystemEvent):
            app.status.set(session_id=event.session_id, model=event.model, mode=event.permission_mode)
            app.status.set(sandbox=sandbox_label(event.sandbox))
        elif isinstance(event, UsageEvent):
            app.state.last_usage = event.usage
            total = app.state.base_usage + event.cumulative
            agent = app.agent
            window = agent.provider.context_window(agent.model) if agent else 0
            app.status.set(
                context_pct=context_percent(event.usage, window),
                tokens=total.input_tokens + total.output_tokens,
                cost=cost_usd(agent.model, total) if agent else None,
                estimated=app.status.info.estimated or event.estimated,
                size_estimated=False,  # counted from here on
            )
        elif isinstance(event, UserEvent) and event.subtype == "steering" and self._pending_steers:
            _, _, note = self._pending_steers.pop(0)
            note.remove()
        elif isinstance(event, ResultEvent):
            app.state.run_finished(event.total_usage)
        elif isinstance(event, ToolCallEndEvent) and event.tool_name == "ExitPlanMode" and app.agent is not None:
            app.status.set(mode=app.agent.permission_mode)  # an approved plan leaves plan mode

    async def _finished(self) -> None:
        app = self.app
        self.running = False
        self.stopping = self.finishing_step = False
        self.runs_completed += 1
        app.status.set(state="")
        renderer = app.renderer
        root = renderer.sinks.get(())
        if root is not None:
            try:
                await renderer.close_text(root)
            except Exception:
                pass
        renderer.reset()
        leftovers = [p for p, f, _ in self._pending_steers if f.done() and not f.cancelled() and f.exception()]
        for _, _, note in self._pending_steers:
            note.remove()
        self._pending_steers.clear()
        for queued_note in app.transcript.query(".queued"):
            queued_note.remove()
        queued = leftovers + self._queued_prompts
        self._queued_prompts = []
        app.call_after_refresh(app.prune_transcript)
        if queued:  # one run for all of them, their images and context blocks in order
            await self.start(
                "\n\n".join(p.text for p in queued),
                images=[i for p in queued for i in p.images],
                context=[c for p in queued for c in p.context],
            )

    # -- stopping -------------------------------------------------------------------

    def stop(self) -> bool:
        """Stop the run at once (abort). False when no run is going."""
        session = self.app.session
        if not self.running:
            return False
        self.stopping = True
        if session is not None:
            session.abort()
        self.app.status.set(state="")
        return True

    def finish_step(self) -> None:
        """Ctrl+S: let the current step finish, then stop (`interrupted`)."""
        session = self.app.session
        if not self.running or self.stopping or session is None:
            return
        self.finishing_step = True
        session.interrupt()
        self.app.status.set(state=FINISHING_STATE)

    def escape(self) -> None:
        """Esc: stop a run at once; when idle, twice on an empty prompt opens the rewind picker."""
        app = self.app
        if self.stop():
            return
        if app.session is None or app.prompt.text or len(app.screen_stack) != 1:
            return
        now = time.monotonic()
        if now - self._last_idle_escape < IDLE_ESCAPE_WINDOW:
            self._last_idle_escape = 0.0
            app.run_worker(app.open_rewind(), group="rewind", exit_on_error=False)
        else:
            self._last_idle_escape = now

    async def ctrl_c(self) -> None:
        """Ctrl+C: copy a selection; else stop a run; else clear the prompt; twice within 2 s: quit."""
        app = self.app
        if self._copy_selection():
            return
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW:
            await app.action_quit_app()
            return
        self._last_ctrl_c = now
        if not self.stop() and app.prompt.text:
            app.prompt.clear()
        app.notify("Press Ctrl+C again to quit", timeout=QUIT_WINDOW)

    def _copy_selection(self) -> bool:
        """Copy the screen's selected text, or the prompt's selection; True if there was one."""
        app = self.app
        selected = app.screen.get_selected_text()
        if not selected and app.focused is app.prompt:
            selected = app.prompt.selected_text
        if not selected:
            return False
        app.copy_to_clipboard(selected)
        app.screen.clear_selection()
        app.notify("copied", timeout=1.5)
        return True

    # -- permission mode --------------------------------------------------------------

    def cycle_mode(self) -> None:
        """Shift+Tab: default → acceptEdits → plan (never yolo)."""
        from .slash_commands import next_mode  # lazy: loads the command registry

        agent = self.app.agent
        if agent is None:
            return
        mode = next_mode(agent.permission_mode)
        agent.set_permission_mode(mode)  # type: ignore[arg-type]
        self.app.status.set(mode=mode)

    def request_yolo(self) -> None:
        """`/mode yolo`: ask for confirmation in a dialog, then switch (in a worker, so the
        command handler does not wait on the dialog)."""
        self.app.run_worker(self._confirm_yolo(), group="mode", exit_on_error=False)

    async def _confirm_yolo(self) -> None:
        from ..commands.builtin import YOLO_WARNING  # lazy: a screen's module loads when the screen opens
        from .screens.confirm import ConfirmScreen

        app = self.app
        if app.agent is None:
            return
        if app.agent.permission_mode != "yolo":
            confirmed = await app.push_screen_wait(
                ConfirmScreen("Switch to yolo mode?", YOLO_WARNING, confirm="Yes, yolo")
            )
            if not confirmed:
                await app.transcript.mount(NoteLine(f"permission mode stays {app.agent.permission_mode}"))
                return
            app.agent.set_permission_mode("yolo")
            app.status.set(mode="yolo")
        await app.transcript.mount(NoteLine(f"permission mode: {app.agent.permission_mode}"))
        app.transcript.scroll_end(animate=False)
