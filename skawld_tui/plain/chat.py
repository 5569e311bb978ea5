"""`skawld --plain`: a line-oriented chat (prompt_toolkit input, rich output).

For terminals where a full-screen app does not fit: screen readers, editor
shells, logs. Assistant text streams as plain text; tool calls are one line
each (with a short result preview); permission and AskUser questions are
answered inline. Ctrl+C during a run interrupts it (twice: abort); Ctrl+C
twice at the prompt, Ctrl+D or /exit quits.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, assert_never

from rich.console import Console
from rich.text import Text

from skawld_core.events import (
    AssistantEvent,
    CompactionEvent,
    ErrorEvent,
    Event,
    HookErrorEvent,
    PartialAssistantEvent,
    PermissionRequestEvent,
    ResultEvent,
    SkillCompletedEvent,
    SkillInvokedEvent,
    SkillsLoadedEvent,
    SubagentEvent,
    SystemEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    UsageEvent,
    UserEvent,
)

from ..commands import PlainHost, dispatch, slash_completer
from ..markdown_lists import PlainMarkdown
from ..permission_broker import PermissionBroker
from ..prompt_history import PromptHistory, toolkit_history
from ..resume import exit_hint
from ..transcript_model import (
    format_duration,
    history_items,
    restored_notice,
    run_footer,
    summarize_tool,
    tool_result_text,
    user_prompt_text,
)
from .composer import PlainComposer, make_completer
from .permissions import PlainPermissionAsker
from .sessions import pick_plain

if TYPE_CHECKING:
    from pathlib import Path

    from prompt_toolkit import PromptSession

    from skawld_core.agent import Agent
    from skawld_core.permissions import CanUseToolRequest
    from skawld_core.session import Session

    from ..file_commands import PromptCommands

PREVIEW_LINES = 6


class PlainChat:
    """The plain-mode loop and its callbacks."""

    def __init__(self, console: Console, prompt: PromptSession[str]) -> None:
        self.console = console
        self.prompt = prompt
        self.agent: Agent | None = None
        self.session: Session | None = None
        self.streaming = False
        self.tools: dict[tuple[str, ...], str] = {}
        self.show_timings = True
        self.usage_estimated = False  # a result said some counts are estimates
        self.broker = PermissionBroker(PlainPermissionAsker(self), lambda: self.agent)
        self.prompt_commands: PromptCommands | None = None
        self.settings: Any = None
        self.host = PlainHost(self)

        self.composer = PlainComposer(self)

    def commands(self) -> PromptCommands | None:
        """File commands and skills (loaded once the agent exists)."""
        if self.prompt_commands is None and self.agent is not None:
            from pathlib import Path

            from ..file_commands import PromptCommands  # lazy: file commands load once the agent exists

            trusted = bool(getattr(self.settings, "project_trusted", False))
            self.prompt_commands = PromptCommands(self.agent, home=Path.home(), trusted=trusted)
        return self.prompt_commands

    # -- output ---------------------------------------------------------------------

    def out(self, text: str | Text, *, style: str = "", depth: int = 0) -> None:
        self._end_stream()
        prefix = "  │ " * depth
        if isinstance(text, str):
            text = Text(text, style=style)
        for line in text.split("\n") if text.plain else [text]:
            self.console.print(Text(prefix) + line, soft_wrap=True, highlight=False)

    def _end_stream(self) -> None:
        if self.streaming:
            self.console.file.write("\n")
            self.console.file.flush()
            self.streaming = False

    def stream(self, delta: str, depth: int) -> None:
        if depth:
            return  # subagent text is shown when its message is complete
        self.console.file.write(delta)
        self.console.file.flush()
        self.streaming = True

    # -- callbacks ------------------------------------------------------------------

    async def ask(self, question: str) -> str:
        self._end_stream()
        with contextlib.suppress(EOFError, KeyboardInterrupt):
            return (await self.prompt.prompt_async(question)).strip()
        return ""

    async def can_use_tool(self, req: CanUseToolRequest) -> Any:
        """The permission callback: the broker, asking inline (`plain_permissions`)."""
        return await self.broker.can_use_tool(req)

    async def elicit(self, request: Any) -> Any:
        """An MCP server's question (`skawld_tui.plain.elicitation`)."""
        from .elicitation import elicit_plain  # lazy: only when a server asks

        async with self.broker.lock:
            return await elicit_plain(self.out, self.ask, request)

    async def ask_user(self, request: Any) -> dict[str, Any]:
        answers = []
        async with self.broker.lock:
            for q in request.questions:
                self.out(f"? [{q.header}] {q.question}", style="bold cyan")
                for n, opt in enumerate(q.options, start=1):
                    self.out(f"  {n}. {opt.label}" + (f" — {opt.description}" if opt.description else ""))
                raw = await self.ask("  number(s) or your answer (empty: decline): ")
                if not raw:
                    return {"declined": True}
                picks = [p.strip() for p in raw.replace(",", " ").split()]
                if all(p.isdigit() and 1 <= int(p) <= len(q.options) for p in picks):
                    chosen = [q.options[int(p) - 1].label for p in picks]
                    answers.append({"selected": chosen if q.multi_select else chosen[:1]})
                else:
                    answers.append({"selected": [raw]})
        return {"answers": answers}

    # -- events -------------------------------------------------------------------------

    def render(self, event: Event, depth: int = 0, path: tuple[str, ...] = ()) -> None:
        match event:
            case SubagentEvent():
                if event.event.type == "system":
                    self.out(f"▸ {event.display_name}", style="bold magenta", depth=depth)
                self.render(event.event, depth + 1, (*path, event.subagent_run_id))
            case PartialAssistantEvent():
                if event.delta.kind == "text":
                    self.stream(event.delta.text, depth)
            case AssistantEvent():
                self._assistant(event.message.text().strip(), depth)
            case UserEvent():
                self._user(event, depth)
            case PermissionRequestEvent():
                for req in event.requests:
                    self.tools[(*path, req.tool_use_id)] = req.summary
            case ToolCallStartEvent():
                registry = self.agent.tools if self.agent else None
                summary = summarize_tool(event.tool_name, event.input, registry)
                self.tools[(*path, event.tool_use_id)] = summary
                self.out(f"⏺ {summary}", style="cyan", depth=depth)
            case ToolCallEndEvent():
                summary = self.tools.get((*path, event.tool_use_id), event.tool_name)
                mark, style = ("✗", "red") if event.is_error else ("✓", "green")
                timing = f" ({format_duration(event.duration_ms)})" if self.show_timings else ""
                self.out(f"{mark} {summary}{timing}", style=style, depth=depth)
            case CompactionEvent():
                self.out(
                    f"── context compacted: {event.messages_before} → {event.messages_after} messages ──",
                    style="dim",
                    depth=depth,
                )
            case ErrorEvent():
                self.out(f"error: {event.error.name}: {event.error.message}", style="bold red", depth=depth)
            case HookErrorEvent():
                self.out(f"hook {event.hook_event}: {event.message}", style="yellow", depth=depth)
            case ResultEvent():
                if not depth:
                    self._summary(event)
            case SystemEvent() | SkillsLoadedEvent() | UsageEvent() | SkillInvokedEvent() | SkillCompletedEvent():
                pass  # the plain mode prints no line for these
            case _:
                assert_never(event)

    def _assistant(self, text: str, depth: int) -> None:
        if depth:
            if text:
                self.out(text, depth=depth)
        elif self.streaming:
            self._end_stream()
        elif text:
            self.console.print(PlainMarkdown(text))

    def _user(self, event: UserEvent, depth: int) -> None:
        if event.subtype == "steering":
            self.out(f"↳ {user_prompt_text(event.message)}", style="bold", depth=depth)
        elif event.subtype == "prompt" and depth:
            self.out(f"› {user_prompt_text(event.message)}", style="dim", depth=depth)
        for block in event.message.content:
            if block.type == "tool_result":
                self.show_result(tool_result_text(block), bool(block.is_error), depth)

    def _summary(self, event: ResultEvent) -> None:
        self.usage_estimated = self.usage_estimated or event.usage_estimated
        model = self.agent.model if self.agent else None
        self.out(run_footer(event, model, show_timings=self.show_timings), style="dim")

    def show_result(self, text: str, is_error: bool, depth: int) -> None:
        lines = text.splitlines() or [""]
        shown = lines[:PREVIEW_LINES]
        if len(lines) > PREVIEW_LINES:
            shown.append(f"… {len(lines) - PREVIEW_LINES} more lines")
        for line in shown:
            self.out(f"    {line}", style="red" if is_error else "dim", depth=depth)

    def render_history(self) -> None:
        assert self.session is not None
        for item in history_items(self.session.full_history):
            name = type(item).__name__
            if name == "UserItem":
                self.out(f"› {item.text}", style="bold")  # type: ignore[union-attr]
            elif name == "AssistantItem":
                self.console.print(PlainMarkdown(item.text))  # type: ignore[union-attr]
            elif name == "ToolItem":
                mark = "✗" if item.is_error else "✓"  # type: ignore[union-attr]
                self.out(f"{mark} {summarize_tool(item.name, item.input)}", style="cyan")  # type: ignore[union-attr]
        self.out(restored_notice(len(self.session.full_history), self.session), style="dim")

    # -- the loop -----------------------------------------------------------------------

    async def run_prompt(self, text: str, *, images: Any = (), context: Any = ()) -> None:
        assert self.session is not None
        session = self.session
        presses = 0

        def on_sigint() -> None:
            nonlocal presses
            presses += 1
            if presses == 1:
                session.interrupt()
                self.out("interrupting at the next turn boundary (Ctrl+C again to abort)", style="yellow")
            else:
                session.abort()

        loop = asyncio.get_running_loop()
        installed = False
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signal.SIGINT, on_sigint)
            installed = True
        try:
            async with session.run(text, images=images, context=context) as run:
                async for event in run:
                    self.render(event)
        except Exception as exc:  # the chat survives a failed run
            self.out(f"error: {type(exc).__name__}: {exc}", style="bold red")
        finally:
            self._end_stream()
            if installed:
                loop.remove_signal_handler(signal.SIGINT)

    async def loop(self) -> int:
        last_ctrl_c = 0.0
        while True:
            try:
                text = await self.prompt.prompt_async("› ")
            except EOFError:
                return 0
            except KeyboardInterrupt:
                now = time.monotonic()
                if now - last_ctrl_c < 2.0:
                    return 0
                last_ctrl_c = now
                self.out("(Ctrl+C again to quit)", style="dim")
                continue
            text = text.strip()
            if not text:
                continue
            remember(self.prompt, text)
            if await dispatch(self.host, text):
                if self.host.quitting:
                    return 0
                continue
            prepared = await self.composer.handle(text)
            reset_completer(self.prompt)
            if prepared is not None:
                await self.run_prompt(prepared[0], images=prepared[1], context=prepared[2])


