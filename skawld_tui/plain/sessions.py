"""Session dialogs of the plain line mode: a numbered picker with search
(``/resume``, ``skawld --resume`` without an id) and the ``/rewind`` questions."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skawld_core.sessions.listing import SessionSummary, ago, list_conversations, search
from skawld_core.sessions.meta import prompt_points, title_from_prompt

if TYPE_CHECKING:
    from .view import PlainView

SHOWN = 20


def summary_line(number: int, s: SessionSummary) -> str:
    """One numbered picker line."""
    facts = [ago(s.updated_at), f"{s.message_count} msgs"]
    facts += [x for x in (s.model, f"⎇ {s.git_branch}" if s.git_branch else None) if x]
    if s.forked_from:
        facts.append(f"fork of {s.forked_from[:8]}")
    facts.append(s.id[:8])
    return f"{number:>2}. {s.title}  · " + " · ".join(facts)


async def pick_plain(chat: PlainView, current: str | None = None) -> str | None:
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


async def rewind_plain(chat: PlainView) -> None:
    """``/rewind``: a numbered prompt list, then code / conversation / both."""
    from ..app.screens.rewind import LIMITS  # lazy: the app's rewind dialog: Textual, only for /rewind

    assert chat.session is not None and chat.agent is not None
    points = prompt_points(chat.session.meta, chat.session.full_history)
    if not points:
        chat.out("nothing to rewind: no prompts in this session yet", style="dim")
        return
    for number, p in enumerate(points, 1):
        when = ago(p.at) if p.at else ""
        mark = "code checkpoint" if p.commit else "no code checkpoint"
        chat.out(f"{number:>2}. {title_from_prompt(p.text, 70)}  · {when} · {mark}")
    chat.out(LIMITS, style="dim")
    answer = await chat.ask("rewind to before prompt number (Enter to cancel): ")
    if not answer.isdigit() or not 1 <= int(answer) <= len(points):
        chat.out("nothing rewound", style="dim")
        return
    point = points[int(answer) - 1]
    choice = (await chat.ask("restore [b]oth, [c]onversation only, [k] code only: ")).lower()[:1]
    if choice not in ("b", "c", "k"):
        chat.out("nothing rewound", style="dim")
        return
    if choice in ("b", "k"):
        engine = chat.agent.checkpoints
        if engine is None or point.commit is None:
            chat.out("no code checkpoint for that prompt; nothing restored", style="yellow")
            return
        from skawld_core.checkpoints import agent_written_paths, user_changes

        agent = agent_written_paths(chat.session.full_history[point.index :], engine.project, chat.agent.cwd)
        mine = await user_changes(engine, point.commit, agent)
        keep: tuple[str, ...] = ()
        if mine:
            chat.out("These files changed after that checkpoint, not by the agent:", style="yellow")
            for change in mine:
                chat.out(f"  {change.describe()}")
            answer = (await chat.ask("[o]verwrite them, [k]eep them as they are, Enter to cancel: ")).lower()[:1]
            if answer not in ("o", "k"):
                chat.out("nothing rewound", style="dim")
                return
            keep = tuple(c.path for c in mine) if answer == "k" else ()
        result = await engine.restore(point.commit, keep=keep)
        chat.out(
            f"code restored: {len(result.written)} files written, {len(result.deleted)} removed "
            f"(the state before the rewind is checkpoint {result.backup[:12]})",
            style="dim",
        )
        if result.kept:
            chat.out(f"left as they are (your changes): {', '.join(result.kept)}", style="dim")
    if choice in ("b", "c"):
        old = chat.session.id
        chat.session = await chat.session.fork(upto=point.index)
        chat.out(
            f"conversation rewound: new session {chat.session.id[:8]}, the original {old[:8]} is kept; "
            f"the prompt was: {point.text}",
            style="dim",
        )
