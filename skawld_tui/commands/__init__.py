"""Slash commands: one registry for the app, the plain mode and headless prompts.

Every `/command` is a `Command` (name, description, argument hint, aliases and an
async `run(host, args)`) that runs against a `CommandHost`: `AppHost` (the Textual
app) and `PlainHost` (the `--plain` line mode) implement it, so a command is
written once. File commands (`.skawld/commands/*.md`, `.claude/commands/*.md`, the
user's) and skills join the registry as commands whose expansion becomes the next
prompt; completion and `/help` list them with their descriptions.

Adding a built-in command is one function in one file: decorate it with
`@command` in any module of this package listed in `registry.COMMAND_MODULES`
(a new module is added to that tuple), and use only the host's surface::

    @command("hello", "Say hello", args="[name]", idle_only=False)
    async def hello_command(host: CommandHost, args: str) -> None:
        await host.note(f"hello {args or 'world'}")

An existing `async def run_x(host, args)` written elsewhere is registered with one
line in `extra.py`: `BUILTINS.append(Command("x", "What it does", run_x, args="[arg]"))`.
"""

from __future__ import annotations

from .app_host import AppHost
from .base import BUILTINS, Command, CommandHost, command
from .plain_host import PlainHost, slash_completer
from .registry import all_commands, complete, completion_options, dispatch, help_markdown, parse
from .registry import find as find_command

__all__ = [
    "BUILTINS",
    "AppHost",
    "Command",
    "CommandHost",
    "PlainHost",
    "slash_completer",
    "all_commands",
    "command",
    "complete",
    "completion_options",
    "dispatch",
    "find_command",
    "help_markdown",
    "parse",
]
