"""Session commands of the plain line mode: a numbered picker with search
(``/resume``, ``skawld --resume`` without an id) and ``/rename``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skawld_core.sessions.listing import SessionSummary, ago, list_conversations, search

if TYPE_CHECKING:
    from .plain import PlainChat

SHOWN = 20


def summary_line(number: int, s: SessionSummary) -> str:
    """One numbered picker line."""
    facts = [ago(s.updated_at), f"{s.message_count} msgs"]
    facts += [x for x in (s.model, f"⎇ {s.git_branch}" if s.git_branch else None) if x]
    if s.forked_from:
        facts.append(f"fork of {s.forked_from[:8]}")
    facts.append(s.id[:8])
    return f"{number:>2}. {s.title}  · " + " · ".join(facts)


async def pick_plain(chat: PlainChat, current: str | None = None) -> str | None:
    """List the project's conversations; a number resumes, text searches,
    an empty answer cancels. Returns the chosen id."""
    assert chat.agent is not None
    sessions = [
        s
        for s in await list_conversations(chat.agent.store, cwd=chat.agent.cwd, limit=100, include_empty=False)
        if s.id != current
    ]
    if not sessions:
        chat.out("no other stored sessions", style="dim")
        return None
    shown = sessions
    while True:
        for i, s in enumerate(shown[:SHOWN], 1):
            chat.out(summary_line(i, s))
        if len(shown) > SHOWN:
            chat.out(f"    … {len(shown) - SHOWN} more (type to search)", style="dim")
        answer = await chat.ask("number to resume, text to search, Enter to cancel: ")
        if not answer:
            return None
        if answer.isdigit() and 1 <= int(answer) <= min(len(shown), SHOWN):
            return shown[int(answer) - 1].id
        found = search(sessions, answer)
        if not found:
            chat.out(f"no session matches {answer!r}", style="yellow")
        else:
            shown = found


async def rename_plain(chat: PlainChat, args: str) -> None:
    """``/rename <title>``."""
    assert chat.session is not None
    if not args.strip():
        chat.out(f"title: {chat.session.title or '(none yet)'} — use /rename <title>", style="dim")
        return
    await chat.session.rename(args)
    chat.out(f"renamed: {chat.session.title}", style="dim")
