"""Skill data types: a loaded `Skill`, a `SkippedSkill`, and a loader result."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..events import SkillSummary

SkipReason = Literal[
    "missing-skill-md",
    "invalid-frontmatter",
    "name-collision-tool",
    "name-collision-skill",
    "io-error",
]


@dataclass(frozen=True, kw_only=True)
class Skill:
    """One prompt pack loaded from `<configDir>/skills/<dir>/SKILL.md`.

    `name` is lowercase. `allowed_tools` are tool names the skill's next turn
    may use without asking; `arguments` are the declared `$name` slots.
    """

    name: str
    description: str
    body: str
    directory: Path
    when_to_use: str | None = None
    allowed_tools: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()
    argument_hint: str | None = None
    model: str | None = None
    version: str | None = None
    disable_model_invocation: bool = False
    display_name: str | None = None
    grants_withheld: bool = False
    """True when `allowed_tools` were dropped because the project is not trusted."""
    from_command: bool = False
    """A command file offered through the Skill tool, as Claude Code does: its body takes
    `$ARGUMENTS` and `$1`…`$9`; its `!` lines are not run on this path."""

    @property
    def is_plain(self) -> bool:
        """A skill that changes neither tools nor model (auto-allowed)."""
        return not self.allowed_tools and self.model is None

    def summary(self) -> SkillSummary:
        """The `skills_loaded` entry for this skill."""
        return SkillSummary(
            name=self.name,
            description=self.description,
            when_to_use=self.when_to_use,
            argument_hint=self.argument_hint,
        )


@dataclass(frozen=True)
class SkippedSkill:
    """A skill directory that did not load, and why."""

    path: Path
    reason: SkipReason
    detail: str = ""


@dataclass
class SkillLoadResult:
    """Loaded skills (sorted by name) and the skipped entries."""

    skills: list[Skill] = field(default_factory=list)
    skipped: list[SkippedSkill] = field(default_factory=list)
