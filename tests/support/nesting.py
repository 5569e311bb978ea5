"""Helpers for nested-subagent tests: a tool that launches its own subagent, and
a request matcher that routes scripted turns to one child session."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel

from skawld_core.providers.base import ProviderRequest
from skawld_core.subagents import DEFAULT_AGENT, run_subagent
from skawld_core.tools import Tool, ToolContext, ToolResult


def is_child(marker: str) -> Callable[[ProviderRequest], bool]:
    """Matches the requests of the session whose first message contains `marker`."""

    def match(req: ProviderRequest) -> bool:
        return bool(req.messages) and marker in str(req.messages[0].content)

    return match


class DelegateInput(BaseModel):
    prompt: str


class Delegate(Tool[DelegateInput]):
    """Launches its own subagent (one level more of nesting than `Subagent` allows)."""

    name = "Delegate"
    description = "Delegate to a nested agent."
    scope = "read"
    input_model = DelegateInput

    async def execute(self, value: DelegateInput, ctx: ToolContext) -> ToolResult:
        outcome = await run_subagent(
            ctx.extras["session"],
            DEFAULT_AGENT,
            value.prompt,
            ctx.emit or (lambda _e: None),
            display_name="Inner",
            subagent_type="_default",
        )
        return ToolResult(content=outcome.text)
