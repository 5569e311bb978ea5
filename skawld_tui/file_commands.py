"""Custom slash commands from Markdown files, in Claude Code's format.

`.skawld/commands/*.md`, `.claude/commands/*.md`, `~/.skawld/commands/*.md` and
`~/.claude/commands/*.md` (in that order; the first wins a name clash), then each
plugin's commands. A file in a subfolder is namespaced: `commands/frontend/component.md`
is `/frontend:component`; a plugin's are under its name (`/plugin:command`).

Frontmatter (all optional): `description`, `argument-hint`, `allowed-tools`, `model`.
The body is the prompt, expanded when the command is typed:

- `$ARGUMENTS` is everything after the command; `$1` … `$9` are its words (shell quoting);
- `@path` attaches that file's content (relative to the working directory, `~/` from
  the home directory, or absolute; only files the permission rules let the model read).
  A project's command attaches a file outside the project only when the project is
  accepted (the acceptance lists those files: `skawld_core.trust_items`), or when the
  user typed the reference in the arguments;
- ``!`command` `` runs the command first and puts its output in its place. It runs
  through the permission engine like a Bash call: a deny rule refuses it, an allow rule
  or the command's own `allowed-tools` lets it run, and anything else refuses the
  whole command with a message saying what to allow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skawld_core.command_files import (
    FILE_REF,
    SHELL_LINE,
    FileCommand,
    command_dirs,
    load_file_commands,
    resolve_ref,
    substitute_command_args,
)
from skawld_core.skills.frontmatter import model_override

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.session import Session

__all__ = [
    "CommandExpansionError",
    "ExpandedCommand",
    "FileCommand",
    "command_dirs",
    "expand_command",
    "load_file_commands",
]

MAX_ATTACHED_CHARS = 100_000


class CommandExpansionError(Exception):
    """A command could not be expanded (a refused `!` command, an unreadable file)."""


@dataclass
class ExpandedCommand:
    """The prompt a command turns into, and the run settings it asks for."""

    prompt: str
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None
    attached: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def command_model(command: FileCommand, agent: Agent) -> tuple[str | None, str | None]:
    """The model a command's prompt runs on (None: the session's) and a warning when
    its `model:` is a Claude Code alias the agent's provider does not know."""
    if command.model is None:
        return None, None
    written = model_override(command.model)
    model = agent.definition_model(written)
    if written is not None and model is None:
        return None, f"/{command.name}: model {command.model!r} is a Claude Code alias; using the session's model"
    return model, None


async def _run_shell(command: FileCommand, line: str, agent: Agent, session: Session, *, trusted: bool) -> str:
    from skawld_core.permissions import PermissionEngine
    from skawld_core.permissions.types import PendingToolCall
    from skawld_core.settings import tool_rules

    call = PendingToolCall(
        tool_name="Bash", tool_use_id="command", input={"command": line}, summary=line, scope="exec", cwd=agent.cwd
    )
    decision = agent.permissions.evaluate(call).behavior
    own_rules_apply = trusted or not _project_command(command, agent)
    if decision == "ask" and command.allowed_tools and own_rules_apply:
        own = PermissionEngine(rules=tool_rules(list(command.allowed_tools), "allow"), project_root=agent.cwd)
        decision = "allow" if own.evaluate(call).behavior == "allow" else "ask"
    if decision != "allow":
        verdict = "is denied by a permission rule" if decision == "deny" else "needs permission"
        raise CommandExpansionError(
            f"/{command.name}: !`{line}` {verdict}; allow it in the command's allowed-tools (Bash({line})) "
            "or in your permission rules"
        )
    tool = session.tools.get("Bash")
    if tool is None:
        raise CommandExpansionError(f"/{command.name}: !`{line}` needs the Bash tool, which is not enabled")
    context = session.tool_context("command", "command", lambda _event: None)
    result = await tool.execute(tool.validate({"command": line}), context)
    return (
        result.content if isinstance(result.content, str) else "\n".join(getattr(b, "text", "") for b in result.content)
    )


def _project_command(command: FileCommand, agent: Agent) -> bool:
    """A command file of the project, not the user's own (which live under ~ even when cwd is ~)."""
    path = command.path.resolve()
    home = Path.home().resolve()
    if any(path.is_relative_to(home / d / "commands") for d in (".skawld", ".claude")):
        return False
    return path.is_relative_to(agent.cwd.resolve())


def _attach(command: FileCommand, ref: str, agent: Agent, *, outside_ok: bool) -> tuple[str, Path] | None:
    path = resolve_ref(ref, agent.cwd, Path.home())
    if not path.is_file():
        return None  # `@someone` in prose
    if not outside_ok and not path.is_relative_to(agent.cwd.resolve()):
        raise CommandExpansionError(
            f"/{command.name}: @{ref} is outside the project; this project's commands attach files "
            "from outside it only once you accept the project (--accept-project-config)"
        )
    if not agent.permissions.can_read(path):
        raise CommandExpansionError(f"/{command.name}: @{ref} is not readable under the permission rules")
    try:
        text = path.read_text(encoding="utf-8")[:MAX_ATTACHED_CHARS]
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandExpansionError(f"/{command.name}: cannot attach @{ref}: {exc}") from None
    return text, path


