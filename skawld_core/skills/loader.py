"""Loading `<configDir>/skills/<dir>/SKILL.md` (reference §2.15).

The loader never raises: every directory that does not load is reported in
`SkillLoadResult.skipped` with a reason. Directories are searched in order and
the first one wins a duplicate name. Frontmatter keys are snake_case; the
Claude-style hyphenated spellings (`allowed-tools`, `argument-hint`,
`when-to-use`, `disable-model-invocation`) are accepted too, the snake_case key
winning when both are present. Claude-style `allowed-tools` may be a
comma-separated string; entries with a `(...)` qualifier such as
`Bash(git add:*)` cannot be honoured exactly by a per-tool overlay, so they are
ignored (the tool keeps asking) rather than widened to the whole tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .frontmatter import (
    FrontmatterError,
    model_override,
    name_slug,
    read_definition,
    sorted_entries,
    split_frontmatter,
)
from .types import Skill, SkillLoadResult, SkippedSkill

__all__ = ["BUILTIN_TOOL_NAMES", "load_skills", "parse_skill"]

BUILTIN_TOOL_NAMES = frozenset(
    {
        "Read",
        "Write",
        "Edit",
        "Bash",
        "Glob",
        "Grep",
        "TaskCreate",
        "TaskList",
        "TaskGet",
        "TaskUpdate",
        "AskUser",
        "Skill",
        "Subagent",
    }
)

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*$", re.IGNORECASE)
_ARG_RE = re.compile(r"^[a-z_][a-z0-9_]*$", re.IGNORECASE)
_QUALIFIED = re.compile(r"^[^()\s]+\(.*\)$")


class _Invalid(ValueError):
    pass


def _pick(data: dict[str, Any], key: str) -> Any:
    if key in data:
        return data[key]
    return data.get(key.replace("_", "-"))


def _opt_str(data: dict[str, Any], key: str) -> str | None:
    value = _pick(data, key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _Invalid(f"{key} must be a string")
    text = str(value).strip()
    return text or None


def _allowed_tools(data: dict[str, Any]) -> tuple[str, ...]:
    if "allowed_tools" in data:
        value = data["allowed_tools"]
        if value is None:
            return ()
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise _Invalid("allowed_tools must be a list of tool names")
        if any(any(c.isspace() for c in v) for v in value):
            raise _Invalid("allowed_tools entries must not contain whitespace")
        return tuple(value)
    value = data.get("allowed-tools")
    if value is None:
        return ()
    if isinstance(value, str):
        entries = _split_claude_list(value)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        entries = [v.strip() for v in value]
    else:
        raise _Invalid("allowed-tools must be a string or a list of strings")
    return tuple(e for e in entries if e and not _QUALIFIED.match(e) and len(e.split()) == 1)


def _split_claude_list(value: str) -> list[str]:
    """Split `Read, Grep, Bash(git add:*)` on commas (or whitespace when there
    are no commas) outside parentheses."""
    out: list[str] = []
    depth = 0
    current = ""
    sep_comma = "," in value
    for ch in value:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (ch == "," or (not sep_comma and ch.isspace())):
            out.append(current.strip())
            current = ""
        else:
            current += ch
    out.append(current.strip())
    return [e for e in out if e]


def _arguments(data: dict[str, Any]) -> tuple[str, ...]:
    value = data.get("arguments")
    if value is None:
        return ()
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Invalid("arguments must be a list of names")
    seen: set[str] = set()
    for name in value:
        if not _ARG_RE.match(name):
            raise _Invalid(f"invalid argument name {name!r}")
        if name.upper().startswith("ARGUMENTS"):
            raise _Invalid(f"argument name {name!r} may not start with ARGUMENTS")
        if name in seen:
            raise _Invalid(f"duplicate argument name {name!r}")
        seen.add(name)
    return tuple(value)


def _model(data: dict[str, Any]) -> str | None:
    return model_override(_opt_str(data, "model"))


def parse_skill(text: str, directory: Path) -> Skill:
    """Parse one SKILL.md. Raises `ValueError` for invalid frontmatter."""
    try:
        split = split_frontmatter(text)
    except FrontmatterError as exc:
        raise ValueError(str(exc)) from None
    if split is None:
        raise ValueError("SKILL.md has no frontmatter")
    data, body = split
    description = _opt_str(data, "description")
    if not description:
        raise ValueError("description is required")
    display_name = _opt_str(data, "name") or directory.name
    name = name_slug(display_name).lower()
    if not _NAME_RE.match(name):
        raise ValueError(f"invalid skill name {display_name!r}")
    disable = _pick(data, "disable_model_invocation")
    if disable is not None and not isinstance(disable, bool):
        raise ValueError("disable_model_invocation must be a boolean")
    try:
        return Skill(
            name=name,
            display_name=display_name if display_name != name else None,
            description=description,
            body=body.strip(),
            directory=directory.resolve(),
            when_to_use=_opt_str(data, "when_to_use"),
            allowed_tools=_allowed_tools(data),
            arguments=_arguments(data),
            argument_hint=_opt_str(data, "argument_hint"),
            model=_model(data),
            version=_opt_str(data, "version"),
            disable_model_invocation=bool(disable),
        )
    except _Invalid as exc:
        raise ValueError(str(exc)) from None


def load_skills(
    config_dirs: Sequence[Path],
    reserved_names: Iterable[str] = BUILTIN_TOOL_NAMES,
    *,
    namespaced: Sequence[tuple[Path, str]] = (),
) -> SkillLoadResult:
    """Load skills from `<dir>/skills/*/SKILL.md` for each config dir, in order, then
    from each `(skills_dir, namespace)` of `namespaced` (a plugin's, named `namespace:name`)."""
    reserved = {n.lower() for n in reserved_names}
    result = SkillLoadResult()
    loaded: dict[str, Skill] = {}
    sources = [(Path(d) / "skills", "") for d in config_dirs] + [(Path(d), f"{ns.lower()}:") for d, ns in namespaced]
    for skills_dir, prefix in sources:
        # a plugin may list one skill's own folder instead of a folder of skills
        single = prefix and (skills_dir / "SKILL.md").is_file()
        for entry in [skills_dir] if single else sorted_entries(skills_dir):
            if entry.is_symlink():
                result.skipped.append(SkippedSkill(entry, "io-error", "symlinks are not followed"))
                continue
            if not entry.is_dir():
                continue
            skill_md = entry / "SKILL.md"
            if not skill_md.is_file() and not skill_md.is_symlink():
                result.skipped.append(SkippedSkill(entry, "missing-skill-md", "no SKILL.md in the directory"))
                continue
            try:
                text = read_definition(skill_md)
            except OSError as exc:
                result.skipped.append(SkippedSkill(entry, "io-error", str(exc)))
                continue
            try:
                skill = parse_skill(text, entry)
            except ValueError as exc:
                result.skipped.append(SkippedSkill(entry, "invalid-frontmatter", str(exc)))
                continue
            if prefix:
                skill = replace(skill, name=prefix + skill.name)
            if skill.name in reserved:
                result.skipped.append(SkippedSkill(entry, "name-collision-tool", f"'{skill.name}' is a tool name"))
                continue
            if skill.name in loaded:
                result.skipped.append(SkippedSkill(entry, "name-collision-skill", f"'{skill.name}' is already loaded"))
                continue
            loaded[skill.name] = skill
    result.skills = sorted(loaded.values(), key=lambda s: s.name)
    return result
