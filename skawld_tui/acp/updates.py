"""skawld's events and stored messages as ACP ``session/update`` notifications.

`kind_of`, `title_of` and `locations_of` describe one tool call for the editor; `ToolCalls`
turns a run's events into ``tool_call`` / ``tool_call_update`` updates (the model's tool_use id
is the stable ``toolCallId``; Edit and Write carry a ``diff``); `replay` turns a stored history
into the updates ``session/load`` sends before it answers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import Cost, FileEditToolCallContent, ToolCallLocation, UsageUpdate
from acp.schema import Usage as AcpUsage

from skawld_core.messages import Message, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock, Usage
from skawld_core.sessions.store import Task

TASK_TOOLS = frozenset({"TaskCreate", "TaskUpdate"})
"""Tools that change the task list: after them the editor gets the ``plan`` again."""

_KINDS = {
    "Read": "read",
    "Glob": "search",
    "Grep": "search",
    "Edit": "edit",
    "Write": "edit",
    "NotebookEdit": "edit",
    "Bash": "execute",
    "BashOutput": "execute",
    "KillShell": "execute",
    "WebFetch": "fetch",
    "ExitPlanMode": "switch_mode",
}


def kind_of(tool: str) -> str:
    """ACP's tool kind (the editor's icon)."""
    return _KINDS.get(tool, "think" if tool in ("Subagent", "Skill") else "other")


def _path(tool_input: Mapping[str, Any]) -> str | None:
    for key in ("file_path", "notebook_path", "path"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def title_of(tool: str, tool_input: Mapping[str, Any]) -> str:
    """A short title: the command for Bash, the path for file tools, else the tool's name."""
    command = tool_input.get("command")
    if tool == "Bash" and isinstance(command, str):
        return f"`{command}`"
    path = _path(tool_input)
    pattern = tool_input.get("pattern")
    if path:
        return f"{tool} {path}"
    if isinstance(pattern, str):
        return f"{tool} {pattern}"
    return tool


def locations_of(tool_input: Mapping[str, Any], cwd: Path) -> list[ToolCallLocation]:
    path = _path(tool_input)
    if path is None:
        return []
    return [ToolCallLocation(path=str((cwd / path).resolve()))]


def diff_of(tool: str, tool_input: Mapping[str, Any], before: str | None) -> FileEditToolCallContent | None:
    """The change an Edit or Write makes, as ACP's diff content (`before`: the file's text)."""
    path = _path(tool_input)
    if path is None:
        return None
    if tool == "Write" and isinstance(tool_input.get("content"), str):
        return helpers.tool_diff_content(path, tool_input["content"], before)
    old, new = tool_input.get("old_string"), tool_input.get("new_string")
    if tool == "Edit" and isinstance(old, str) and isinstance(new, str):
        if before is not None and old in before:
            replaced = before.replace(old, new) if tool_input.get("replace_all") else before.replace(old, new, 1)
            return helpers.tool_diff_content(path, replaced, before)
        return helpers.tool_diff_content(path, new, old)
    return None


def result_text(block: ToolResultBlock) -> str:
    content = block.content
    if isinstance(content, str):
        return content
    return "\n".join(getattr(part, "text", "") for part in content if getattr(part, "type", "") == "text")


DIFF_TOOLS = frozenset({"Edit", "Write"})
"""Tools whose ``tool_call`` carries a diff (of the file's text before the call)."""


def edited_path(block: ToolUseBlock, cwd: Path) -> Path | None:
    """The file an Edit or Write call changes, or None."""
    path = _path(block.input)
    return (cwd / path).resolve() if block.name in DIFF_TOOLS and path is not None else None


def tool_call_start(block: ToolUseBlock, cwd: Path, before: str | None = None) -> Any:
    """The ``tool_call`` update of one model call (status pending; Edit/Write with their diff
    from `before`, the editor's text of the file, or else the file on disk)."""
    path = _path(block.input)
    if before is None and block.name in DIFF_TOOLS and path is not None:
        try:
            before = (cwd / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            before = None
    diff = diff_of(block.name, block.input, before)
    return helpers.start_tool_call(
        block.id,
        title_of(block.name, block.input),
        kind=kind_of(block.name),  # type: ignore[arg-type]
        status="pending",
        content=[diff] if diff is not None else None,
        locations=locations_of(block.input, cwd),
        raw_input=dict(block.input),
    )


def tool_call_done(block: ToolResultBlock) -> Any:
    """The final ``tool_call_update`` of a call: its result text and completed / failed."""
    text = result_text(block)
    return helpers.update_tool_call(
        block.tool_use_id,
        status="failed" if block.is_error else "completed",
        content=[helpers.tool_content(helpers.text_block(text))] if text else None,
        raw_output=text,
    )


def replay(messages: Iterable[Message], cwd: Path) -> list[Any]:
    """The updates that show a stored conversation again (``session/load``)."""
    out: list[Any] = []
    for message in messages:
        for block in message.content if isinstance(message.content, list) else []:
            if isinstance(block, TextBlock) and block.text:
                if message.role == "user":
                    out.append(helpers.update_user_message_text(block.text))
                else:
                    out.append(helpers.update_agent_message_text(block.text))
            elif isinstance(block, ThinkingBlock) and block.thinking:
                out.append(helpers.update_agent_thought_text(block.thinking))
            elif isinstance(block, ToolUseBlock):
                out.append(tool_call_start(block, cwd))
            elif isinstance(block, ToolResultBlock):
                out.append(tool_call_done(block))
    return out


def plan_of(tasks: Iterable[Task]) -> Any:
    """The session's task list as ACP's ``plan`` (each task's subject and status)."""
    return helpers.update_plan(helpers.plan_entry(t.subject, status=t.status) for t in tasks)


def usage_update(last_turn: Usage | None, window: int, cost_usd: float | None) -> UsageUpdate:
    """``usage_update``: the tokens in context after the last model turn (its prompt and its
    answer), the model's context window, and the cost so far (None when no price is known)."""
    used = last_turn.input_tokens + last_turn.output_tokens if last_turn is not None else 0
    cost = Cost(amount=round(cost_usd, 6), currency="USD") if cost_usd is not None else None
    return UsageUpdate(session_update="usage_update", used=used, size=max(window, used), cost=cost)


def prompt_usage(total: Usage) -> AcpUsage:
    """A prompt's tokens, for the ``session/prompt`` answer."""
    return AcpUsage(
        total_tokens=total.input_tokens + total.output_tokens,
        input_tokens=total.input_tokens,
        output_tokens=total.output_tokens,
        cached_read_tokens=total.cache_read_tokens,
        cached_write_tokens=total.cache_creation_tokens,
    )
