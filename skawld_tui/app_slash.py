"""Slash command handlers of `SkawldApp` (a mixin, to keep app.py small)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .file_commands import CommandExpansionError
from .slash_commands import BY_NAME, MODES, help_text
from .transcript_model import cost_usd, export_markdown, format_cost, format_tokens, price_note
from .widgets.blocks import CommandOutput, Divider, ErrorBlock, NoteLine

if TYPE_CHECKING:
    from .app import SkawldApp


class SlashMixin:
    """`run_slash(name, args)` and one `_cmd_<name>` per command."""

    async def run_slash(self, name: str, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        if name not in BY_NAME:
            await self._prompt_command(name, args)
            return
        handler = getattr(self, f"_cmd_{name}")
        try:
            await handler(args)
        except Exception as exc:  # a command never takes the app down
            await app.transcript.mount(ErrorBlock(f"/{name} failed", f"{type(exc).__name__}: {exc}"))
        app.transcript.scroll_end(animate=False)

    async def _prompt_command(self, name: str, args: str) -> None:
        """A command file or a skill typed as `/name args` becomes the next prompt."""
        app: SkawldApp = self  # type: ignore[assignment]
        commands, session = app.prompt_commands, app.session
        prompt = None
        if commands is not None and session is not None:
            try:
                prompt = await commands.prompt_for(name, args, session)
            except CommandExpansionError as exc:
                await app.transcript.mount(NoteLine(str(exc), classes="note -warning"))
                return
        if prompt is None:
            await app.transcript.mount(NoteLine(f"unknown command /{name} — /help lists them", classes="note -warning"))
        elif app.running:
            app._steer(prompt)
        else:
            await app.start_run(prompt)

    async def _out(self, markdown: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        await app.transcript.mount(CommandOutput(markdown))

    async def _busy(self, name: str) -> bool:
        app: SkawldApp = self  # type: ignore[assignment]
        if app.running:
            await app.transcript.mount(
                NoteLine(f"/{name} is not available while a run is going", classes="note -warning")
            )
            return True
        return False

    async def _cmd_permissions(self, args: str) -> None:
        from .screens.permissions import open_permissions

        await open_permissions(self, args)  # type: ignore[arg-type]

    async def _cmd_help(self, args: str) -> None:
        await self._out(help_text())

    async def _cmd_exit(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        await app.action_quit_app()

    async def _cmd_new(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        if await self._busy("new"):
            return
        await app.load_session(None)
        await app.transcript.mount(NoteLine("new session"))

    async def _cmd_compact(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        if await self._busy("compact") or app.agent is None or app.session is None:
            return
        event = await app.session.compact()
        if event is None:
            await app.transcript.mount(NoteLine("nothing to compact"))
            return
        await app.transcript.mount(
            Divider(f"context compacted: {event.messages_before} → {event.messages_after} messages")
        )

    async def _cmd_model(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        if app.agent is None:
            return
        if args:
            app.agent.model = args
            app.agent.invalidate_system_prompt()
            app.status.set(model=args)
            await app.transcript.mount(NoteLine(f"model: {app.agent.model}"))
            return
        lines = [f"model: `{app.agent.model}`"]
        if app.settings is not None:
            import asyncio

            from .local_models import server_models

            try:
                names = await asyncio.to_thread(server_models, app.settings)
            except Exception as exc:  # the list is a convenience: say why it is missing
                lines.append(f"(the server's model list is not available: {exc})")
            else:
                lines += ["", "The server serves (`/model NAME` to switch):", *(f"- `{n}`" for n in names[:50])]
        await self._out("\n".join(lines))

    async def _cmd_mode(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        if app.agent is None:
            return
        if args:
            if args not in MODES:
                await app.transcript.mount(
                    NoteLine(f"unknown mode {args!r}: {', '.join(MODES)}", classes="note -warning")
                )
                return
            if args == "yolo" and app.agent.permission_mode != "yolo":
                app.runs.request_yolo()  # a confirmation dialog first
                return
            app.agent.set_permission_mode(args)  # type: ignore[arg-type]
            app.status.set(mode=args)
        await app.transcript.mount(NoteLine(f"permission mode: {app.agent.permission_mode}"))

    async def _cmd_usage(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        usage = app._base_usage
        model = app.agent.model if app.agent else ""
        cost = format_cost(cost_usd(model, usage)) or "unknown (no price for this model)"
        await self._out(
            "| | |\n|---|---|\n"
            f"| input tokens | {format_tokens(usage.input_tokens)} |\n"
            f"| output tokens | {format_tokens(usage.output_tokens)} |\n"
            f"| cache read | {format_tokens(usage.cache_read_tokens or 0)} |\n"
            f"| cache write | {format_tokens(usage.cache_creation_tokens or 0)} |\n"
            f"| cost | {cost} |\n"
            f"| prices | {price_note()} |"
        )

    async def _cmd_skills(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        skills = app.agent.skill_summaries() if app.agent else []
        if not skills:
            await app.transcript.mount(NoteLine("no skills loaded (put them in .skawld/skills/<name>/SKILL.md)"))
            return
        await self._out("\n".join(f"- **/{s.name}** — {s.description}" for s in skills))

    async def _cmd_agents(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        found = _subagent_types(app.agent)
        if not found:
            await app.transcript.mount(NoteLine("no subagent types defined (put them in .skawld/agents/<name>.md)"))
            return
        await self._out("\n".join(f"- **{name}** — {desc}" for name, desc in found))

    async def _cmd_mcp(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        servers = app.agent.mcp_servers if app.agent else {}
        if not servers:
            await app.transcript.mount(NoteLine("no MCP servers configured"))
            return
        lines = []
        for name, cfg in servers.items():
            where = cfg.get("url") or " ".join([str(cfg.get("command", "")), *map(str, cfg.get("args", []))])
            lines.append(f"- **{name}** — `{where}`")
        await self._out("\n".join(lines))

    async def _cmd_tasks(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        if app.agent is None or app.session is None:
            return
        tasks = await app.agent.store.list_tasks(app.session.id)
        if not tasks:
            await app.transcript.mount(NoteLine("no tasks in this session"))
            return
        marks = {"pending": "☐", "in_progress": "◐", "completed": "☑"}
        await self._out("\n".join(f"- {marks.get(t.status, '·')} **{t.id}** {t.subject} ({t.status})" for t in tasks))

    async def _cmd_export(self, args: str) -> None:
        app: SkawldApp = self  # type: ignore[assignment]
        if app.session is None or app.agent is None:
            return
        path = Path(args) if args else Path(f"skawld-{app.session.id[:8]}.md")
        if not path.is_absolute():
            path = app.agent.cwd / path
        path.write_text(export_markdown(app.session.full_history), encoding="utf-8")
        await app.transcript.mount(NoteLine(f"exported {len(app.session.full_history)} messages to {path}"))


def _subagent_types(agent: Any) -> list[tuple[str, str]]:
    """Subagent definitions if the subagents extension published them."""
    if agent is None:
        return []
    defs = agent.extensions.get("subagents") if isinstance(getattr(agent, "extensions", None), dict) else None
    out: list[tuple[str, str]] = []
    items = defs.items() if isinstance(defs, dict) else []
    for name, d in items:
        out.append((str(name), str(getattr(d, "description", "") or "")))
    return out
