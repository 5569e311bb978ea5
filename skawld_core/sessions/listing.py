"""Finding conversations in any `SessionStore`: summaries for a picker, fuzzy
search, id prefixes and "the newest session with a prompt".

Everything here is built on `list_sessions` / `load_messages`, so it works on
every store. Subagent child sessions are never listed.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SessionStoreError
from ..messages import Message, TextBlock
from .meta import is_child_session, is_prompt_message, prompt_text, title_from_prompt
from .store import SessionRecord, SessionStore

_PAGE = 100
_TEXT_LIMIT = 20_000


class SessionLookupError(SessionStoreError):
    """An id prefix that matches no session, or several (`candidates`)."""

    def __init__(self, message: str, candidates: Sequence[SessionRecord] = ()) -> None:
        super().__init__(message)
        self.candidates = list(candidates)


@dataclass(frozen=True)
class SessionSummary:
    """One conversation as a picker shows it."""

    id: str
    title: str
    created_at: str
    updated_at: str
    message_count: int
    prompt_count: int
    model: str | None = None
    git_branch: str | None = None
    cwd: str | None = None
    forked_from: str | None = None
    forked_at: int | None = None
    text: str = field(default="", repr=False)

    @property
    def search_text(self) -> str:
        """Title and content, lower-cased, for `fuzzy_score`."""
        return f"{self.title}\n{self.text}".lower()


async def iter_records(store: SessionStore) -> AsyncIterator[SessionRecord]:
    """Every stored session, newest first (paged)."""
    offset = 0
    while True:
        page = await store.list_sessions(limit=_PAGE, offset=offset)
        for record in page:
            yield record
        if len(page) < _PAGE:
            return
        offset += len(page)


def _same_cwd(record: SessionRecord, cwd: Path | None) -> bool:
    return cwd is None or record.meta.get("cwd") in (None, str(cwd))


def summarize(record: SessionRecord, messages: Sequence[Message]) -> SessionSummary:
    """A summary from a record and its messages."""
    prompts = [prompt_text(m) for m in messages if is_prompt_message(m)]
    title = record.meta.get("title")
    if not isinstance(title, str) or not title:
        title = title_from_prompt(prompts[0]) if prompts else "(no prompt yet)"
    parts: list[str] = []
    size = 0
    for m in messages:
        text = prompt_text(m) if m.role == "user" else "\n".join(b.text for b in m.content if isinstance(b, TextBlock))
        if text:
            parts.append(text)
            size += len(text)
            if size > _TEXT_LIMIT:
                break
    meta = record.meta
    forked_at = meta.get("forked_at")
    return SessionSummary(
        id=record.id,
        title=title,
        created_at=record.created_at,
        updated_at=record.updated_at,
        message_count=len(messages),
        prompt_count=len(prompts),
        model=_str(meta.get("model")),
        git_branch=_str(meta.get("git_branch")),
        cwd=_str(meta.get("cwd")),
        forked_from=_str(meta.get("forked_from")),
        forked_at=forked_at if isinstance(forked_at, int) else None,
        text="\n".join(parts)[:_TEXT_LIMIT],
    )


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


async def list_conversations(
    store: SessionStore,
    *,
    cwd: Path | None = None,
    limit: int | None = 50,
    include_empty: bool = True,
) -> list[SessionSummary]:
    """Conversations newest first: no subagent children; only those of `cwd`
    (sessions without a recorded cwd count as everyone's) when given."""
    out: list[SessionSummary] = []
    async for record in iter_records(store):
        if is_child_session(record.meta) or not _same_cwd(record, cwd):
            continue
        stored = await store.load_messages(record.id)
        summary = summarize(record, [s.message for s in stored])
        if not include_empty and summary.prompt_count == 0:
            continue
        out.append(summary)
        if limit is not None and len(out) >= limit:
            break
    return out


async def newest_conversation(store: SessionStore, cwd: Path | None = None) -> str | None:
    """The newest conversation of `cwd` with at least one prompt (``--continue``:
    the empty session ``/clear`` or ``/new`` left is skipped)."""
    async for record in iter_records(store):
        if is_child_session(record.meta) or not _same_cwd(record, cwd):
            continue
        if record.meta.get("title"):
            return record.id
        stored = await store.load_messages(record.id)
        if any(is_prompt_message(s.message) for s in stored):
            return record.id
    return None


async def resolve_session_id(store: SessionStore, prefix: str) -> str:
    """The one session whose id is `prefix` or starts with it.

    Raises `SessionLookupError` when none matches, or when several do (their
    records in `candidates`, newest first). Child sessions only match exactly.
    """
    prefix = prefix.strip()
    if not prefix:
        raise SessionLookupError("an empty session id")
    exact = await store.load(prefix)
    if exact is not None:
        return exact.id
    matches = [r async for r in iter_records(store) if r.id.startswith(prefix) and not is_child_session(r.meta)]
    if not matches:
        raise SessionLookupError(f"no session matches {prefix!r}")
    if len(matches) > 1:
        listed = ", ".join(r.id for r in matches[:10])
        more = f" and {len(matches) - 10} more" if len(matches) > 10 else ""
        raise SessionLookupError(f"session id {prefix!r} is ambiguous: {listed}{more}", matches)
    return matches[0].id


def fuzzy_score(query: str, text: str) -> int | None:
    """How well `query` matches `text` (lower-cased): `None` when some query
    word's letters do not appear in order; higher is better. Substring hits
    score far above scattered letters."""
    total = 0
    for word in query.lower().split():
        index = text.find(word)
        if index >= 0:
            total += 1000 - min(index, 900)
            continue
        pos, gaps = -1, 0
        for char in word:
            nxt = text.find(char, pos + 1)
            if nxt < 0:
                return None
            if pos >= 0:
                gaps += nxt - pos - 1
            pos = nxt
        total += max(1, 500 - gaps)
    return total


def search(summaries: Sequence[SessionSummary], query: str) -> list[SessionSummary]:
    """`summaries` matching `query`, best first (newest first on ties); all of
    them for an empty query."""
    if not query.strip():
        return list(summaries)
    scored = [(s, fuzzy_score(query, s.search_text)) for s in summaries]
    hits = [(s, sc) for s, sc in scored if sc is not None]
    order = {s.id: i for i, s in enumerate(summaries)}
    hits.sort(key=lambda pair: (-(pair[1] or 0), order[pair[0].id]))
    return [s for s, _ in hits]


def age(timestamp: str, now: _dt.datetime | None = None) -> str:
    """A short age like ``5m``, ``3h``, ``2d`` for an ISO timestamp."""
    try:
        then = _dt.datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return timestamp[:16]
    if then.tzinfo is None:
        then = then.replace(tzinfo=_dt.UTC)
    seconds = max(0, int(((now or _dt.datetime.now(_dt.UTC)) - then).total_seconds()))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


def ago(timestamp: str, now: _dt.datetime | None = None) -> str:
    """``just now`` under a minute, else ``5m ago`` / ``3h ago`` / ``2d ago``."""
    when = age(timestamp, now)
    return "just now" if when.endswith("s") else f"{when} ago"