class LinePrompt:
    """A minimal prompt for pipes (stdin or stdout not a terminal): no
    redraws or escape codes, one line per answer; EOF raises `EOFError`."""

    def __init__(self, console: Console) -> None:
        self.console = console

    async def prompt_async(self, message: str = "") -> str:
        self.console.file.write(message)
        self.console.file.flush()
        line: str = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        if not line:
            raise EOFError
        line = line.rstrip("\n")
        if not sys.stdin.isatty():  # echo piped input so logs read like a session
            self.console.file.write(line + "\n")
        return line


def make_prompt_session(
    commands: Callable[[], PromptCommands | None] = lambda: None, **kwargs: Any
) -> PromptSession[str]:
    """A prompt_toolkit session with the project's history (bound in `run_plain`),
    slash-command completion from the registry (`commands` gives the file commands
    and skills once they are loaded) and `@` path completion."""
    from prompt_toolkit import PromptSession

    completer = make_completer(slash_completer(commands))
    return PromptSession(history=toolkit_history(), completer=completer, complete_while_typing=True, **kwargs)


def bind_project(prompt: Any, cwd: Path) -> None:
    """Point the prompt's history and `@` completion at the project in `cwd`."""

    history: Any = getattr(prompt, "history", None)
    if hasattr(history, "bind"):
        history.bind(PromptHistory.for_project(cwd))
    completer: Any = getattr(prompt, "completer", None)
    if hasattr(completer, "files"):
        completer.cwd = cwd


