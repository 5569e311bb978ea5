"""`/memory`: open the instruction files (AGENTS.md, CLAUDE.md…) in `$VISUAL` / `$EDITOR`.

The app suspends itself while the editor runs (as Ctrl+Z does); the plain mode hands
the terminal over. With no instruction file loaded, the project's `AGENTS.md` is opened
(the editor creates it). The system prompt is built when skawld starts, so an edit
takes effect in the next skawld.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
from pathlib import Path

from .base import CommandHost, command

DEFAULT_EDITOR = "vi"


def memory_files(host: CommandHost) -> list[Path]:
    """The loaded instruction files, or the project's AGENTS.md when none is loaded."""
    agent = host.agent
    if agent is None:
        return []
    loaded = [Path(p) for p in agent.instruction_files]
    return loaded or [agent.cwd / "AGENTS.md"]


def editor_command(env: dict[str, str] | os._Environ[str]) -> list[str]:
    """`$VISUAL`, else `$EDITOR`, else vi, split as a shell would."""
    raw = env.get("VISUAL") or env.get("EDITOR") or DEFAULT_EDITOR
    return shlex.split(raw) or [DEFAULT_EDITOR]


def _edit(files: list[Path]) -> int:
    return subprocess.run([*editor_command(os.environ), *map(str, files)], check=False).returncode


@command("memory", "Edit the instruction files (AGENTS.md, CLAUDE.md) in $EDITOR", idle_only=True)
async def memory_command(host: CommandHost, args: str) -> None:
    files = memory_files(host)
    if not files:
        return
    from .app_host import AppHost  # lazy: the app suspends itself, the plain mode does not

    try:
        if isinstance(host, AppHost):
            from textual.app import SuspendNotSupported  # lazy: Textual only in the app

            try:
                with host.app.suspend():
                    code = _edit(files)
            except SuspendNotSupported:  # no real terminal (tests): run it all the same
                code = await asyncio.to_thread(_edit, files)
        else:
            code = await asyncio.to_thread(_edit, files)
    except OSError as exc:
        await host.error("/memory", f"cannot start the editor {editor_command(os.environ)[0]!r}: {exc.strerror or exc}")
        return
    names = ", ".join(str(f) for f in files)
    if code != 0:
        await host.note(f"the editor exited with status {code}: {names}", warning=True)
        return
    await host.note(f"edited {names}; the next skawld reads them")
