"""Headless background shells: they end with the run (the process ends with it),
and the output says which were still running."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .control import note

if TYPE_CHECKING:
    from skawld_core.agent import Agent
    from skawld_core.session import Session


async def end_shells(agent: Agent, session: Session) -> None:
    """End the session's background shells (headless, nothing would read them
    after the run) and keep `(id, command)` of those still running for `report_ended`."""
    ended = await agent.shell_policy.end_background(session.id)
    session.background_ended = [(s.id, s.command) for s in ended]


def ended_shells(session: Session) -> list[dict[str, Any]]:
    """`[{"id", "command"}]` of the shells still running when the last run ended (now ended)."""
    return [{"id": shell_id, "command": command} for shell_id, command in session.background_ended]


def report_ended(session: Session, result: dict[str, Any] | None, *, verbose: bool) -> None:
    """Add `background_shells_ended` to a JSON `result`, and a `--verbose` line per shell on stderr."""
    ended = ended_shells(session)
    if not ended:
        return
    if result is not None:
        result["background_shells_ended"] = ended
    if verbose:
        for shell in ended:
            note(
                f"background shell {shell['id']} was still running at the end of the run and was ended: "
                f"{shell['command']}"
            )
