"""Session dialogs of `SkawldApp` (a mixin): the /resume picker and the /rewind
dialog (also Esc Esc on an empty prompt); the commands are in `commands/`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skawld_core.sessions.listing import list_conversations
from skawld_core.sessions.meta import PromptPoint, prompt_points, title_from_prompt

if TYPE_CHECKING:
    from skawld_core.checkpoints import UserChange
    from skawld_core.session import Session
    from skawld_core.sessions.writer import SessionBusyError

    from .host import ChatApp
    from .screens.rewind import RewindAction, RewindChoice


class SessionsMixin:
    """The session picker, the rewind dialog and the checkpoint notice."""

    _checkpoint_noted: tuple[str, int] | None = None

    async def _note(self, text: str, warning: bool = False) -> None:
        from .widgets.blocks import NoteLine  # lazy: after the first frame

        app: ChatApp = self  # type: ignore[assignment]
        await app.transcript.mount(NoteLine(text, classes="note -warning" if warning else "note"))
        app.transcript.scroll_end(animate=False)

    async def _idle(self, name: str) -> bool:
        """True when the command may run now (no run going, a session open)."""
        app: ChatApp = self  # type: ignore[assignment]
        if app.running:
            await self._note(f"/{name} is not available while a run is going", warning=True)
            return False
        return app.agent is not None and app.session is not None

    def offer_fork(self, busy: SessionBusyError) -> None:
        """A session to resume is running in another process: offer to fork it (else start a new one)."""
        app: ChatApp = self  # type: ignore[assignment]
        from .screens.confirm import ConfirmScreen  # lazy: a screen's module loads when the screen opens

        async def chosen(fork: bool | None) -> None:
            if app.agent is None:
                return
            if fork:
                copy = await app.agent.fork_session(busy.session_id)
                await app.load_session(copy.id)
                await self._note(f"forked session {busy.session_id[:8]} → {copy.id[:8]}; the original is unchanged")
            else:
                await app.load_session(None)

        body = f"{busy}. Nothing was written to it. Fork it into a new session, or start an empty one?"
        app.push_screen(ConfirmScreen("Session in use", body, confirm="Fork it", cancel="New session"), callback=chosen)

    async def checkpoint_notice(self, session: Session) -> None:
        """Say when the last prompt's checkpoint failed or skipped large files."""
        records = session.prompt_records
        if not records or self._checkpoint_noted == (session.id, len(records)):
            return
        self._checkpoint_noted = (session.id, len(records))
        last = records[-1]
        if last.get("error"):
            await self._note(f"no checkpoint for this prompt: {last['error']}", warning=True)
        elif last.get("skipped_large") and (
            len(records) < 2 or records[-2].get("skipped_large") != last["skipped_large"]
        ):
            skipped = [str(p) for p in last["skipped_large"]]
            shown = ", ".join(skipped[:3]) + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")
            await self._note(f"checkpoint left out files over the size cap: {shown}", warning=True)

    async def open_picker(self, fork: bool = False) -> None:
        """Push the session picker over the conversations of this project."""
        app: ChatApp = self  # type: ignore[assignment]
        assert app.agent is not None
        from .screens.session_picker import SessionPicker  # lazy: a screen's module loads when the screen opens

        current = app.session.id if app.session else None
        sessions = await list_conversations(app.agent.store, cwd=app.agent.cwd, limit=100, include_empty=False)
        choices = [s for s in sessions if s.id != current]
        if not choices:
            await self._note("no other stored sessions")
            return

        async def picked(session_id: str | None) -> None:
            if not session_id or app.agent is None:
                return
            if fork:
                copy = await app.agent.fork_session(session_id)
                await app.load_session(copy.id)
                await self._note(f"forked session {session_id[:8]} → {copy.id[:8]}; the original is unchanged")
            else:
                await app.load_session(session_id)

        app.push_screen(SessionPicker(choices, current), callback=picked)

    async def open_rewind(self) -> None:
        """Push the rewind dialog over this session's prompts."""
        app: ChatApp = self  # type: ignore[assignment]
        if not await self._idle("rewind"):
            return
        assert app.session is not None
        points = prompt_points(app.session.meta, app.session.full_history)
        if not points:
            await self._note("nothing to rewind: no prompts in this session yet")
            return
        from .screens.rewind import RewindScreen  # lazy: a screen's module loads when the screen opens

        async def chosen(choice: RewindChoice | None) -> None:
            if choice is not None:
                await self.rewind(choice.point, choice.action, keep=choice.keep)

        app.push_screen(RewindScreen(points, check=self._user_changes), callback=chosen)

    async def _user_changes(self, point: PromptPoint) -> list[UserChange]:
        """What restoring the code to before `point` would undo that the agent did not write."""
        app: ChatApp = self  # type: ignore[assignment]
        engine = app.agent.checkpoints if app.agent is not None else None
        if app.agent is None or engine is None or point.commit is None or app.session is None:
            return []
        from skawld_core.checkpoints import agent_written_paths, user_changes

        agent = agent_written_paths(app.session.full_history[point.index :], engine.project, app.agent.cwd)
        return await user_changes(engine, point.commit, agent)

    async def rewind(self, point: PromptPoint, action: RewindAction, *, keep: tuple[str, ...] = ()) -> None:
        """Restore the code and/or the conversation to before `point`."""
        app: ChatApp = self  # type: ignore[assignment]
        if app.agent is None or app.session is None:
            return
        notes: list[str] = []
        if action in ("code", "both"):
            engine = app.agent.checkpoints
            if engine is None or point.commit is None:
                await self._note("no code checkpoint for that prompt; nothing restored", warning=True)
                return
            result = await engine.restore(point.commit, keep=keep)
            notes.append(
                f"code restored: {len(result.written)} files written, {len(result.deleted)} removed "
                f"(the state before the rewind is checkpoint {result.backup[:12]})"
            )
            if result.kept:
                notes.append(f"left as they are (your changes): {', '.join(result.kept)}")
        if action in ("conversation", "both"):
            old = app.session.id
            copy = await app.session.fork(upto=point.index)
            await app.load_session(copy.id)  # clears the transcript: notes go after it
            app.prompt.set_text(point.text)
            notes.append(
                f"conversation rewound to before “{title_from_prompt(point.text, 50)}”: "
                f"new session {copy.id[:8]}, the original {old[:8]} is kept"
            )
        for text in notes:
            await self._note(text)
