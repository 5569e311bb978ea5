"""The `Subagent` tool: launch a child session for a focused task (§2.16)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import ConfigDict, Field

from ..model_base import SkawldModel
from ..tools.base import Tool, ToolContext, ToolResult
from .registry import DEFAULT_AGENT_NAME, SubagentRegistry
from .runner import SubagentOutcome, run_subagent

if TYPE_CHECKING:
    from ..host import ToolSession

__all__ = ["SubagentInput", "SubagentTool", "subagent_description"]


class SubagentInput(SkawldModel):
    """Input of the `Subagent` tool."""

    model_config = ConfigDict(extra="forbid")

    description: str = Field(min_length=1, description="A short (3-5 word) description of the task.")
    prompt: str = Field(min_length=1, description="The full task for the subagent, with all context it needs.")
    subagent_type: str | None = Field(
        default=None, description="A named subagent type; omit it for the general-purpose agent."
    )


def subagent_description(registry: SubagentRegistry) -> str:
    """The tool description: the disk agents (if any) and how to call it."""
    lines = ["Launch a subagent to handle a focused task."]
    agents = registry.list()
    if agents:
        lines += ["", "Available subagent types:"]
        lines += [f"- {a.name}: {a.description}" for a in agents]
    lines += [
        "",
        "Omit subagent_type to use the built-in general-purpose agent, which has every tool you have.",
        "The subagent starts with no history: put everything it needs in the prompt.",
        "Its events stream back while it works; its final message is returned as the result.",
    ]
    return "\n".join(lines)


def _partial(text: str) -> str:
    return f" Partial output: {text}" if text else ""


def outcome_result(outcome: SubagentOutcome, display_name: str) -> ToolResult:
    """The reference's result texts for a finished child run."""
    summary = f"{display_name} finished"
    if outcome.aborted:
        content = (
            f"Subagent aborted.{_partial(outcome.text)}"
            if outcome.text
            else "Subagent aborted before producing output."
        )
        return ToolResult(content=content, summary=f"{display_name} aborted", is_error=True)
    if outcome.errored:
        info = outcome.error.error if outcome.error is not None else None
        name, message = (info.name, info.message) if info is not None else ("Error", "the subagent run failed")
        content = f"Subagent encountered an error: {name}: {message}.{_partial(outcome.text)}"
        return ToolResult(content=content, summary=f"{display_name} failed", is_error=True)
    if not outcome.text:
        return ToolResult(content="Subagent produced no text output.", summary=summary, is_error=True)
    return ToolResult(content=outcome.text, summary=summary)


class SubagentTool(Tool[SubagentInput]):
    """Spawns a child session per call; parallel-safe, so several run at once."""

    name = "Subagent"
    scope = "exec"
    parallel_safe = True
    input_model = SubagentInput

    def __init__(self, registry: SubagentRegistry) -> None:
        self.registry = registry
        self.description = subagent_description(registry)
        self._counters: dict[str, int] = {}

    def summarize(self, value: SubagentInput) -> str:
        kind = (value.subagent_type or "").strip()
        return f"Subagent ({kind}): {value.description}" if kind else f"Subagent: {value.description}"

    def _unknown(self, name: str) -> ToolResult:
        names = [a.name for a in self.registry.list()]
        if names:
            text = (
                f"Unknown subagent_type '{name}'. Available: {', '.join(names)}. "
                "Or omit subagent_type to use the built-in default."
            )
        else:
            text = (
                f"Unknown subagent_type '{name}'. No named subagents are loaded; "
                "omit subagent_type to use the built-in default."
            )
        return ToolResult(content=text, summary=f"unknown subagent type {name}", is_error=True)

    async def execute(self, value: SubagentInput, ctx: ToolContext) -> ToolResult:
        """Run the requested subagent in a child session and return its final text."""
        parent: ToolSession | None = ctx.extras.get("session")
        if parent is None:
            return ToolResult(content="Subagent needs a session to run in.", is_error=True)
        definition = self.registry.resolve(value.subagent_type)
        if definition is None:
            return self._unknown((value.subagent_type or "").strip())
        if definition.name == DEFAULT_AGENT_NAME:
            n = self._counters.get(parent.id, 0) + 1
            self._counters[parent.id] = n
            display_name = f"Agent #{n}"
        else:
            display_name = definition.name
        knobs = _run_knobs(parent)
        emit = ctx.emit or (lambda _event: None)
        outcome = await run_subagent(
            parent,
            definition,
            value.prompt,
            emit,
            display_name=display_name,
            subagent_type=definition.name,
            description=value.description,
            thinking=knobs.get("thinking"),
            effort=knobs.get("effort"),
            live=self.registry.live,
            tool_use_id=ctx.tool_use_id,
        )
        return outcome_result(outcome, display_name)


def _run_knobs(parent: ToolSession) -> dict[str, Any]:
    """The parent's current `thinking` / `effort` (inherited by the child)."""
    options = parent.run_options
    return {
        "thinking": getattr(options, "thinking", None),
        "effort": getattr(options, "effort", None),
    }
