"""A copy of a session in Claude Code's transcript format, for hosts that read Claude Code's files.

Claude Code keeps each session as JSON lines in
``~/.claude/projects/<cwd, every character but ASCII letters and digits made "-">/<session id>.jsonl``
(``$CLAUDE_CONFIG_DIR`` in place of ``~/.claude``). Hosts such as Zed's ``claude-code-acp``
adapter find and replay sessions there (its ``session/load``). skawld keeps its sessions in its
own store; in Claude Code's dialect it also writes this copy after each prompt. The store stays
the source of truth: the copy is only read by those hosts, and rewritten whole each time.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path

from skawld_core.messages import Message
from skawld_core.tools.atomic_write import atomic_write_bytes


def transcript_path(cwd: Path, session_id: str, env: Mapping[str, str]) -> Path:
    """Where Claude Code keeps the transcript of `session_id` run in `cwd`."""
    base = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else Path(env.get("HOME", "~")) / ".claude"
    return base.expanduser() / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", str(cwd)) / f"{session_id}.jsonl"


def write_transcript(path: Path, session_id: str, cwd: Path, messages: Iterable[Message]) -> None:
    """Write `messages` as Claude Code's ``user`` / ``assistant`` transcript lines (atomically)."""
    lines = [
        json.dumps(
            {
                "type": m.role,
                "sessionId": session_id,
                "cwd": str(cwd),
                "uuid": str(uuid.uuid4()),
                "isSidechain": False,
                "message": m.model_dump(mode="json", exclude_none=True),
            },
            ensure_ascii=False,
        )
        for m in messages
        if m.role in ("user", "assistant")
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, ("\n".join(lines) + "\n").encode("utf-8"))
