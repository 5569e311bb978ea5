"""What a restore would overwrite that the agent did not write: `user_changes`.

Before rewinding the code to a checkpoint, the files that changed since that
checkpoint are split in two: those the agent's file tools (Write, Edit,
NotebookEdit) wrote in the session after the checkpoint, and the rest — the
user's own edits, files the user created or deleted, and files a shell command
changed (a command's effects cannot be told from the user's). The rest is what a
restore must name before it overwrites it.

An agent's edit that the user then edited again counts as the agent's: the
session records what the agent wrote, not what happened to the file afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..messages import Message, ToolResultBlock, ToolUseBlock
from ..tools.path_policy import tool_path_policy
from .engine import CheckpointEngine

__all__ = ["UserChange", "agent_written_paths", "describe_changes", "user_changes"]

ChangeKind = Literal["edited", "created", "deleted"]
_KIND: dict[str, ChangeKind] = {"M": "edited", "T": "edited", "D": "created", "A": "deleted"}


@dataclass(frozen=True)
class UserChange:
    """A path (relative to the project) that changed since the checkpoint, not by the agent."""

    path: str
    change: ChangeKind

    def describe(self) -> str:
        """`edited: src/a.py` — and what the restore does to it."""
        effect = {"edited": "rewritten", "created": "removed", "deleted": "brought back"}[self.change]
        return f"{self.change} since: {self.path} (would be {effect})"


def agent_written_paths(messages: Sequence[Message], project: Path, cwd: Path) -> set[str]:
    """Project-relative paths the agent's file tools wrote successfully in `messages`."""
    calls: dict[str, tuple[str, ...]] = {}
    failed: set[str] = set()
    for message in messages:
        content = message.content if isinstance(message.content, list) else []
        for block in content:
            if isinstance(block, ToolUseBlock):
                policy = tool_path_policy(block.name)  # a tool of the edit family writes its paths
                if policy is not None and policy.family == "edit":
                    calls[block.id] = policy.targets(block.input, cwd)
            elif isinstance(block, ToolResultBlock) and block.is_error:
                failed.add(block.tool_use_id)
    root = project.resolve()
    out: set[str] = set()
    for call_id, targets in calls.items():
        if call_id in failed:
            continue
        for target in targets:
            full = Path(target).expanduser()
            full = (full if full.is_absolute() else cwd / full).resolve()
            if full.is_relative_to(root):
                out.add(full.relative_to(root).as_posix())
    return out


async def user_changes(engine: CheckpointEngine, commit: str, agent_paths: Iterable[str]) -> list[UserChange]:
    """The changes since `commit` that restoring it would undo and the agent did not make."""
    mine = set(agent_paths)
    return [
        UserChange(path, _KIND.get(status, "edited"))
        for status, path in await engine.changes_since(commit)
        if path not in mine
    ]


def describe_changes(changes: Sequence[UserChange]) -> str:
    """One line per change, indented, for prompts and stderr."""
    return "\n".join(f"  - {c.describe()}" for c in changes)
