"""The `Skill` tool: expand a loaded skill into the conversation (§2.15)."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field

from ..messages import InvokedSkillRecord
from ..model_base import SkawldModel
from ..tools.base import Tool, ToolContext, ToolResult
from .overlay import overlay_model
from .substitute import render_skill, substitute_command_args
from .types import Skill

if TYPE_CHECKING:
    from ..host import ToolSession

__all__ = ["SkillInput", "SkillTool"]

DESCRIPTION = (
    "Invoke a skill: a prompt pack with instructions for a specific kind of task. The available skills "
    "are listed in a <skill_listing> reminder in the conversation. Pass the skill name as `skill` (a "
    "leading '/' is allowed) and, if the skill takes arguments, a single `args` string (shell-style "
    "quoting separates arguments). The skill's instructions come back as the result; follow them."
)


class SkillInput(SkawldModel):
    """Input of the `Skill` tool."""

    model_config = ConfigDict(extra="forbid")

    skill: str = Field(min_length=1, description="The skill name, e.g. 'commit' or '/commit'.")
    args: str | None = Field(default=None, description="Arguments for the skill, as one string.")


class SkillTool(Tool[SkillInput]):
    """Looks a skill up, substitutes its arguments, records the invocation and
    stashes its one-turn model / allowed-tools overlay on the session."""

    name = "Skill"
    description = DESCRIPTION
    scope = "exec"
    parallel_safe = False
    input_model = SkillInput

    def __init__(self, skills: Iterable[Skill], session_model: str) -> None:
        self.skills = {s.name: s for s in skills}
        self.session_model = session_model

    def overlay_for(self, skill: str) -> tuple[str | None, list[str] | None]:
        """The `(model_override, allowed_tools)` a call of `skill` will set, for
        the `skill_invoked` event; `(None, None)` for plain or unknown skills."""
        found = self.skills.get(skill.strip().lstrip("/").lower())
        if found is None or found.is_plain or found.disable_model_invocation:
            return None, None
        return overlay_model(self.session_model, found.model), list(found.allowed_tools) or None

    def summarize(self, value: SkillInput) -> str:
        """``Skill /name args``, naming the tools the call would grant (so an approval says so)."""
        name = value.skill.strip().lstrip("/")
        text = f"Skill /{name} {value.args}" if value.args else f"Skill /{name}"
        found = self.skills.get(name.lower())
        if found is not None and found.allowed_tools and not found.disable_model_invocation:
            text += f" (grants {', '.join(found.allowed_tools)} without asking for its next turn)"
        elif found is not None and found.grants_withheld:
            text += " (its allowed_tools are ignored: the project is not trusted)"
        return text

    async def execute(self, value: SkillInput, ctx: ToolContext) -> ToolResult:
        """Expand the skill, record the invocation, stash its overlay."""
        name = value.skill.strip().lstrip("/").lower()
        skill = self.skills.get(name)
        if skill is None:
            return ToolResult(content=f"Unknown skill: {name}", summary=f"unknown skill {name}", is_error=True)
        if skill.disable_model_invocation:
            return ToolResult(
                content=f"Skill is not invokable by the model: {name}", summary=f"skill {name} disabled", is_error=True
            )
        args = value.args or ""
        if skill.from_command:
            content = substitute_command_args(skill.body, args)
        else:
            content = render_skill(
                skill.body, skill_dir=skill.directory, session_id=ctx.session_id, args=args, arguments=skill.arguments
            )
        session: ToolSession | None = ctx.extras.get("session")
        if session is not None:
            record = InvokedSkillRecord(
                name=name, args=value.args, body=content, invoked_at=_dt.datetime.now(_dt.UTC).isoformat()
            )
            try:
                await session.record_invoked_skill(record)
            except Exception:
                pass  # persistence errors are ignored (the reference does the same)
            if not skill.is_plain:
                session.set_overlay(
                    model=overlay_model(self.session_model, skill.model), allowed_tools=skill.allowed_tools
                )
        return ToolResult(content=content, summary=f"Loaded skill {name}")
