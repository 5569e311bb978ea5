"""The app's composer: what happens between typing and a run.

`@` completion (directories by prefix, project files by fuzzy match, the listing
taken once per prompt, then MCP resources as `@server:uri`), the image chips above the prompt (pasted or typed image
paths, Ctrl+V from the clipboard), per-project Up-arrow history, and the routing
of a submitted line: a slash command, a `!cmd`, or a prompt whose `@file`
mentions, images and pending `!cmd` output go with it to `start_run` / steer.
The app keeps one-line handlers that call in here.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..attachments import expand_mentions, mentions
from ..commands import completion_options, dispatch, find_command
from ..images import (
    ImageAttachment,
    ImageError,
    load_image,
    names_image,
    path_candidate,
    read_clipboard_image,
    typed_images,
)
from ..mcp_resources import McpResourceIndex
from ..path_complete import FileIndex, at_options, at_token, complete_path, load_file_index, quick_at_options
from ..prompt_history import PromptHistory
from ..shell_line import run_shell_line, shell_command
from .widgets.blocks import ErrorBlock, NoteLine, UserMessage
from .widgets.prompt import AttachmentBar

if TYPE_CHECKING:
    from skawld_core.events import Event
    from skawld_core.mcp.manager import McpManager

    from .host import ChatApp


class Composer:
    """State of the prompt being written, for one app."""

    def __init__(self, app: ChatApp) -> None:
        self.app = app
        self.files: FileIndex | None = None  # the project listing for this prompt
        self._listing = False
        self.images: list[ImageAttachment] = []
        self.pending_context: list[str] = []  # `!cmd` output for the next message
        self._queue: list[str] = []
        self._draining = False
        self._clip_count = 0
        self._shell_task: asyncio.Task[Any] | None = None
        self.resources = McpResourceIndex()  # `@server:uri` candidates
        self._reading_resources = False

    # -- set-up -----------------------------------------------------------------

    def agent_ready(self, cwd: Path) -> None:
        """Load the project's prompt history into the prompt."""
        self.app.prompt.load_history(PromptHistory.for_project(cwd))

    # -- completion ---------------------------------------------------------------

    def update_completions(self) -> None:
        app = self.app
        prompt = app.prompt
        text = prompt.text
        options = completion_options(text, app.prompt_commands)
        if not options:
            row, col = prompt.cursor_location
            token = at_token(prompt.document.get_line(row)[:col])
            if token is not None and app.agent is not None:
                if self.files is None:
                    self._start_listing(app.agent.cwd)
                found = quick_at_options(app.agent.cwd, token, self.files)
                if found is None:  # a slow ranking: prefix completion now, the ranking when ready
                    self._rank_later(app.agent.cwd, token)
                    found = complete_path(app.agent.cwd, token)
                options = self._at_options(token, found)
        app.completions.show(options)
        prompt.completing = bool(options)

    def _at_options(self, token: str, paths: list[str]) -> list[tuple[str, str]]:
        """The `@` dropdown: `paths`, then the MCP resources matching `token` (`@server:uri`)."""
        options = [(f"@{p}", f"@{p}") for p in paths]
        manager = self.app.agent.extensions.mcp if self.app.agent is not None else None
        if manager is not None:
            stale = self.resources.stale(manager)
            if stale and not self._reading_resources:
                self._read_resources(manager, stale)
            options += [(f"@{m}", f"@{m}") for m in self.resources.matching(manager, token)]
        return options

    def _read_resources(self, manager: McpManager, servers: list[str]) -> None:
        self._reading_resources = True

        async def read() -> None:
            try:
                await self.resources.refresh(manager, servers)
            finally:
                self._reading_resources = False
            if self.app.prompt.completing or at_token(self.app.prompt.text) is not None:
                self.update_completions()

        self.app.run_worker(read(), group="composer-resources", exit_on_error=False)

    def _start_listing(self, cwd: Path) -> None:
        if self._listing:
            return
        self._listing = True

        async def listing() -> None:
            try:
                self.files = await load_file_index(cwd)
            finally:
                self._listing = False
            if self.app.prompt.completing or at_token(self.app.prompt.text) is not None:
                self.update_completions()

        self.app.run_worker(listing(), group="composer-files", exit_on_error=False)

    def _rank_later(self, cwd: Path, token: str) -> None:
        """Rank `token` in a thread and show the result if the token is still the one typed."""
        files = self.files

        def rank() -> None:
            options = at_options(cwd, token, files)
            self.app.call_from_thread(self._show_ranked, token, options)

        self.app.run_worker(rank, thread=True, group="composer-rank", exclusive=True, exit_on_error=False)

    def _show_ranked(self, token: str, options: list[str]) -> None:
        prompt = self.app.prompt
        row, col = prompt.cursor_location
        if at_token(prompt.document.get_line(row)[:col]) == token:
            shown = self._at_options(token, options)
            self.app.completions.show(shown)
            prompt.completing = bool(shown)

    async def accept_completion(self, submit: bool) -> None:
        app = self.app
        value = app.completions.value
        prompt = app.prompt
        app.completions.show([])
        prompt.completing = False
        if value is None:
            return
        if value.startswith("/"):
            command = find_command(value[1:], app.prompt_commands)
            if submit:
                prompt.clear()
                await app.submit(value)
            else:
                prompt.set_text(value + (" " if command and command.args else ""))
            return
        row, col = prompt.cursor_location
        token = at_token(prompt.document.get_line(row)[:col]) or ""
        start = (row, col - len(token) - 1)
        path = value[1:]
        shown = f'@"{path}"' if " " in path else value
        prompt.replace(shown + ("" if value.endswith("/") else " "), start, (row, col))
        if value.endswith("/"):
            self.update_completions()

    # -- images ---------------------------------------------------------------------

    def pasted_image_paths(self, text: str) -> list[Path]:
        """The image files a paste names when it names nothing else (one per line or word)."""
        agent = self.app.agent
        if agent is None or not text.strip() or len(text) > 4096:
            return []
        lines = [line for line in text.splitlines() if line.strip()]
        tokens = lines if len(lines) > 1 else [text]
        paths = [path_candidate(t, agent.cwd) for t in tokens]
        if any(p is None for p in paths):
            paths = [path_candidate(t, agent.cwd) for t in text.split()]
        if not paths or any(p is None for p in paths):
            return []
        return [p for p in paths if p is not None]

    async def add_image_paths(self, paths: list[Path]) -> None:
        for path in paths:
            try:
                self.images.append(load_image(path))
            except ImageError as exc:
                self.app.notify(str(exc), severity="warning")
        await self._show_chips()

    async def remove_image(self, index: int | None = None) -> None:
        if not self.images:
            return
        self.images.pop(len(self.images) - 1 if index is None else index)
        await self._show_chips()

    async def paste(self) -> None:
        """Ctrl+V: an image on the clipboard becomes a chip, else the app clipboard's text."""
        try:
            image = await read_clipboard_image(self._clip_count + 1)
        except ImageError as exc:
            image = None
            if not self.app.clipboard:
                self.app.notify(str(exc), severity="warning")
        if image is None:
            self.app.prompt.paste_text(self.app.clipboard)
            return
        self._clip_count += 1
        self.images.append(image)
        await self._show_chips()

    async def _show_chips(self) -> None:
        await self.app.query_one(AttachmentBar).show([i.label for i in self.images])

    # -- submit -------------------------------------------------------------------

    async def submit(self, text: str) -> None:
        """Route one submitted line: slash command, `!cmd`, or a prompt."""
        app = self.app
        if await dispatch(app.command_host, text):
            app.transcript.scroll_end(animate=False)
            return
        self.files = None  # the next prompt lists the project afresh
        plain = shell_command(text) is None and not mentions(text) and not names_image(text)
        if plain and not self._draining and not self.images:
            await self._send(text, [], self._take_context())
            return
        self._queue.append(text)
        if not self._draining:
            self._draining = True
            app.run_worker(self._drain(), group="composer", exit_on_error=False)

    async def _drain(self) -> None:
        """Handle queued lines in order (off the message loop: a Read or Bash
        permission question opens a dialog that needs it)."""
        try:
            while self._queue:
                text = self._queue.pop(0)
                try:
                    await self._prepare(text)
                except Exception as exc:  # one bad line must not strand the ones queued after it
                    await self.app.transcript.mount(
                        ErrorBlock(f"could not send: {text[:60]}", f"{type(exc).__name__}: {exc}")
                    )
        finally:
            self._draining = False

    async def _prepare(self, text: str) -> None:
        app = self.app
        await app.session_ready.wait()
        session = app.session
        if session is None:
            await app.transcript.mount(NoteLine(f"no session: {app.session_error}"))
            return
        command = shell_command(text)
        if command is not None:
            await self._shell(command)
            return
        images, self.images = self.images, []
        if images:
            await self._show_chips()
        context = self._take_context()
        notes: list[str] = []
        text, typed, errors = typed_images(text, session.agent.cwd)
        images += typed
        notes += [f"not attached: {e}" for e in errors]
        if mentions(text):
            expansion = await expand_mentions(session, text)
            context += expansion.context
            images += expansion.images
            notes += expansion.attached + expansion.refused
        labels = "\n".join(i.label for i in images if i.label not in text)
        full = f"{text}\n{labels}".strip() if labels else text
        await self._send(full, [i.spec() for i in images], context)
        for note in notes:
            await app.transcript.mount(NoteLine(f"  ⎿ {note}"))

    async def _send(self, text: str, images: list[dict[str, str]], context: list[str]) -> None:
        app = self.app
        if app.running:
            app.runs.steer(text, images=images, context=context)
        else:
            await app.start_run(text, images=images, context=context)

    def cancel_shell(self) -> bool:
        """Esc while a `!cmd` runs: end it (its process tree with it)."""
        task = self._shell_task
        if task is None or task.done():
            return False
        task.cancel()
        return True

    def _take_context(self) -> list[str]:
        context, self.pending_context = self.pending_context, []
        return context

    async def _shell(self, command: str) -> None:
        app = self.app
        assert app.session is not None
        if app.running:
            await app.transcript.mount(NoteLine(f"! {command}: a run is active (wait for it, or Esc)"))
            return
        from skawld_core.events import UserEvent
        from skawld_core.messages import Message

        await app.transcript.mount(UserMessage(f"! {command}"))
        app.transcript.anchor()
        renderer = app.renderer

        async def show(event: Event) -> None:
            await renderer.apply(event)

        self._shell_task = asyncio.ensure_future(run_shell_line(app.session, command, on_event=show))
        try:
            outcome, block = await self._shell_task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # the app is closing, not an Esc
            renderer.reset()
            await app.transcript.mount(NoteLine(f"  ⎿ ! {command}: interrupted"))
            return
        finally:
            self._shell_task = None
        await renderer.apply(UserEvent(message=Message(role="user", content=[block]), subtype="tool_result"))
        renderer.reset()
        if outcome.denied:
            await app.transcript.mount(
                NoteLine(f"  ⎿ not run: {outcome.stderr.splitlines()[0] if outcome.stderr else ''}")
            )
            return
        self.pending_context += outcome.context()
