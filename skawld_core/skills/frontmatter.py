"""YAML frontmatter: the `---` block at the top of SKILL.md and agent files."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["SESSION_MODEL_WORDS", "FrontmatterError", "model_override", "name_slug", "split_frontmatter"]

# Claude Code's words for "the session's model". Its other aliases (`sonnet`,
# `fable`…) are kept: the agent resolves them for its provider (model_aliases.py).
SESSION_MODEL_WORDS = frozenset({"inherit", "default"})


class FrontmatterError(ValueError):
    """The frontmatter block is absent, unterminated, or not a YAML mapping."""


def split_frontmatter(text: str) -> tuple[dict[str, Any], str] | None:
    """Split `text` into (frontmatter mapping, body).

    Returns None when the file does not start with a `---` line. Raises
    `FrontmatterError` when the block is unterminated or its YAML is invalid or
    not a mapping. A leading BOM and CRLF line endings are accepted.
    """
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---":
        return None
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            break
    else:
        raise FrontmatterError("frontmatter is not terminated by a '---' line")
    data = _load_yaml("\n".join(lines[1:end]))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter must be a YAML mapping")
    body = "\n".join(lines[end + 1 :])
    return {str(k): v for k, v in data.items()}, body


def _load_yaml(text: str) -> Any:
    """PyYAML's `safe_load`, then Claude Code's leniency when strict YAML fails.

    Claude Code loads agent files whose descriptions are not valid YAML, such as
    `description: Use this agent when… Examples: <example>Context: …</example>`
    with unquoted colons and unindented continuation lines. Those files load here
    too (`_lenient_mapping`); a value that starts like YAML syntax (`[`, `{`, a
    quote) must still be valid YAML.
    """
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        strict_error = exc
    lenient = _lenient_mapping(text)
    if lenient is None:
        raise FrontmatterError(f"invalid YAML: {strict_error}") from None
    return lenient


_KEY_LINE = re.compile(r"^([A-Za-z_][\w-]*):(?:[ \t]+(.*))?$")


def _lenient_mapping(text: str) -> dict[str, Any] | None:
    """Top-level `key: value` blocks, each parsed as YAML on its own; a block
    that is not valid YAML is plain text (its lines joined), unless its value
    starts like YAML syntax.

    None when content comes before the first key or such a value is invalid.
    """
    import yaml

    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.split("\n"):
        key_line = _KEY_LINE.match(line)
        if key_line and not (current is not None and _inside_example(current)):
            current = blocks[key_line.group(1)] = [line]
        elif current is not None:
            current.append(line)
        elif line.strip() and not line.lstrip().startswith("#"):
            return None
    out: dict[str, Any] = {}
    for key, lines in blocks.items():
        try:
            parsed = yaml.safe_load("\n".join(lines))
        except yaml.YAMLError:
            parsed = None
        if isinstance(parsed, dict) and key in parsed:
            out[key] = parsed[key]
            continue
        first = lines[0].split(":", 1)[1].strip()
        if first[:1] in ("[", "{", "'", '"', "|", ">"):
            return None
        out[key] = "\n".join([first, *(line.strip() for line in lines[1:])]).strip()
    return out


def _inside_example(lines: list[str]) -> bool:
    """True while an `<example>` block is open: its `user:` lines are text, not keys."""
    text = "\n".join(lines)
    return text.count("<example>") > text.count("</example>")


def name_slug(name: str) -> str:
    """`Hook Development` → `Hook-Development`: Claude Code allows spaces in names;
    a tool argument cannot hold them. Case is for the caller to fold."""
    return re.sub(r"\s+", "-", name.strip())


def model_override(value: object) -> str | None:
    """A frontmatter `model` value: None (the session's model) when absent, empty,
    `inherit` or `default`; else the model id or Claude Code alias as written."""
    if not isinstance(value, str):
        return None
    model = value.strip()
    return None if not model or model.lower() in SESSION_MODEL_WORDS else model


def read_definition(path: Path) -> str:
    """The UTF-8 text of a skill or agent file. Raises `OSError` (its text the reason)
    for a symlink, which is not followed, and for a file that cannot be read or decoded."""
    if path.is_symlink():
        raise OSError("symlinks are not followed")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise OSError(str(exc)) from None


def sorted_entries(directory: Path) -> list[Path]:
    """The entries of a config directory by name; none when it is missing or unreadable."""
    try:
        return sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
