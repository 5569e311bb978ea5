"""Which session the CLI opens: ``--resume [ID-PREFIX]``, ``--continue`` and
``--fork-session``, resolved against the configured store before the app or a
headless run starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PICK = ""  # ``--resume`` without an id: choose in a picker


class ResumeError(Exception):
    """A usage error (exit 2): an unknown or ambiguous id, nothing to fork."""


def describe_candidates(candidates: list[Any]) -> str:
    """One line per candidate session: id and title."""
    lines = []
    for record in candidates[:10]:
        title = record.meta.get("title") or ""
        lines.append(f"  {record.id}  {title}".rstrip())
    if len(candidates) > 10:
        lines.append(f"  … and {len(candidates) - 10} more")
    return "\n".join(lines)


async def resolve_start(store: Any, *, cwd: Path, resume: str | None, continue_last: bool, fork: bool) -> str | None:
    """The id to open: the newest conversation of `cwd` with a prompt
    (`continue_last`), the session `resume` names or uniquely prefixes, or
    `None` (a new session, or the picker when `resume` is `PICK`). With `fork`,
    the chosen session is copied first and the copy's id returned."""
    from skawld_core.sessions.fork import fork_session
    from skawld_core.sessions.listing import SessionLookupError, newest_conversation, resolve_session_id

    session_id: str | None = None
    if continue_last:
        session_id = await newest_conversation(store, cwd)
        if session_id is None and fork:
            raise ResumeError("--fork-session --continue: no earlier session with a prompt in this directory")
    elif resume:
        try:
            session_id = await resolve_session_id(store, resume)
        except SessionLookupError as exc:
            extra = describe_candidates(exc.candidates)
            hint = f"\n{extra}\nuse more characters of the id" if extra else " (see `skawld sessions list`)"
            raise ResumeError(f"{exc}{hint}") from None
    if fork and session_id is not None:
        record = await fork_session(store, session_id)
        session_id = record.id
    return session_id


def start_session_id(settings: Any, *, resume: str | None, continue_last: bool, fork: bool) -> str | None:
    """`resolve_start` on the settings' store (opened and closed here)."""
    from skawld_core.settings import make_store

    from .cli.subcommand import run_on_store  # lazy: the sub-command helpers load only when a session must be looked up

    return run_on_store(
        lambda: make_store(settings),
        lambda store: resolve_start(store, cwd=settings.cwd, resume=resume, continue_last=continue_last, fork=fork),
    )


def optional_resume_value(args: list[str]) -> list[str]:
    """Let ``--resume`` / ``-r`` stand without an id (the picker): give it an
    empty value when it is last or followed by another option."""
    out: list[str] = []
    for i, arg in enumerate(args):
        out.append(arg)
        if arg == "--":
            out.extend(args[i + 1 :])
            break
        if arg in ("--resume", "-r"):
            following = args[i + 1] if i + 1 < len(args) else None
            if following is None or following.startswith("-"):
                out.append(PICK)
    return out


def exit_hint(session: Any) -> str | None:
    """``skawld --resume <id>`` for a session with messages, else `None`."""
    if session is None or not getattr(session, "full_history", None):
        return None
    return f"Resume this session with: skawld --resume {session.id}"
