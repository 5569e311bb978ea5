"""`/bashes`: the session's background shells, and `/bashes kill <id>`."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .base import CommandHost, command

if TYPE_CHECKING:
    from skawld_core.sandbox.shells import BackgroundShell, BackgroundShells


def session_shells(host: CommandHost) -> BackgroundShells | None:
    """The open session's background shells (None before there is a session)."""
    if host.agent is None or host.session is None:
        return None
    return host.agent.shell_policy.background(host.session.id)


def running_shells(host: CommandHost) -> int:
    """How many background shells of the session are running (for the status line)."""
    shells = session_shells(host)
    return shells.running if shells is not None else 0


async def end_session_shells(host: CommandHost) -> int:
    """End the open session's background shells (the session is being left); how many ran."""
    if host.agent is None or host.session is None:
        return 0
    ended = await host.agent.shell_policy.end_background(host.session.id)
    return len(ended)


def _age(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f}s"
    if seconds < 3600:
        return f"{seconds // 60:.0f}m{seconds % 60:02.0f}s"
    return f"{seconds // 3600:.0f}h{seconds % 3600 // 60:02.0f}m"


def shell_state(shell: BackgroundShell) -> str:
    """`running`, `killed` or `exit N`."""
    if shell.running:
        return "running"
    return "killed" if shell.killed else f"exit {shell.returncode}"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def shells_markdown(shells: list[BackgroundShell], now: float | None = None) -> str:
    """A table: id, command, state, age."""
    now = time.monotonic() if now is None else now
    rows = [f"| `{s.id}` | `{_cell(s.command)}` | {shell_state(s)} | {_age(now - s.started)} |" for s in shells]
    return "| id | command | state | age |\n|---|---|---|--:|\n" + "\n".join(rows) + "\n\n`/bashes kill <id>` ends one."


async def _kill(host: CommandHost, shells: BackgroundShells, shell_id: str) -> None:
    shell = shells.get(shell_id)
    if shell is None:
        known = ", ".join(s.id for s in shells.list()) or "none"
        await host.note(f"no background shell {shell_id!r} (shells: {known})", warning=True)
        return
    was_running = shell.running
    await shell.kill()
    host.status_changed()
    await host.note(f"{shell.id} killed" if was_running else f"{shell.id} had already ended ({shell_state(shell)})")


@command("bashes", "List background shells; /bashes kill [id] ends one", args="[kill [id]]")
async def bashes_command(host: CommandHost, args: str) -> None:
    shells = session_shells(host)
    if shells is None:
        return
    verb, _, shell_id = args.partition(" ")
    if verb == "kill" and not shell_id.strip():
        running = [(s.id, f"{s.id}  {s.command}") for s in shells.list() if s.running]
        if not running:
            await host.note("no background shell is running")
            return
        await host.choose("Kill which background shell?", running, lambda picked: _kill(host, shells, picked))
        return
    if verb == "kill":
        await _kill(host, shells, shell_id.strip())
        return
    if verb:
        await host.note("usage: /bashes, or /bashes kill <id>", warning=True)
        return
    found = shells.list()
    if not found:
        await host.note(
            "no background shells (Bash with run_in_background starts one; it lives until it exits or the session ends)"
        )
        return
    await host.markdown(shells_markdown(found))
