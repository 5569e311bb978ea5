"""Commands over the conversation itself: /compact [focus], /init."""

from __future__ import annotations

from .base import CommandHost, command

INIT_PROMPT = """\
Please analyse this codebase and create an AGENTS.md file in the project root, which will be \
given to future coding agents (like you) working in this repository.

What to add:
1. The commands that are used often: how to build, lint and run the tests, including how to run \
a single test.
2. The high-level architecture and code structure, the "big picture" that needs several files to \
understand, so the next agent is productive sooner.

Usage notes:
- Do not repeat yourself, and do not list every component or file that is easy to discover.
- Do not include generic development practices or made-up sections ("Tips", "Common tasks") \
unless the repository's own files say so.
- If there are Cursor rules (`.cursor/rules/`, `.cursorrules`), Copilot instructions \
(`.github/copilot-instructions.md`) or a README, include their important parts.
- Start the file with:

# AGENTS.md

This file gives guidance to coding agents working with code in this repository.
"""

IMPROVE_PROMPT = """\
This project already has {files}. Please analyse the codebase and suggest improvements to it, \
then make them: fix what is out of date, add the commands that are used often (build, lint, \
tests, a single test) and the high-level architecture that needs several files to understand. \
Keep it short; do not add generic advice or list what is easy to discover.
"""


@command("compact", "Summarise the conversation to free context", args="[focus]", idle_only=True)
async def compact_command(host: CommandHost, args: str) -> None:
    if host.agent is None or host.session is None:
        return
    event = await host.session.compact(focus=args or None)
    if event is None:
        await host.note("nothing to compact")
        return
    focus = f" (focus: {args})" if args else ""
    await host.divider(f"context compacted: {event.messages_before} → {event.messages_after} messages{focus}")


@command("init", "Ask the model to write (or improve) AGENTS.md for this project")
async def init_command(host: CommandHost, args: str) -> None:
    if host.agent is None:
        return
    cwd = host.agent.cwd
    existing = [name for name in ("AGENTS.md", "CLAUDE.md") if (cwd / name).is_file()]
    prompt = IMPROVE_PROMPT.format(files=" and ".join(existing)) if existing else INIT_PROMPT
    if args:
        prompt += f"\nAlso: {args}\n"
    await host.prompt(prompt)