async def expand_command(
    command: FileCommand, args: str, *, agent: Agent, session: Session, trusted: bool = False
) -> ExpandedCommand:
    """The prompt for `/name args`; raises `CommandExpansionError` with a readable message.

    A project's command file (below the working directory) grants its `allowed-tools`
    to its `!` lines, and attaches files from outside the project, only when the project
    is `trusted`; the user's own always do.
    """
    body = substitute_command_args(command.body, args)
    pieces: list[str] = []
    last = 0
    for match in SHELL_LINE.finditer(body):
        pieces.append(body[last : match.start()])
        pieces.append(await _run_shell(command, match.group(1).strip(), agent, session, trusted=trusted))
        last = match.end()
    pieces.append(body[last:])
    prompt = "".join(pieces)
    granted = trusted or not _project_command(command, agent)  # an unaccepted project's grants wait
    model, warning = command_model(command, agent) if granted else (None, None)
    expanded = ExpandedCommand(prompt="", allowed_tools=command.allowed_tools, model=model)
    if warning:
        expanded.warnings.append(warning)
    if command.model is not None and not granted:
        expanded.warnings.append(
            f"/{command.name}: its model {command.model!r} is not used until you accept the project "
            "(--accept-project-config)"
        )
    attachments: list[str] = []
    typed = {m.group(1).rstrip(".,;:)") for m in FILE_REF.finditer(args)}
    template = SHELL_LINE.sub(" ", body)  # `@` in the command itself, never in what its `!` lines printed
    for match in FILE_REF.finditer(template):
        ref = match.group(1).rstrip(".,;:)")
        outside_ok = trusted or ref in typed or not _project_command(command, agent)
        hit = _attach(command, ref, agent, outside_ok=outside_ok)
        if hit is not None and hit[1] not in expanded.attached:
            expanded.attached.append(hit[1])
            attachments.append(f'<file path="{ref}">\n{hit[0]}\n</file>')
    expanded.prompt = "\n\n".join([prompt.strip(), *attachments])
    return expanded


class PromptCommands:
    """File commands and skills typed as `/name args`, for the app, plain and headless modes.

    Built-in commands are the caller's and come first; `prompt_for` turns a typed
    line into the prompt to run (None when it is not a file command or a skill).
    """

    def __init__(self, agent: Agent, *, home: Path, trusted: bool = False) -> None:
        self.agent = agent
        self.trusted = trusted
        plugin_sources = [src for p in agent.plugins for src in p.namespaced(p.commands)]
        self.commands, self.skipped = load_file_commands(command_dirs(agent.cwd, home), plugin_sources)
        self.by_name = {c.name: c for c in self.commands}

    def completions(self) -> list[tuple[str, str, str]]:
        """(name, argument hint, description) of every file command and skill."""
        rows = [(c.name, c.argument_hint or "", c.description) for c in self.commands]
        rows += [(s.name, s.argument_hint or "", s.description) for s in self.agent.skill_summaries()]
        return rows

    async def expand(self, name: str, args: str, session: Session) -> ExpandedCommand | None:
        """What `/name args` turns into, or None; raises `CommandExpansionError`."""
        if name.startswith("mcp__") and self.agent.extensions.mcp is not None:
            from .mcp_prompts import expand_mcp_prompt  # lazy: only for an MCP server's prompt

            text = await expand_mcp_prompt(self.agent.extensions.mcp, name, args)
            if text is not None:
                return ExpandedCommand(prompt=text)
        command = self.by_name.get(name)
        if command is not None:
            return await expand_command(command, args, agent=self.agent, session=session, trusted=self.trusted)
        if any(s.name == name for s in self.agent.skill_summaries()):
            # Through the Skill tool, so its permission prompt and the trust gate apply as usual.
            text = f'Run the "{name}" skill with the Skill tool' + (f" (args: {args})" if args else "") + "."
            return ExpandedCommand(prompt=text)
        return None

    async def prompt_for(self, name: str, args: str, session: Session) -> str | None:
        """The prompt for `/name args`, or None; raises `CommandExpansionError`."""
        expanded = await self.expand(name, args, session)
        return expanded.prompt if expanded is not None else None

    async def expand_typed(self, text: str, session: Session, warn: Callable[[str], None] | None = None) -> str:
        """`text` itself unless it is `/name args` for a file command or a skill; a command's
        `model:` is used for the prompt's run (`warn` gets what could not be applied)."""
        if not text.lstrip().startswith("/"):
            return text  # the usual case: no need to load the command registry
        from .commands.registry import parse  # lazy: the command registry imports this module (a cycle)

        parsed = parse(text)
        if parsed is None:
            return text
        expanded = await self.expand(parsed[0], parsed[1], session)
        if expanded is None:
            return text
        apply_model(expanded, session, warn)
        return expanded.prompt


async def expand_prompt(
    agent: Agent, session: Session, text: str, settings: Any, warn: Callable[[str], None] | None = None
) -> str:
    """A headless prompt: `/name args` for a file command or skill expanded, anything else as is.
    Raises `CommandExpansionError`."""
    if not text.lstrip().startswith("/"):
        return text
    trusted = bool(getattr(settings, "project_trusted", False))
    return await PromptCommands(agent, home=Path.home(), trusted=trusted).expand_typed(text, session, warn)


def apply_model(expanded: ExpandedCommand, session: Session, warn: Callable[[str], None] | None = None) -> None:
    """Run the prompt's run on the command's model (then the session's again)."""
    for warning in expanded.warnings:
        if warn is not None:
            warn(warning)
    if expanded.model:
        session.use_model_for_run(expanded.model)
