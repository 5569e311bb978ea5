"""Skills: `SKILL.md` prompt packs loaded from `<configDir>/skills/<name>/` (§2.15)."""

from __future__ import annotations

from .listing import listing_budget, render_listing, wrap_listing
from .loader import load_skills, parse_skill
from .overlay import overlay_model
from .substitute import render_skill, shell_split, substitute
from .tool import SkillInput, SkillTool
from .types import Skill, SkillLoadResult, SkippedSkill, SkipReason

__all__ = [
    "Skill",
    "SkillInput",
    "SkillLoadResult",
    "SkillTool",
    "SkipReason",
    "SkippedSkill",
    "listing_budget",
    "load_skills",
    "overlay_model",
    "parse_skill",
    "render_listing",
    "render_skill",
    "shell_split",
    "substitute",
    "wrap_listing",
]
