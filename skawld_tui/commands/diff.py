"""`/diff`: the changes made to the project in this session.

With checkpoints on, the diff runs from the snapshot taken before the session's
first prompt to the working tree now; without them it falls back to `git diff
HEAD` (plus untracked files) in a git repository.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..file_diff import FileChange, render_diff
from .base import CommandHost, command

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.session import Session

    from ..file_diff import FileChange

MAX_FILES = 50


@dataclass
class SessionDiff:
    """What changed, from where (`basis`), and files that cannot be shown as text."""

    basis: str
    changes: list[FileChange] = field(default_factory=list)
    binary: list[str] = field(default_factory=list)


def _text(data: bytes | None) -> str | None:
    if data is None:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _disk(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError):
        return None


def _change(rel: str, before: bytes | None, after: bytes | None, out: SessionDiff) -> None:

    old, new = _text(before), _text(after)
    if old is None or new is None:
        out.binary.append(rel)
    elif old != new:
        out.changes.append(FileChange(rel, old, new, exists=before is not None, from_disk=True))


async def checkpoint_diff(agent: Agent, session: Session) -> SessionDiff | None:
    """The diff against the session's first checkpoint; None without one."""
    engine = agent.checkpoints
    first = next((r["commit"] for r in session.prompt_records if r.get("commit")), None)
    if engine is None or not first:
        return None
    out = SessionDiff(basis=f"since the session's first prompt (checkpoint {first[:12]})")
    for rel in (await engine.changed_since(first))[:MAX_FILES]:
        _change(rel, await engine.file_at(first, rel), _disk(engine.project / rel), out)
    return out


async def _git(cwd: Path, *args: str) -> tuple[int, bytes]:
    proc = await asyncio.create_subprocess_exec(
        "git", *args, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
    )
    out, _ = await proc.communicate()
    return proc.returncode or 0, out


async def git_diff(cwd: Path, why: str = "checkpoints are off") -> SessionDiff | None:
    """`git diff HEAD` and untracked files; None outside a git work tree."""
    code, top = await _git(cwd, "rev-parse", "--show-toplevel")
    if code != 0:
        return None
    root = Path(top.decode().strip())
    has_head = (await _git(root, "rev-parse", "--verify", "--quiet", "HEAD"))[0] == 0
    tracked = (await _git(root, "diff", "--name-only", "-z", "HEAD"))[1] if has_head else b""
    untracked = (await _git(root, "ls-files", "--others", "--exclude-standard", "-z"))[1]
    out = SessionDiff(basis=f"in the working tree against git HEAD ({why})")
    names = [n for n in (tracked + untracked).decode("utf-8", "surrogateescape").split("\0") if n]
    for rel in names[:MAX_FILES]:
        code, before = await _git(root, "show", f"HEAD:{rel}") if has_head else (1, b"")
        _change(rel, before if code == 0 else None, _disk(root / rel), out)
    return out


@command("diff", "Show the changes made to the project in this session")
async def diff_command(host: CommandHost, args: str) -> None:

    agent, session = host.agent, host.session
    if agent is None or session is None:
        return
    if agent.checkpoints is not None and not session.prompt_records:
        await host.note("nothing has run in this session yet: no changes to show")
        return
    why = "checkpoints are off" if agent.checkpoints is None else "this session has no checkpoint"
    found = await checkpoint_diff(agent, session) or await git_diff(agent.cwd, why)
    if found is None:
        await host.note("no checkpoints for this session and not a git repository: nothing to compare", warning=True)
        return
    if not found.changes and not found.binary:
        await host.note(f"no changes {found.basis}")
        return
    count = len(found.changes) + len(found.binary)
    await host.note(f"{count} file{'s' if count != 1 else ''} changed {found.basis}")
    for change in found.changes:
        await host.renderable(render_diff(change))
    if found.binary:
        await host.note("binary files changed: " + ", ".join(found.binary))
