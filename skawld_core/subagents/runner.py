"""Running a subagent: a child `Session` whose events are wrapped into the
parent's stream as `subagent_event` envelopes (§2.16).

The child has its own history and file-read tracker, the parent's effective
tools filtered by the definition's allowlist (never `Subagent` or `AskUser`),
the same provider, permissions and hooks, and the definition body as its
4th system block. Its messages are persisted in the same store with the parent
link in `meta`. Cancelling the caller (a parent abort) aborts the child; a
child abort or error becomes the result's `aborted` / `error`.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from ..events import AssistantEvent, Event, ResultEvent, SubagentEvent
from ..messages import TextBlock
from ..system_prompt import build_system_blocks
from ..tools.registry import ToolRegistry
from .definitions import AgentDefinition

if TYPE_CHECKING:
    from ..events import ErrorEvent
    from ..host import ToolSession
    from ..providers.base import Effort, ThinkingConfig

__all__ = ["EXCLUDED_CHILD_TOOLS", "SubagentOutcome", "build_child_tools", "run_subagent"]

EXCLUDED_CHILD_TOOLS = frozenset({"Subagent", "AskUser"})


@dataclass(frozen=True)
class SubagentOutcome:
    """How a child run ended."""

    child_session_id: str
    subagent_run_id: str
    text: str
    subtype: str
    error: ErrorEvent | None = None

    @property
    def aborted(self) -> bool:
        """The child run was aborted."""
        return self.subtype == "aborted"

    @property
    def errored(self) -> bool:
        """The child run ended with an error."""
        return self.subtype == "error"


def build_child_tools(
    parent_tools: ToolRegistry, allow: tuple[str, ...] | None, deny: tuple[str, ...] = ()
) -> ToolRegistry:
    """The parent's tools, narrowed to `allow` (None or `*` = all), minus those `deny`
    names and minus `Subagent` and `AskUser`; unknown names are dropped. An entry with
    a `*` is a glob (e.g. `mcp__github__*`)."""
    names = [n for n in parent_tools.names() if n not in EXCLUDED_CHILD_TOOLS]
    if allow is not None and "*" not in allow:
        names = [n for n in names if _named(n, allow)]
    if deny:
        names = [n for n in names if not _named(n, deny)]
    return parent_tools.filtered(names)


def _named(tool: str, entries: tuple[str, ...]) -> bool:
    return any(fnmatchcase(tool, e) if "*" in e else tool == e for e in entries)


def new_run_id() -> str:
    """`sa_` and 8 hex characters."""
    return f"sa_{secrets.token_hex(4)}"


def _last_text(event: AssistantEvent) -> str:
    return "".join(b.text for b in event.message.content if isinstance(b, TextBlock))


async def run_subagent(
    parent: ToolSession,
    definition: AgentDefinition,
    prompt: str,
    emit: Callable[[Event], None],
    *,
    display_name: str,
    subagent_type: str,
    description: str | None = None,
    thinking: ThinkingConfig | None = None,
    effort: Effort | None = None,
    live: dict[str, ToolSession] | None = None,
    tool_use_id: str | None = None,
) -> SubagentOutcome:
    """Run `definition` on `prompt` in a new child session, wrapping every child
    event into `emit`. Cancellation aborts the child and propagates. While it
    runs, the child is in `live` (keyed by its session id)."""
    agent = parent.agent
    run_id = new_run_id()
    meta: dict[str, Any] = {
        "subagent_type": subagent_type,
        "subagent_run_id": run_id,
        "display_name": display_name,
    }
    if description:
        meta["description"] = description
    tools = build_child_tools(parent.tools, definition.tools, definition.disallowed_tools)
    system = build_system_blocks(
        cwd=str(agent.cwd),
        permission_mode=agent.permission_mode,
        tool_names=tools.names(),
        user_instructions=definition.body or None,
    )
    child = await parent.child_session(
        meta=meta, model=agent.definition_model(definition.model), tools=tools, system=system
    )
    if live is not None:
        live[child.id] = child
    last_text = ""
    result: ResultEvent | None = None
    error: ErrorEvent | None = None
    try:
        async with child.run(prompt, thinking=thinking, effort=effort) as run:
            async for event in run:
                emit(
                    SubagentEvent(
                        parent_session_id=parent.id,
                        subagent_run_id=run_id,
                        subagent_type=subagent_type,
                        display_name=display_name,
                        event=event,
                        parent_tool_use_id=tool_use_id,
                    )
                )
                if isinstance(event, AssistantEvent):
                    last_text = _last_text(event)
                elif isinstance(event, ResultEvent):
                    result = event
                elif event.type == "error":
                    error = event
    except asyncio.CancelledError:
        child.abort()
        raise
    finally:
        if live is not None:
            live.pop(child.id, None)
    subtype = result.subtype if result is not None else "aborted"
    return SubagentOutcome(child.id, run_id, last_text, subtype, error)
