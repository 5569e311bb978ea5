"""Forking: copy a session (optionally up to a message) into a new one.

`fork_session` works on any `SessionStore`: it reads the source with `load` /
`load_messages` and writes the copy with `create` / `append_messages` /
`set_invoked_skills`. The source is never written. The copy's meta records
its origin (``forked_from``, ``forked_at``); tasks are not copied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .listing import SessionLookupError
from .store import SessionRecord, SessionStore

_NOT_COPIED = ("usage",)


async def fork_session(
    store: SessionStore,
    source_id: str,
    *,
    upto: int | None = None,
    id: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> SessionRecord:
    """Copy session `source_id` into a new session and return its record.

    `upto` keeps the first `upto` messages (the messages before index `upto`;
    `None` copies all). `meta` is merged over the copied meta. Checkpoints of
    prompts after the cut are dropped; the copy's token usage starts at zero.
    """
    source = await store.load(source_id)
    if source is None:
        raise SessionLookupError(f"no session {source_id!r} to fork")
    stored = await store.load_messages(source_id)
    count = len(stored) if upto is None else upto
    if count < 0 or count > len(stored):
        raise SessionLookupError(f"cannot fork at message {upto}: the session has {len(stored)} messages")
    messages = [s.message for s in stored[:count]]
    new_meta: dict[str, Any] = {k: v for k, v in source.meta.items() if k not in _NOT_COPIED}
    prompts = source.meta.get("prompts")
    if isinstance(prompts, list):
        new_meta["prompts"] = [p for p in prompts if isinstance(p, dict) and p.get("index", count) < count]
    new_meta["forked_from"] = source_id
    new_meta["forked_at"] = count
    new_meta.update(meta or {})
    record = await store.create(id=id, meta=new_meta)
    if await store.load_messages(record.id):
        raise SessionLookupError(f"session {record.id!r} already exists")
    if messages:
        await store.append_messages(record.id, messages)
    if source.invoked_skills:
        await store.set_invoked_skills(record.id, source.invoked_skills)
    loaded = await store.load(record.id)
    assert loaded is not None
    return loaded
