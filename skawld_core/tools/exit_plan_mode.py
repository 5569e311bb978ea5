"""`ExitPlanMode`: the model presents its plan; the host's approval ends plan mode.

Claude Code's name and input shape (`{"plan": str}`). The call goes through the
normal permission path: in plan mode it always asks (`can_use_tool`), unless a
rule decides. Approval runs the tool, which switches the session's agent from
`plan` to `default`, unless the host's `PermissionAllow(set_mode=...)` already
chose another mode (e.g. `acceptEdits`). A deny keeps the agent planning; its
message goes back to the model as feedback. Outside plan mode the engine
refuses the call.

Registered by `Agent` when plan mode is first entered (constructor or
`set_permission_mode("plan")`), so sessions that never plan see no extra tool.
"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field

from ..model_base import SkawldModel
from .base import Tool, ToolContext, ToolResult, error_result

__all__ = ["ExitPlanModeInput", "ExitPlanModeTool"]


class ExitPlanModeInput(SkawldModel):
    """Input of ExitPlanMode."""

    model_config = ConfigDict(extra="forbid")

    plan: str = Field(
        min_length=1, description="The plan to show the user for approval: concise Markdown, step by step."
    )


class ExitPlanModeTool(Tool[ExitPlanModeInput]):
    """Present the plan for approval and leave plan mode when it is approved."""

    name = "ExitPlanMode"
    description = (
        "Use this tool when you are in plan mode and have finished researching and planning an implementation: "
        "pass the complete plan (Markdown, concrete steps and the files involved). The user reviews it; if they "
        "approve, plan mode ends and you may start changing files; if they decline, keep planning and take their "
        "feedback into account. Do not use it for pure research or questions, and only call it in plan mode."
    )
    scope = "exec"
    parallel_safe = False
    input_model = ExitPlanModeInput

    def summarize(self, value: ExitPlanModeInput) -> str:
        """`Plan: <first line>` (cut at 60 characters)."""
        first = value.plan.strip().splitlines()[0] if value.plan.strip() else ""
        return "Plan: " + (first if len(first) <= 60 else first[:60] + "…")

    async def execute(self, value: ExitPlanModeInput, ctx: ToolContext) -> ToolResult:
        """The plan was approved (the permission path ran first): leave plan mode."""
        session: Any = ctx.extras.get("session")
        agent: Any = getattr(session, "agent", None)
        if agent is None:
            return error_result("ExitPlanMode needs a session.")
        if getattr(session, "is_child", False):
            return ToolResult(
                content="Error: only the main conversation can leave plan mode; report your plan instead.",
                summary="error",
                is_error=True,
            )
        if agent.permission_mode == "plan":
            agent.set_permission_mode("default")
        mode = agent.permission_mode
        text = (
            f"The user approved your plan. Plan mode is over; the permission mode is now {mode}. "
            "Start implementing the plan now, updating your task list as you go."
        )
        return ToolResult(content=text, summary=f"Plan approved ({mode})")
