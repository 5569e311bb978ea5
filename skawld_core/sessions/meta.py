"""What skawld keeps in a session's `meta`, and helpers to read it.

Keys (all optional; any store keeps them, since meta is plain JSON):

- ``title``: the first prompt, shortened (`title_from_prompt`); ``/rename`` sets it;
- ``model``, ``git_branch``, ``cwd``: recorded when the session is created;
- ``usage``: cumulative token counts of the session's runs (`usage_from_meta`);
- ``forked_from``, ``forked_at``: the origin of a fork (session id, message index);
- ``prompts``: one entry per prompt run (message index, shortened text, time,
  and the ``commit`` of the checkpoint taken before it), see `Session.prompt_records`;
- ``parent_session_id``: set on a subagent's child session (never a conversation).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..messages import Message, TextBlock, Usage

TITLE_LIMIT = 60
_HIDDEN_PREFIXES = ("<env>", "<system-reminder>")


def title_from_prompt(prompt: str, limit: int = TITLE_LIMIT) -> str:
    """The first non-empty line, whitespace collapsed, cut at a word under `limit`."""
    line = next((ln for ln in prompt.splitlines() if ln.strip()), "")
    text = " ".join(line.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:") + "…"


def meta_title(meta: Mapping[str, Any]) -> str | None:
    """The session title kept in `meta` (its first prompt, shortened, or a rename), if any."""
    title = meta.get("title")
    return title if isinstance(title, str) and title else None


def is_child_session(meta: Mapping[str, Any]) -> bool:
    """Whether the session is a subagent's child (not a user conversation)."""
    return bool(meta.get("parent_session_id") or meta.get("parentSessionId"))


def usage_from_meta(meta: Mapping[str, Any]) -> Usage:
    """The cumulative usage stored in ``meta["usage"]`` (zero when absent or bad)."""
    raw = meta.get("usage")
    if not isinstance(raw, dict):
        return Usage()
    try:
        return Usage.model_validate(raw)
    except ValueError:
        return Usage()


def is_prompt_message(message: Message) -> bool:
    """A user prompt as the loop stores it (it carries the ``<env>`` block)."""
    return message.role == "user" and any(
        isinstance(b, TextBlock) and b.text.startswith("<env>") for b in message.content
    )


def prompt_text(message: Message) -> str:
    """What the user typed: the text blocks without ``<env>`` and reminders."""
    parts = [b.text for b in message.content if isinstance(b, TextBlock) and not b.text.startswith(_HIDDEN_PREFIXES)]
    return "\n".join(parts).strip()


def git_branch(cwd: str | os.PathLike[str]) -> str | None:
    """The checked-out branch of the git repository holding `cwd` (read from
    ``HEAD`` without running git); a short commit id when detached; `None`
    outside a repository."""
    start = Path(cwd).resolve()
    for directory in (start, *start.parents):
        dot_git = directory / ".git"
        if dot_git.is_dir():
            return _branch_from_head(dot_git / "HEAD")
        if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
            try:
                line = dot_git.read_text(encoding="utf-8").strip()
            except OSError:
                return None
            if line.startswith("gitdir:"):
                git_dir = Path(line[len("gitdir:") :].strip())
                return _branch_from_head((directory / git_dir) / "HEAD")
            return None
    return None


def _branch_from_head(head: Path) -> str | None:
    try:
        text = head.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    if text.startswith("ref:"):
        ref = text[4:].strip()
        return ref.removeprefix("refs/heads/")
    return text[:8] or None


@dataclass(frozen=True)
class PromptPoint:
    """A prompt of a session, as `/rewind` lists it: its message index, the
    text, when it ran and the checkpoint commit taken before it (if any)."""

    index: int
    text: str
    at: str | None = None
    commit: str | None = None
    error: str | None = None


def prompt_points(meta: Mapping[str, Any], messages: Sequence[Message]) -> list[PromptPoint]:
    """The session's prompts in order, joined with their ``prompts`` records."""
    raw = meta.get("prompts")
    records: dict[int, Mapping[str, Any]] = {}
    for entry in raw if isinstance(raw, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("index"), int):
            records[entry["index"]] = entry
    out: list[PromptPoint] = []
    for index, message in enumerate(messages):
        if not is_prompt_message(message):
            continue
        record = records.get(index, {})
        out.append(
            PromptPoint(
                index=index,
                text=prompt_text(message),
                at=_opt_str(record.get("at")),
                commit=_opt_str(record.get("commit")),
                error=_opt_str(record.get("error")),
            )
        )
    return out


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