def remember(prompt: Any, text: str) -> None:
    """Persist a submitted line in the project's history."""
    history: Any = getattr(prompt, "history", None)
    if hasattr(history, "remember"):
        history.remember(text)


def reset_completer(prompt: Any) -> None:
    """The next `@` lists the project afresh (once per prompt)."""
    completer: Any = getattr(prompt, "completer", None)
    if hasattr(completer, "files"):
        completer.files = None


async def run_plain(
    agent_factory: Callable[..., Agent],
    resume_id: str | None = None,
    settings: Any = None,
    *,
    console: Console | None = None,
    prompt_session: PromptSession[str] | None = None,
    pick: bool = False,
    fork_picked: bool = False,
) -> int:
    """Run the plain chat until /exit, Ctrl+D or Ctrl+C twice; returns the exit code."""
    console = console or Console(highlight=False)
    chat: PlainChat | None = None
    if prompt_session is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
        source = lambda: chat.commands() if chat is not None else None  # noqa: E731
        prompt_session = make_prompt_session(source) if interactive else LinePrompt(console)  # type: ignore[assignment]
    assert prompt_session is not None
    chat = PlainChat(console, prompt_session)
    chat.settings = settings  # /permissions names the rules' files
    try:
        chat.agent = agent_factory(chat.can_use_tool, chat.ask_user)
        chat.agent.elicit = chat.elicit  # MCP servers' questions, asked line by line
        chat.agent.shell_policy.network_ask = chat.broker.ask_network  # the sandbox's network question
    except Exception as exc:
        chat.out(f"could not start the agent: {type(exc).__name__}: {exc}", style="bold red")
        return 1
    bind_project(prompt_session, chat.agent.cwd)
    try:
        chat.session = await chat.agent.session(resume_id)
        chat.out(
            f"skawld · {chat.agent.model} · mode {chat.agent.permission_mode} · session {chat.session.id}", style="dim"
        )
        if pick:
            chosen = await pick_plain(chat)
            if chosen and fork_picked:
                chat.session = await chat.agent.fork_session(chosen)
            elif chosen:
                chat.session = await chat.agent.session(chosen)
        if chat.session.full_history:
            chat.render_history()
        return await chat.loop()
    finally:
        await chat.agent.close()

        hint = exit_hint(chat.session)
        if hint:
            chat.console.print(hint, highlight=False, soft_wrap=True)
