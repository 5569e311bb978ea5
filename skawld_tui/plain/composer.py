"""The plain mode's composer: `!cmd`, `@file` / image attachments, history and
`@` completion for the prompt_toolkit prompt (the app's are in `composer.py`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..attachments import expand_mentions, mentions
from ..images import typed_images
from ..path_complete import FileIndex, at_options, at_token, build_file_index
from ..shell_line import run_shell_line, shell_command

if TYPE_CHECKING:
    from prompt_toolkit.completion import Completer

    from .view import PlainView


class PlainComposer:
    """What the plain chat adds to a line before it becomes a run."""

    def __init__(self, chat: PlainView) -> None:
        self.chat = chat
        self.pending_context: list[str] = []

    async def handle(self, text: str) -> tuple[str, list[dict[str, str]], list[str]] | None:
        """Run a `!cmd` (None: nothing to send), or return the prompt, its images
        and its context blocks."""
        chat = self.chat
        assert chat.session is not None
        command = shell_command(text)
        if command is not None:
            await self.shell(command)
            return None
        context, self.pending_context = self.pending_context, []
        text, typed, errors = typed_images(text, chat.session.agent.cwd)
        for error in errors:
            chat.out(f"  ⎿ not attached: {error}", style="yellow")
        for image in typed:
            chat.out(f"  ⎿ attached image {image.label}", style="dim")
        images = [i.spec() for i in typed]
        if mentions(text):
            expansion = await expand_mentions(chat.session, text)
            context += expansion.context
            images += [i.spec() for i in expansion.images]
            for note in expansion.attached:
                chat.out(f"  ⎿ {note}", style="dim")
            for note in expansion.refused:
                chat.out(f"  ⎿ {note}", style="yellow")
        return text, images, context

    async def shell(self, command: str) -> None:
        chat = self.chat
        assert chat.session is not None

        async def show(event: Any) -> None:
            chat.render(event)

        outcome, block = await run_shell_line(chat.session, command, on_event=show)
        text = block.content if isinstance(block.content, str) else ""
        chat.show_result(text, bool(block.is_error), 0)
        if outcome.denied:
            chat.out("  ⎿ not run", style="yellow")
            return
        self.pending_context += outcome.context()


def make_completer(words: Iterable[str] | Completer, cwd: Path | None = None) -> Completer:
    """Slash commands at the start of the line (`words`, or a completer for them), `@` paths (fuzzy) anywhere."""
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion, WordCompleter
    from prompt_toolkit.document import Document

    slash = words if isinstance(words, Completer) else WordCompleter(list(words), sentence=True, pattern=None)

    class _Completer(Completer):
        def __init__(self) -> None:
            self.cwd = cwd or Path.cwd()
            self.files: FileIndex | None = None

        def _files(self) -> FileIndex:
            if self.files is None:
                self.files = build_file_index(self.cwd)
            return self.files

        def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
            before = document.text_before_cursor
            token = at_token(before)
            if token is None:
                if before.startswith("/"):
                    yield from slash.get_completions(document, complete_event)
                return
            for path in at_options(self.cwd, token, self._files()):
                yield Completion(f"@{path}", start_position=-len(token) - 1)

    return _Completer()
