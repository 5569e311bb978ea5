"""What an Edit or Write will change, computed against the file on disk.

`proposed_change` reads the file the call targets and applies the call to a copy,
so the diff has real line numbers, three lines of context, a project-relative path,
and shows what a Write over an existing file replaces. For a call whose file is gone
or already changed (a resumed transcript), it falls back to the call's own text.

`unified_diff` is the plain text (plain mode, exports); `render_diff` is a Rich
renderable with the file's syntax highlighted and the changed words marked.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Rich loads on first render: headless never draws a diff
    from rich.console import RenderableType
    from rich.syntax import Syntax
    from rich.text import Text

__all__ = ["MAX_DIFF_LINES", "FileChange", "proposed_change", "render_diff", "unified_diff"]

MAX_DIFF_LINES = 120
MAX_FILE_BYTES = 2_000_000
_WORD = re.compile(r"\w+|\s+|[^\w\s]")
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass(frozen=True)
class FileChange:
    """The file's text before and after the call; `exists` is False for a new file."""

    path: str
    before: str
    after: str
    exists: bool
    from_disk: bool


def _display_path(raw: str, cwd: Path | None) -> str:
    path = Path(raw)
    if cwd is not None:
        full = path if path.is_absolute() else cwd / path
        try:
            return full.resolve().relative_to(cwd.resolve()).as_posix()
        except (ValueError, OSError):
            return str(full)
    return raw


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def proposed_change(tool_name: str, tool_input: dict[str, Any], cwd: Path | None) -> FileChange | None:
    """The change an Edit or Write call makes (None for other tools)."""
    raw = tool_input.get("file_path") or tool_input.get("path")
    if not isinstance(raw, str) or tool_name not in ("Edit", "Write"):
        return None
    shown = _display_path(raw, cwd)
    target = Path(raw) if Path(raw).is_absolute() or cwd is None else cwd / raw
    on_disk = _read(target) if cwd is not None else None
    if tool_name == "Write":
        content = str(tool_input.get("content", ""))
        if on_disk is not None:
            return FileChange(shown, on_disk, content, exists=True, from_disk=True)
        new_file = cwd is not None and not target.exists()
        return FileChange(shown, "", content, exists=not new_file and cwd is not None, from_disk=new_file)
    old, new = str(tool_input.get("old_string", "")), str(tool_input.get("new_string", ""))
    if on_disk is not None and old and old in on_disk:
        count = -1 if tool_input.get("replace_all") else 1
        return FileChange(shown, on_disk, on_disk.replace(old, new, count), exists=True, from_disk=True)
    return FileChange(shown, old, new, exists=True, from_disk=False)


def unified_diff(change: FileChange, *, context: int = 3) -> str:
    """A unified diff with `a/` and `b/` paths (`/dev/null` for a new file)."""
    before = change.before.splitlines()
    after = change.after.splitlines()
    lines = list(
        difflib.unified_diff(
            before,
            after,
            fromfile=f"a/{change.path}" if change.exists else "/dev/null",
            tofile=f"b/{change.path}",
            lineterm="",
            n=context,
        )
    )
    if not change.from_disk and lines:
        lines[2:3] = [re.sub(r"^@@ .* @@", "@@ (line numbers unknown) @@", lines[2])]
    return "\n".join(lines) or "(no changes)"


def _language(path: str) -> str:
    from rich.syntax import Syntax

    return Syntax.guess_lexer(path, code="") if "." in path else "text"


def _word_spans(old: str, new: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Character spans that differ between two lines, word by word."""
    a, b = _WORD.findall(old), _WORD.findall(new)
    removed: list[tuple[int, int]] = []
    added: list[tuple[int, int]] = []
    pos_a = [0]
    for tok in a:
        pos_a.append(pos_a[-1] + len(tok))
    pos_b = [0]
    for tok in b:
        pos_b.append(pos_b[-1] + len(tok))
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op in ("replace", "delete") and i2 > i1:
            removed.append((pos_a[i1], pos_a[i2]))
        if op in ("replace", "insert") and j2 > j1:
            added.append((pos_b[j1], pos_b[j2]))
    return removed, added


def render_diff(change: FileChange, *, max_lines: int = MAX_DIFF_LINES) -> RenderableType:
    """The diff with syntax highlighting, word-level marks, and a count when it is cut."""
    from rich.console import Group
    from rich.syntax import Syntax
    from rich.text import Text

    text = unified_diff(change)
    lines = text.split("\n")
    if text == "(no changes)":
        return Text(text, style="dim")
    highlighter = Syntax("", _language(change.path), theme="ansi_dark")
    out: list[Text] = []
    i = 0
    shown = lines[:max_lines]
    numbers = _line_numbers(shown) if change.from_disk else [None] * len(shown)
    width = max((len(str(n)) for n in numbers if n is not None), default=0)

    def gutter(index: int) -> str:
        number = numbers[index]
        return "" if not width else f"{'' if number is None else number:>{width}} "

    while i < len(shown):
        line = shown[i]
        if line.startswith(("---", "+++")):
            out.append(Text(line, style="bold"))
        elif line.startswith("@@"):
            out.append(Text(line, style="cyan"))
        elif (
            line.startswith("-")
            and i + 1 < len(shown)
            and shown[i + 1].startswith("+")
            and not shown[i + 1].startswith("+++")
        ):
            removed, added = _word_spans(line[1:], shown[i + 1][1:])
            out.append(_code_line(gutter(i), "-", line[1:], highlighter, "on #3c1618", "on #7a2a2e", removed))
            out.append(_code_line(gutter(i + 1), "+", shown[i + 1][1:], highlighter, "on #15361f", "on #2a6a3a", added))
            i += 2
            continue
        elif line.startswith("-"):
            out.append(_code_line(gutter(i), "-", line[1:], highlighter, "on #3c1618", "", []))
        elif line.startswith("+"):
            out.append(_code_line(gutter(i), "+", line[1:], highlighter, "on #15361f", "", []))
        else:
            out.append(_code_line(gutter(i), " ", line[1:], highlighter, "", "", []))
        i += 1
    if len(lines) > max_lines:
        out.append(Text(f"… {len(lines) - max_lines} more diff lines", style="dim italic"))
    return Group(*out)


def _line_numbers(lines: list[str]) -> list[int | None]:
    """Each diff line's number in the file, as Claude Code shows it: the old file's for a
    removed line, the new file's for an added or context line; None for headers."""
    numbers: list[int | None] = []
    old = new = 0
    for line in lines:
        hunk = _HUNK.match(line)
        if hunk:
            old, new = int(hunk.group(1)), int(hunk.group(2))
            numbers.append(None)
        elif not old and not new:  # the ---/+++ header, before the first hunk
            numbers.append(None)
        elif line.startswith("-"):
            numbers.append(old)
            old += 1
        elif line.startswith("+"):
            numbers.append(new)
            new += 1
        else:
            numbers.append(new)
            old, new = old + 1, new + 1
    return numbers


def _code_line(
    gutter: str,
    marker: str,
    code: str,
    highlighter: Syntax,
    line_style: str,
    word_style: str,
    spans: list[tuple[int, int]],
) -> Text:
    from rich.text import Text

    body = highlighter.highlight(code)
    body.rstrip()
    line = Text()
    if gutter:
        line.append(gutter, style="dim")
    line.append(marker, style="bold red" if marker == "-" else "bold green" if marker == "+" else "dim")
    line.append_text(body)
    if line_style:
        line.stylize(line_style)
    offset = len(gutter) + 1
    for start, end in spans:
        line.stylize(word_style, start + offset, end + offset)
    return line
