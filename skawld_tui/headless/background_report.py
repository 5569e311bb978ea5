"""What headless output says about background shells the end of a run had to end."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .control import note

if TYPE_CHECKING:
    from skawld_core.session import Session


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
