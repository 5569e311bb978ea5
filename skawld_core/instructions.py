"""Instruction files ("memory"): AGENTS.md and CLAUDE.md, read the way Claude Code reads them.

Which files, in the order they reach the system prompt:

1. user level: `~/.skawld/AGENTS.md`, `~/.claude/CLAUDE.md`;
2. project level, at the repository root: `AGENTS.md`, `CLAUDE.md`, `.claude/CLAUDE.md`,
   `CLAUDE.local.md` (each once, whichever exist);
3. nested: a `CLAUDE.md` or `AGENTS.md` in a subdirectory of the project joins the context the
   first time the model reads a file below it (`NestedInstructions`).

`@path` imports inside any of them are inlined after the importing file: relative to the
importing file (`@~/x` from the home directory), five levels deep at most, each file once
(a cycle is refused), and never inside code spans or fenced code blocks. An import that leaves
the project (or, for a user file, the user's home) is only followed when the caller allows it;
otherwise it is reported in `InstructionSet.refused` so the trust gate can ask
(`skawld_core.trust_items.instruction_items` lists every such import for the acceptance).
A project file that is itself a link out of the project is read only when the caller allows
outside reads (the trust gate lists it). A nested file (read when the model reads below it)
never imports from, or links to, a file outside the project.

Each file is capped at `MAX_INSTRUCTION_CHARS` characters (Claude Code warns above 40k):
a longer one is cut there and reported in `InstructionSet.truncated`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "MAX_IMPORT_DEPTH",
    "MAX_INSTRUCTION_CHARS",
    "NESTED_FILE_NAMES",
    "PROJECT_FILE_NAMES",
    "InstructionFile",
    "InstructionSet",
    "NestedInstructions",
    "find_repo_root",
    "load_instructions",
    "project_instruction_files",
    "user_instruction_paths",
]

MAX_IMPORT_DEPTH = 5
MAX_INSTRUCTION_CHARS = 100_000
PROJECT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
NESTED_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")

# `@path` at the start of the text or after whitespace; the path ends at whitespace.
_IMPORT = re.compile(r"(?:(?<=\s)|^)@((?:~/|\.{0,2}/)?[^\s`@][^\s`]*)", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")


@dataclass(frozen=True)
class InstructionFile:
    """One file that went into the prompt; `imported_by` is set for an `@` import."""

    path: Path
    text: str
    imported_by: Path | None = None


@dataclass
class InstructionSet:
    """The files read (in prompt order) and the imports that were not followed."""

    files: list[InstructionFile] = field(default_factory=list)
    refused: list[tuple[Path, Path, str]] = field(default_factory=list)  # (importer, target, reason)
    truncated: list[tuple[Path, int]] = field(default_factory=list)  # (file, its size in bytes)

    @property
    def paths(self) -> list[Path]:
        """Every file read, imports included."""
        return [f.path for f in self.files]

    def prompt_text(self) -> str:
        """The files as system-prompt sections (empty files left out)."""
        sections = []
        for f in self.files:
            body = f.text.strip()
            if not body:
                continue
            origin = f" (imported by {f.imported_by})" if f.imported_by else ""
            sections.append(f"Instructions from {f.path}{origin}:\n\n{body}")
        return "\n\n".join(sections)


def find_repo_root(start: Path) -> Path:
    """The nearest ancestor holding `.git` (file or directory), else `start`."""
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    return start


def project_instruction_files(cwd: Path) -> list[Path]:
    """The project-level instruction files that exist, at the repository root of `cwd`."""
    root = find_repo_root(cwd)
    return [root / name for name in PROJECT_FILE_NAMES if (root / name).is_file()]


def user_instruction_paths(home: Path) -> list[Path]:
    """The user-level files: skawld's own first, then Claude Code's."""
    return [home / ".skawld" / "AGENTS.md", home / ".claude" / "CLAUDE.md"]


def _imports(text: str) -> list[str]:
    """`@path` references outside fenced code blocks and code spans."""
    visible = _CODE_SPAN.sub(" ", _FENCE.sub(" ", text))
    return [m.group(1).rstrip(".,;:)") for m in _IMPORT.finditer(visible)]


def _within(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


class _Reader:
    def __init__(self, home: Path, allowed_roots: Sequence[Path], allow_outside: bool) -> None:
        self.home = home
        self.allowed_roots = [r.resolve() for r in allowed_roots]
        self.allow_outside = allow_outside
        self.result = InstructionSet()
        self.seen: set[Path] = set()
        self.gate_links = False  # project files: one that is a link out of the project needs trust

    def read(self, path: Path, *, imported_by: Path | None = None, depth: int = 0) -> None:
        real = path.resolve()
        outside = not self.allow_outside and not _within(real, self.allowed_roots)
        if self.gate_links and imported_by is None and outside:
            self.result.refused.append((path, real, "links outside the project (needs trust)"))
            return
        if real in self.seen:
            if imported_by is not None:
                self.result.refused.append((imported_by, path, "already included (import cycle or duplicate)"))
            return
        try:
            with real.open(encoding="utf-8") as stream:
                text = stream.read(MAX_INSTRUCTION_CHARS + 1)
            if len(text) > MAX_INSTRUCTION_CHARS:
                text = text[:MAX_INSTRUCTION_CHARS]
                self.result.truncated.append((path, real.stat().st_size))
        except (OSError, UnicodeDecodeError) as exc:
            if imported_by is not None:
                self.result.refused.append((imported_by, path, f"cannot read: {exc}"))
            return
        self.seen.add(real)
        self.result.files.append(InstructionFile(path=path, text=text, imported_by=imported_by))
        for ref in _imports(text):
            target = self.home / ref[2:] if ref.startswith("~/") else path.parent / ref
            if not target.is_file():
                continue  # `@someone` in prose, not a file
            if depth + 1 > MAX_IMPORT_DEPTH:
                self.result.refused.append((path, target, f"imports nest deeper than {MAX_IMPORT_DEPTH}"))
                continue
            if not self.allow_outside and not _within(target.resolve(), self.allowed_roots):
                self.result.refused.append((path, target, "outside the project (needs trust)"))
                continue
            self.read(target, imported_by=path, depth=depth + 1)


def load_instructions(
    project_root: Path,
    *,
    home: Path,
    cwd: Path | None = None,
    allow_imports_outside: bool = False,
    include_user: bool = True,
) -> InstructionSet:
    """Read the user-level and project-level files with their imports.

    With `cwd` below `project_root`, the `CLAUDE.md` / `AGENTS.md` of each directory
    from the root down to `cwd` are read too (Claude Code reads the ones above the
    working directory at start; those below it are `NestedInstructions`).
    A user-level file may import from the home directory; a project file from the
    project, and from elsewhere only with `allow_imports_outside` (a trusted project).
    `include_user=False` leaves the user-level files out (the trust scan).
    """
    reader = _Reader(home, [home], allow_imports_outside)
    for path in user_instruction_paths(home) if include_user else ():
        if path.is_file():
            reader.read(path)
    reader.allowed_roots = [project_root.resolve()]
    reader.gate_links = True
    for path in project_instruction_files(project_root):
        reader.read(path)
    for directory in _dirs_below(project_root, cwd):
        for name in NESTED_FILE_NAMES:
            if (directory / name).is_file():
                reader.read(directory / name)
    return reader.result


def _dirs_below(root: Path, leaf: Path | None) -> list[Path]:
    """The directories from just below `root` down to `leaf` (inclusive), top first."""
    if leaf is None:
        return []
    root, leaf = root.resolve(), leaf.resolve()
    chain: list[Path] = []
    while leaf != root and leaf.is_relative_to(root):
        chain.append(leaf)
        leaf = leaf.parent
    return chain[::-1]


class NestedInstructions:
    """`CLAUDE.md` / `AGENTS.md` files below the project root, announced once each.

    `for_read(path)` returns the text of the nested files between the project root
    (exclusive) and the directory of `path` that have not been announced yet, so the
    caller can attach them to a Read result.
    """

    def __init__(self, project_root: Path, *, home: Path) -> None:
        self.root = project_root.resolve()
        self.home = home
        self.announced: set[Path] = set()

    def reminders_for(self, tool_name: str, tool_input: dict[str, object]) -> list[str]:
        """Reminder texts for a finished `Read` call (none for other tools)."""
        path = tool_input.get("file_path")
        if tool_name != "Read" or not isinstance(path, str):
            return []
        files = self.for_read(self.root / path)
        return [f"Contents of {f.path} (instructions for files below it):\n\n{f.text.strip()}" for f in files]

    def for_read(self, path: Path) -> list[InstructionFile]:
        """The nested instruction files that reading `path` brings into view."""
        try:
            target = path.resolve()
        except OSError:
            return []
        if not target.is_relative_to(self.root):
            return []
        found: list[InstructionFile] = []
        for d in _dirs_below(self.root, target if target.is_dir() else target.parent):
            for name in NESTED_FILE_NAMES:
                candidate = d / name
                if candidate in self.announced or not candidate.is_file():
                    continue
                self.announced.add(candidate)
                reader = _Reader(self.home, [self.root], allow_outside=False)
                reader.gate_links = True
                reader.read(candidate)
                found.extend(reader.result.files)
        return found
