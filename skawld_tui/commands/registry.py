"""The registry: built-in commands, then file commands and skills; parsing,
lookup, completion, help and dispatch for every front end."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from .base import BUILTINS, Command, CommandHost

if TYPE_CHECKING:
    from ..file_commands import PromptCommands

# The modules whose `@command` functions are the built-ins, in help and completion order.
COMMAND_MODULES = ("builtin", "session_tools", "context", "diff", "bashes", "memory", "hooks_view", "extra", "plugins")
for _module in COMMAND_MODULES:
    importlib.import_module(f"{__package__}.{_module}")

KEYS = (
    ("`Enter`", "send (while a run is going: steer)"),
    ("`\\` `Enter` / `Shift+Enter` / `Ctrl+J`", "new line"),
    ("`Up` / `Down`", "prompt history"),
    ("`Ctrl+R`", "search the prompt history (again: older; Enter: take it; Esc: cancel)"),
    ("`Ctrl+Z`", "suspend to the shell (`fg` resumes)"),
    ("`Shift+Tab`", "cycle permission mode: default → acceptEdits → plan"),
    ("`Esc`", "stop the run now (the stream and running tools end)"),
    ("`Ctrl+S`", "finish this step, then stop"),
    ("`Esc` `Esc` on an empty prompt", "rewind (/rewind)"),
    ("`Ctrl+C`", "copy the selection; else stop the run; else clear the prompt (twice: quit)"),
    ("`@path` + `Tab`", "complete a file path"),
)


def builtins() -> list[Command]:
    """The built-in commands, in help order (`/exit` last)."""
    return sorted(BUILTINS, key=lambda c: c.name == "exit")


def _by_name() -> dict[str, Command]:
    table: dict[str, Command] = {}
    for c in BUILTINS:
        table[c.name] = c
        for alias in c.aliases:
            table.setdefault(alias, c)
    return table


def parse(text: str) -> tuple[str, str] | None:
    """`("name", "args")` for a slash command line, else None (`//x` is plain text).
    A built-in's alias gives the built-in's name."""
    text = text.strip()
    if not text.startswith("/") or text.startswith("//") or len(text) < 2:
        return None
    name, _, args = text[1:].partition(" ")
    found = _by_name().get(name)
    return (found.name if found else name), args.strip()


def prompt_command(name: str, args_hint: str, description: str, source: str) -> Command:
    """A file command or skill as a `Command`: its expansion becomes the next prompt."""

    async def run(host: CommandHost, args: str) -> None:
        from ..file_commands import (  # lazy: file_commands imports this registry (a cycle)
            CommandExpansionError,
            apply_model,
        )

        commands, session = host.prompt_commands, host.session
        if commands is None or session is None:
            return
        try:
            expanded = await commands.expand(name, args, session)
        except CommandExpansionError as exc:
            await host.note(str(exc), warning=True)
            return
        if expanded is None:
            await host.note(f"unknown command /{name} — /help lists them", warning=True)
            return
        warnings: list[str] = []
        apply_model(expanded, session, warnings.append)
        for warning in warnings:
            await host.note(warning, warning=True)
        await host.prompt(expanded.prompt)

    return Command(name, description, run, args=args_hint, source=source)


def all_commands(prompt_commands: PromptCommands | None) -> list[Command]:
    """Built-ins first, then file commands and skills (a built-in wins a name clash)."""
    out = builtins()
    if prompt_commands is not None:
        taken = set(_by_name())
        skills = {s.name for s in prompt_commands.agent.skill_summaries()}
        for name, hint, description in prompt_commands.completions():
            if name not in taken:
                taken.add(name)
                out.append(prompt_command(name, hint, description, "skill" if name in skills else "file"))
    return out


def find(name: str, prompt_commands: PromptCommands | None = None) -> Command | None:
    """The command called `name` (or with that alias)."""
    found = _by_name().get(name)
    if found is not None:
        return found
    if name.startswith("mcp__") and prompt_commands is not None:  # a server prompt: read when typed
        return prompt_command(name, "", "an MCP server's prompt", "mcp")
    return next((c for c in all_commands(prompt_commands) if c.name == name), None)


def complete(text: str, prompt_commands: PromptCommands | None = None) -> list[Command]:
    """Commands whose name (or an alias) starts with what follows the `/` (only while no space is typed)."""
    if not text.startswith("/") or " " in text or "\n" in text:
        return []
    prefix = text[1:].lower()
    return [
        c
        for c in all_commands(prompt_commands)
        if c.name.lower().startswith(prefix) or any(a.startswith(prefix) for a in c.aliases if prefix)
    ]


def completion_options(text: str, prompt_commands: PromptCommands | None = None) -> list[tuple[str, str]]:
    """(value, label) rows for the app's completion list."""
    return [(f"/{c.name}", f"{c.usage_line}  — {c.description}") for c in complete(text, prompt_commands)]


def help_markdown(prompt_commands: PromptCommands | None = None) -> str:
    """Markdown for /help: commands (with aliases), file commands and skills, keys."""
    rows = []
    for c in all_commands(prompt_commands):
        also = f" (also {', '.join('/' + a for a in c.aliases)})" if c.aliases else ""
        origin = f" *({c.source})*" if c.source != "built-in" else ""
        rows.append(f"| `{c.usage_line}` | {c.description}{also}{origin} |")
    keys = [f"| {key} | {what} |" for key, what in KEYS]
    return "| command | |\n|---|---|\n" + "\n".join(rows) + "\n\n| key | |\n|---|---|\n" + "\n".join(keys)


async def dispatch(host: CommandHost, text: str) -> bool:
    """Run `text` if it is a slash command (True), else leave it alone (False).

    A command never takes the front end down: a failure is shown as an error.
    """
    parsed = parse(text)
    if parsed is None:
        return False
    name, args = parsed
    found = find(name, host.prompt_commands)
    if found is None:
        await host.note(f"unknown command /{name} — /help lists them", warning=True)
        return True
    if found.idle_only and host.running:
        await host.note(f"/{name} is not available while a run is going", warning=True)
        return True
    try:
        await found.run(host, args)
    except Exception as exc:
        await host.error(f"/{name} failed", f"{type(exc).__name__}: {exc}")
    return True
