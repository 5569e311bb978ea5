"""The slash command table: names, help, argument hints; parsing and completion."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SlashCommand:
    """One `/command` of the prompt."""

    name: str
    help: str
    args: str = ""


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("help", "Show commands and keys"),
    SlashCommand("new", "Start a new session"),
    SlashCommand("resume", "Resume a stored session (picker with search)", "[id]"),
    SlashCommand("rename", "Rename this session", "<title>"),
    SlashCommand("fork", "Continue in a copy of this session (up to prompt N)", "[N]"),
    SlashCommand("rewind", "Restore code and/or conversation to before a prompt"),
    SlashCommand("compact", "Summarise the conversation to free context"),
    SlashCommand("model", "Show or switch the model", "[name]"),
    SlashCommand("mode", "Show or set the permission mode", "[default|acceptEdits|plan|yolo]"),
    SlashCommand("permissions", "List permission rules; remove remembered ones", "[remove <n>]"),
    SlashCommand("usage", "Tokens and cost of this session"),
    SlashCommand("skills", "List loaded skills"),
    SlashCommand("agents", "List subagent types"),
    SlashCommand("mcp", "List MCP servers"),
    SlashCommand("tasks", "List this session's tasks"),
    SlashCommand("export", "Write the conversation to a Markdown file", "[path]"),
    SlashCommand("exit", "Quit skawld"),
)

BY_NAME = {c.name: c for c in COMMANDS}
ALIASES = {"quit": "exit", "clear": "new", "?": "help"}
MODES = ("default", "acceptEdits", "plan", "yolo")
# Shift+Tab cycles these (Claude Code's order); yolo is reached only by /mode yolo or a flag.
CYCLE = ("default", "acceptEdits", "plan")


def parse(text: str) -> tuple[str, str] | None:
    """`("name", "args")` for a slash command line, else None (`//x` is plain text)."""
    text = text.strip()
    if not text.startswith("/") or text.startswith("//") or len(text) < 2:
        return None
    name, _, args = text[1:].partition(" ")
    name = ALIASES.get(name, name)
    return name, args.strip()


def complete(text: str) -> list[SlashCommand]:
    """Commands whose name starts with what follows the `/` (only while no space is typed)."""
    if not text.startswith("/") or " " in text or "\n" in text:
        return []
    prefix = text[1:].lower()
    return [c for c in COMMANDS if c.name.startswith(prefix)]


def next_mode(mode: str) -> str:
    """The permission mode after `mode` in the Shift+Tab cycle (never yolo; from yolo: default)."""
    i = CYCLE.index(mode) if mode in CYCLE else -1
    return CYCLE[(i + 1) % len(CYCLE)]


def help_text() -> str:
    """Markdown for /help."""
    rows = [f"| `/{c.name}{' ' + c.args if c.args else ''}` | {c.help} |" for c in COMMANDS]
    keys = [
        "| `Enter` | send (while a run is going: steer) |",
        "| `Shift+Enter` / `Ctrl+J` | new line |",
        "| `Up` / `Down` | prompt history |",
        "| `Shift+Tab` | cycle permission mode: default → acceptEdits → plan |",
        "| `Esc` | stop the run now (the stream and running tools end) |",
        "| `Ctrl+S` | finish this step, then stop |",
        "| `Esc` `Esc` on an empty prompt | rewind (/rewind) |",
        "| `Ctrl+C` | copy the selection; else stop the run; else clear the prompt (twice: quit) |",
        "| `@path` + `Tab` | complete a file path |",
    ]
    return "| command | |\n|---|---|\n" + "\n".join(rows) + "\n\n| key | |\n|---|---|\n" + "\n".join(keys)
