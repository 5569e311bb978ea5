"""YAML frontmatter: the `---` block at the top of SKILL.md and agent files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["CLAUDE_MODEL_ALIASES", "FrontmatterError", "model_override", "split_frontmatter"]

# Claude Code model aliases: not model ids any provider accepts, so a file
# written for Claude Code that names one runs on the session model instead.
CLAUDE_MODEL_ALIASES = frozenset({"inherit", "sonnet", "opus", "haiku", "default", "opusplan"})


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
    """PyYAML's `safe_load` (a hard dependency, imported on first use)."""
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise FrontmatterError(f"invalid YAML: {exc}") from None


def model_override(value: object) -> str | None:
    """A frontmatter `model` value as a model id: None when absent, empty, or
    a Claude Code alias (`inherit`, `sonnet`, `opus`, `haiku`, …)."""
    if not isinstance(value, str):
        return None
    model = value.strip()
    return None if not model or model.lower() in CLAUDE_MODEL_ALIASES else model


def sorted_entries(directory: Path) -> list[Path]:
    """The entries of a config directory by name; none when it is missing or unreadable."""
    try:
        return sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError:
        return []
