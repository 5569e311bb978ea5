"""The everyday built-in commands: help, sessions, model and mode, usage, listings, export, exit."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ..transcript_model import cost_usd, export_markdown, format_cost, format_tokens, price_note
from .base import CommandHost, command

MODES = ("default", "acceptEdits", "plan", "yolo")

YOLO_WARNING = (
    "In yolo mode every tool runs without asking: edits, writes and shell commands anywhere "
    "the sandbox allows, including .git internals and config files. Only deny rules still "
    "stop a call. Shift+Tab or /mode default leaves it."
)
"""What `/mode yolo` says before asking (the app's dialog and the line mode)."""


@command("help", "Show commands and keys", aliases=("?",))
async def help_command(host: CommandHost, args: str) -> None:
    from .registry import help_markdown  # lazy: the registry imports this module (a cycle)

    await host.markdown(help_markdown(host.prompt_commands))


@command("new", "Start a new session", aliases=("clear",), idle_only=True)
async def new_command(host: CommandHost, args: str) -> None:
    await host.open_session(None)
    if host.session is not None:
        host.session.start_source = (
            "clear"  # its SessionStart hooks run with source "clear", as after Claude Code's /clear
        )
    await host.note("new session" + (f" {host.session.id}" if host.session else ""))


@command("resume", "Resume a stored session (picker with search)", args="[id]", idle_only=True)
async def resume_command(host: CommandHost, args: str) -> None:
    from skawld_core.sessions.listing import SessionLookupError, resolve_session_id

    if host.agent is None:
        return
    if not args:
        await host.pick_session()
        return
    try:
        session_id = await resolve_session_id(host.agent.store, args)
    except SessionLookupError as exc:
        await host.note(str(exc), warning=True)
        return
    await host.open_session(session_id)


@command("rename", "Rename this session", args="<title>")
async def rename_command(host: CommandHost, args: str) -> None:
    session = host.session
    if session is None:
        return
    if not args:
        await host.note(f"title: {session.title or '(none yet)'} — use /rename <title>")
        return
    await session.rename(args)
    await host.note(f"renamed: {session.title}")


@command("fork", "Continue in a copy of this session (up to prompt N)", args="[N]", idle_only=True)
async def fork_command(host: CommandHost, args: str) -> None:
    from skawld_core.sessions.meta import prompt_points

    session = host.session
    if session is None:
        return
    upto: int | None = None
    if args:
        points = prompt_points(session.meta, session.full_history)
        if not args.isdigit() or not 1 <= int(args) <= len(points):
            await host.note(f"/fork [N]: N is a prompt number from 1 to {len(points)}", warning=True)
            return
        upto = points[int(args) - 1].index
    copy = await session.fork(upto=upto)
    await host.open_session(copy.id)
    await host.note(f"forked session {session.id[:8]} → {copy.id[:8]}; the original is unchanged")


@command("rewind", "Restore code and/or conversation to before a prompt", idle_only=True)
async def rewind_command(host: CommandHost, args: str) -> None:
    await host.rewind()


@command("model", "Show or switch the model", args="[name]")
async def model_command(host: CommandHost, args: str) -> None:
    agent = host.agent
    if agent is None:
        return
    if args:
        await _switch_model(host, args)
        return
    if host.settings is None:
        await host.markdown(f"model: `{agent.model}`")
        return
    from ..local_models import model_choices  # lazy: server model discovery only for /model

    names, problem = await asyncio.to_thread(model_choices, host.settings)
    if problem is not None:
        await host.markdown(f"model: `{agent.model}`\n\n{problem}")
        return
    options = [(n, f"{n}  (current)" if n == agent.model else n) for n in names[:MODEL_PICKER_LIMIT]]
    title = f"Model (now {agent.model}; /model NAME names any other)"
    await host.choose(title, options, lambda picked: _switch_model(host, picked))


MODEL_PICKER_LIMIT = 200


async def _switch_model(host: CommandHost, name: str) -> None:
    agent = host.agent
    if agent is None:
        return
    agent.model = name
    agent.invalidate_system_prompt()
    host.status_changed()
    await host.note(f"model: {agent.model}")


@command("mode", "Show or set the permission mode", args="[default|acceptEdits|plan|yolo]")
async def mode_command(host: CommandHost, args: str) -> None:
    agent = host.agent
    if agent is None:
        return
    if args:
        if args not in MODES:
            await host.note(f"unknown mode {args!r}: {', '.join(MODES)}", warning=True)
            return
        if args == "yolo" and agent.permission_mode != "yolo" and await host.confirm_yolo():
            return  # declined, or the confirmation dialog switches the mode itself
        agent.set_permission_mode(args)  # type: ignore[arg-type]
        host.status_changed()
    await host.note(f"permission mode: {agent.permission_mode}")


ESTIMATE_NOTE = "\n\nEstimated: the server reports no usage and has no tokenizer (about 4 characters a token)."


@command("usage", "Tokens and cost of this session", aliases=("cost",))
async def usage_command(host: CommandHost, args: str) -> None:

    usage = host.usage
    model = host.agent.model if host.agent else ""
    cost = format_cost(cost_usd(model, usage)) or "unknown (no price for this model)"
    await host.markdown(
        "| | |\n|---|---|\n"
        f"| input tokens | {format_tokens(usage.input_tokens)} |\n"
        f"| output tokens | {format_tokens(usage.output_tokens)} |\n"
        f"| cache read | {format_tokens(usage.cache_read_tokens or 0)} |\n"
        f"| cache write | {format_tokens(usage.cache_creation_tokens or 0)} |\n"
        f"| cost | {cost} |\n"
        f"| prices | {price_note()} |" + (ESTIMATE_NOTE if host.usage_estimated else "")
    )


@command("skills", "List loaded skills")
async def skills_command(host: CommandHost, args: str) -> None:
    skills = host.agent.skill_summaries() if host.agent else []
    if not skills:
        await host.note("no skills loaded (put them in .skawld/skills/<name>/SKILL.md)")
        return
    await host.markdown("\n".join(f"- **/{s.name}** — {s.description}" for s in skills))


@command("agents", "List subagent types")
async def agents_command(host: CommandHost, args: str) -> None:
    found = subagent_types(host.agent)
    if not found:
        await host.note("no subagent types defined (put them in .skawld/agents/<name>.md)")
        return
    await host.markdown("\n".join(f"- **{name}** — {desc}" for name, desc in found))


@command("mcp", "List MCP servers; /mcp login NAME authorizes one", args="[login NAME]")
async def mcp_command(host: CommandHost, args: str) -> None:
    from ..mcp_status import mcp_command_text  # lazy: only when /mcp runs
    from .app_host import AppHost  # lazy: the app's screen or the text listing

    if isinstance(host, AppHost) and not args.strip() and host.agent is not None and host.agent.mcp_servers:
        from ..app.screens.mcp_servers import open_mcp_servers  # lazy: Textual, only in the app

        await open_mcp_servers(host.app)
        return
    await host.markdown(await mcp_command_text(host.agent, args, host.note))


@command("tasks", "List this session's tasks")
async def tasks_command(host: CommandHost, args: str) -> None:
    if host.agent is None or host.session is None:
        return
    tasks = await host.agent.store.list_tasks(host.session.id)
    if not tasks:
        await host.note("no tasks in this session")
        return
    marks = {"pending": "☐", "in_progress": "◐", "completed": "☑"}
    await host.markdown("\n".join(f"- {marks.get(t.status, '·')} **{t.id}** {t.subject} ({t.status})" for t in tasks))


@command("export", "Write the conversation to a Markdown file", args="[path]")
async def export_command(host: CommandHost, args: str) -> None:

    session, agent = host.session, host.agent
    if session is None or agent is None:
        return
    path = Path(args).expanduser() if args else Path(f"skawld-{session.id[:8]}.md")
    if not path.is_absolute():
        path = agent.cwd / path
    path.write_text(export_markdown(session.full_history), encoding="utf-8")
    await host.note(f"exported {len(session.full_history)} messages to {path}")


@command("exit", "Quit skawld", aliases=("quit",))
async def exit_command(host: CommandHost, args: str) -> None:
    await host.quit()


def subagent_types(agent: Any) -> list[tuple[str, str]]:
    """(name, description) of the subagent types, once the subagents extension loaded them."""
    registry = getattr(getattr(agent, "extensions", None), "subagents", None)
    if registry is None:
        return []
    return [(d.name, " ".join((d.description or "").split())) for d in registry.list()]
