"""What a project acceptance covers besides its config files: `TrustItem`s.

Each item is one thing in the project that can run code, read outside the project or
widen permissions: a skill or a command that grants tools, a command's ``!`…` `` lines
and `@` attachments, an instruction file that imports (or links to) a file outside the
project. An item has a kind, a stable key and a digest of what was accepted; its
`token` goes into the acceptance (``~/.skawld/trusted-projects.json``), so a new or
changed item is noticed and asked about again. Each kind comes from one `ItemSource`
in `ITEM_SOURCES`; another source of project code (plugins, say) adds its own there.

The config loader imports this module when it loads a config (the skills and
subagents packages it reads bring the tools in).

`withheld` items do not block a project that was never accepted: until the user
accepts, the grant is not applied (a command's `allowed-tools`, a skill's tools, an
outside import). Items that are not withheld (an instruction file that is a link out
of the project) block like a config request.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .command_files import FileCommand, command_dirs, load_file_commands, outside_refs
from .instructions import find_repo_root, load_instructions
from .skills.loader import load_skills
from .subagents.definitions import load_agent_definitions
from .trust import TrustRequest, inside
from .trust_scripts import bash_rule_command, scripts_digest

__all__ = [
    "ITEM_SOURCES",
    "ItemSource",
    "TrustItem",
    "TrustScope",
    "command_items",
    "grant_items",
    "instruction_items",
    "project_items",
]


@dataclass(frozen=True)
class TrustItem:
    """One fingerprinted thing: `kind`, `key` (its identity) and `digest` (its accepted state)."""

    kind: str
    key: str
    digest: str = ""
    requests: tuple[TrustRequest, ...] = ()
    withheld: bool = True

    @property
    def token(self) -> str:
        """The string the acceptance records."""
        return ":".join([self.kind, self.key, *([self.digest] if self.digest else [])])


def grant_items(config_dirs: Sequence[Path]) -> list[TrustItem]:
    """What the project's skills and agents would grant: tools without asking, another model."""
    dirs = [d for d in config_dirs if (d / "skills").is_dir() or (d / "agents").is_dir()]
    if not dirs:
        return []
    items: list[TrustItem] = []
    for skill in load_skills(dirs, ()).skills:
        if not (skill.allowed_tools or skill.model):
            continue
        tools = ", ".join(skill.allowed_tools)
        requests = (TrustRequest("widens", "", f"the skill {skill.name!r} runs {tools} without asking"),)
        items.append(
            TrustItem(
                "skill",
                str(skill.directory),
                f"{','.join(skill.allowed_tools)}:{skill.model or ''}",
                requests if skill.allowed_tools else (),
            )
        )
    for agent in load_agent_definitions(dirs).agents:
        if agent.model:
            items.append(TrustItem("agent", str(agent.path), agent.model))
    return items


def command_items(work: Path, home: Path) -> list[TrustItem]:
    """The project's command files (``.skawld/commands``, ``.claude/commands``) that can run
    or read something: `allowed-tools`, a `model`, ``!`…` `` lines, `@` files outside the
    project. The digest is the whole file's (its prompt runs with those grants) and that of the
    project scripts its ``!`…` `` lines and ``Bash(…)`` grants run (`skawld_core.trust_scripts`)."""
    project_dirs, user_dirs = command_dirs(work, home)[:2], command_dirs(work, home)[2:]
    dirs = [d for d in project_dirs if d.is_dir() and d not in user_dirs]  # run in ~: yours
    if not dirs:
        return []
    items: list[TrustItem] = []
    for command in load_file_commands(dirs)[0]:
        where = f"/{command.name} ({command.path})"
        requests: list[TrustRequest] = []
        if command.allowed_tools:
            tools = ", ".join(command.allowed_tools)
            requests.append(TrustRequest("widens", "", f"the command {where} runs {tools} without asking"))
        requests.extend(TrustRequest("runs", "", f"`{line}` when {where} is typed") for line in command.shell_lines)
        requests.extend(
            TrustRequest("reads", "", f"{target} into the prompt when {where} is typed")
            for target in outside_refs(command, work, home)
        )
        if command.model:
            requests.append(TrustRequest("sends", "", f"the prompt of {where} to the model {command.model}"))
        if requests:
            digest = hashlib.sha256(command.path.read_bytes()).hexdigest()
            if ran := _ran_digest(command, work):
                digest += f"+{ran}"
            items.append(TrustItem("command", str(command.path), digest, tuple(requests)))
    return items


def _ran_digest(command: FileCommand, work: Path) -> str:
    granted = [c for tool in command.allowed_tools if (c := bash_rule_command(tool))]
    return scripts_digest([*command.shell_lines, *granted], work)


def instruction_items(work: Path, base: Path, home: Path) -> list[TrustItem]:
    """Instruction files that link out of the repository (at its root or on the way to the
    working directory; blocking, as before) and every `@` import from a project instruction
    file to a file outside the project (withheld: not followed until accepted)."""
    root = find_repo_root(work).resolve()
    items: list[TrustItem] = []
    scan = load_instructions(root, home=home, cwd=work, allow_imports_outside=True, include_user=False)
    for f in scan.files:
        target = f.path.resolve()
        if inside(target, root) or inside(target, base):
            continue
        if f.imported_by is None:  # the file itself is a link out of the project: blocks, as before
            what = f"{target} into the prompt sent to the model ({f.path} links there)"
            items.append(
                TrustItem("instructions", f"{f.path}->{target}", "", (TrustRequest("reads", "", what),), False)
            )
            continue
        what = f"{target} into the prompt sent to the model (imported by {f.imported_by})"
        items.append(TrustItem("import", f"{f.imported_by}->{target}", "", (TrustRequest("reads", "", what),)))
    return items


@dataclass(frozen=True)
class TrustScope:
    """Where a source looks: the working directory, the project (config) directory,
    the home directory and the project's own skill/agent directories."""

    work: Path
    base: Path
    home: Path
    config_dirs: tuple[Path, ...] = ()


ItemSource = Callable[[TrustScope], list[TrustItem]]
"""One kind of fingerprinted project content."""

ITEM_SOURCES: tuple[ItemSource, ...] = (
    lambda s: instruction_items(s.work, s.base, s.home),
    lambda s: grant_items(s.config_dirs),
    lambda s: command_items(s.work, s.home),
)


def project_items(scope: TrustScope, sources: Sequence[ItemSource] = ITEM_SOURCES) -> list[TrustItem]:
    """Every item the acceptance of the project in `scope` covers, source by source."""
    return [item for source in sources for item in source(scope)]
