"""Custom slash command files in Claude Code's format: finding and parsing them.

`.skawld/commands/*.md`, `.claude/commands/*.md`, `~/.skawld/commands/*.md` and
`~/.claude/commands/*.md` (in that order; the first wins a name clash). A file in a
subfolder is namespaced: `commands/frontend/component.md` is `/frontend:component`.
Frontmatter (all optional): `description`, `argument-hint`, `allowed-tools`, `model`.

This module only reads the files (the trust gate fingerprints a project's commands
from here); expanding a typed command is `skawld_tui.file_commands`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .skills.frontmatter import FrontmatterError, split_frontmatter
from .skills.substitute import substitute_command_args

__all__ = [
    "FILE_REF",
    "SHELL_LINE",
    "FileCommand",
    "command_dirs",
    "load_file_commands",
    "outside_refs",
    "resolve_ref",
    "substitute_command_args",
]

FILE_REF = re.compile(r"(?:(?<=\s)|^)@([^\s`]+)", re.MULTILINE)
"""An `@path` attachment: at the start of a line or after whitespace."""
SHELL_LINE = re.compile(r"!`([^`\n]+)`")
"""A ``!`command` `` line, run before the prompt is sent."""


@dataclass(frozen=True)
class FileCommand:
    """One command file."""

    name: str
    description: str
    body: str
    path: Path
    argument_hint: str | None = None
    allowed_tools: tuple[str, ...] = ()
    model: str | None = None  # as written; `skawld_tui.file_commands.command_model` resolves it

    @property
    def shell_lines(self) -> list[str]:
        """The ``!`…` `` commands of the body, as written."""
        return [m.group(1).strip() for m in SHELL_LINE.finditer(self.body)]

    @property
    def file_refs(self) -> list[str]:
        """The `@path` references of the body, as written (trailing punctuation dropped)."""
        return [m.group(1).rstrip(".,;:)") for m in FILE_REF.finditer(self.body)]


def command_dirs(cwd: Path, home: Path) -> list[Path]:
    """Where command files are looked for, in precedence order."""
    return [
        cwd / ".skawld" / "commands",
        cwd / ".claude" / "commands",
        home / ".skawld" / "commands",
        home / ".claude" / "commands",
    ]


def resolve_ref(ref: str, cwd: Path, home: Path) -> Path:
    """Where an `@ref` points: `~/x` from `home`, absolute as is, anything else from `cwd`."""
    if ref == "~" or ref.startswith("~/"):
        return (home / ref[2:]).resolve()
    return (cwd / ref).resolve()


def outside_refs(command: FileCommand, project: Path, home: Path) -> list[Path]:
    """The existing files the command's body attaches from outside `project`."""
    out: list[Path] = []
    root = project.resolve()
    for ref in command.file_refs:
        target = resolve_ref(ref, project, home)
        if target.is_file() and not target.is_relative_to(root) and target not in out:
            out.append(target)
    return out


def _tools(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        # `Bash(git add:*), Bash(git status:*)`: commas inside parentheses belong to the spec.
        parts, depth, cur = [], 0, ""
        for ch in value:
            depth += (ch == "(") - (ch == ")")
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        return tuple(p.strip() for p in parts if p.strip())
    if isinstance(value, list):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return ()


def _parse(path: Path, name: str) -> FileCommand:
    text = path.read_text(encoding="utf-8")
    try:
        split = split_frontmatter(text)
    except FrontmatterError:
        split = None
    data, body = split if split is not None else ({}, text)
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        first = next((line.strip("# ").strip() for line in body.splitlines() if line.strip()), "")
        description = first[:80] or f"/{name}"
    hint = data.get("argument-hint", data.get("argument_hint"))
    raw_model = data.get("model")
    return FileCommand(
        name=name,
        description=" ".join(description.split()),
        body=body.strip(),
        path=path,
        argument_hint=str(hint) if hint is not None else None,
        allowed_tools=_tools(data.get("allowed-tools", data.get("allowed_tools"))),
        model=str(raw_model).strip() or None if raw_model is not None else None,
    )


def _command_files(source: Path, prefix: str) -> list[tuple[Path, str]]:
    """(file, command name) for a commands folder (subfolders namespace) or one command file."""
    files: list[tuple[Path, tuple[str, ...]]]
    if source.is_file():
        files = [(source, (source.stem,))]
    elif source.is_dir():
        files = [(p, p.relative_to(source).with_suffix("").parts) for p in sorted(source.rglob("*.md"))]
    else:
        return []
    return [
        (p, ":".join([*([prefix] if prefix else []), *(x.lower().replace(" ", "-") for x in parts)]))
        for p, parts in files
    ]


def load_file_commands(
    dirs: Sequence[Path], namespaced: Sequence[tuple[Path, str]] = ()
) -> tuple[list[FileCommand], list[tuple[Path, str]]]:
    """The commands (sorted by name) and the files skipped, with why. Never raises.

    `namespaced` are a plugin's folders or files with the plugin's name:
    `commands/review.md` of plugin `pr` is `/pr:review`."""
    found: dict[str, FileCommand] = {}
    skipped: list[tuple[Path, str]] = []
    sources = [(d, "") for d in dirs] + list(namespaced)
    for source, prefix in sources:
        for path, name in _command_files(source, prefix):
            if name in found:
                skipped.append((path, f"/{name} is already defined by {found[name].path}"))
                continue
            try:
                found[name] = _parse(path, name)
            except (OSError, UnicodeDecodeError) as exc:
                skipped.append((path, f"cannot read: {exc}"))
    return sorted(found.values(), key=lambda c: c.name), skipped
