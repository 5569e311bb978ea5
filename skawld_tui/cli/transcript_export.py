"""Render a stored session (and its subagent runs) as Markdown or JSON.

Subagent runs are the store records whose meta names this session as
``parentSessionId``; they are attached to the parent and rendered in a
"Subagent runs" section after its messages (recursively).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from skawld_core.messages import ImageBlock, TextBlock, ThinkingBlock, ToolResultBlock, ToolUseBlock
from skawld_core.sessions.store import SessionRecord, SessionStore, StoredMessage


@dataclass
class SessionTree:
    record: SessionRecord
    messages: list[StoredMessage]
    children: list[SessionTree] = field(default_factory=list)


def _parent_of(record: SessionRecord) -> str | None:
    value = record.meta.get("parentSessionId") or record.meta.get("parent_session_id")
    return value if isinstance(value, str) else None


async def load_tree(store: SessionStore, session_id: str) -> SessionTree | None:
    """The session, its messages, and (recursively) its subagent sessions."""
    record = await store.load(session_id)
    if record is None:
        return None
    everyone: list[SessionRecord] = []
    offset = 0
    while True:
        page = await store.list_sessions(limit=200, offset=offset)
        everyone.extend(page)
        if len(page) < 200:
            break
        offset += 200
    by_parent: dict[str, list[SessionRecord]] = {}
    for rec in everyone:
        parent = _parent_of(rec)
        if parent:
            by_parent.setdefault(parent, []).append(rec)

    async def build(rec: SessionRecord, depth: int) -> SessionTree:
        kids = sorted(by_parent.get(rec.id, []), key=lambda r: r.created_at) if depth < 8 else []
        return SessionTree(
            record=rec,
            messages=await store.load_messages(rec.id),
            children=[await build(k, depth + 1) for k in kids],
        )

    return await build(record, 0)


def _tree_json(tree: SessionTree) -> dict[str, Any]:
    return {
        "session": tree.record.model_dump(mode="json"),
        "messages": [m.model_dump(mode="json", exclude_none=True) for m in tree.messages],
        "subagents": [_tree_json(c) for c in tree.children],
    }


def to_json(tree: SessionTree) -> str:
    """The whole tree as one indented JSON document."""
    return json.dumps(_tree_json(tree), indent=2, ensure_ascii=False) + "\n"


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text.rstrip()}\n{ticks}"


def _result_text(block: ToolResultBlock) -> str:
    if isinstance(block.content, str):
        return block.content
    return "\n".join(p.text if isinstance(p, TextBlock) else "[image]" for p in block.content)


def _title(tree: SessionTree) -> str:
    meta = tree.record.meta
    name = (
        meta.get("display_name") or meta.get("displayName") or meta.get("subagent_type") or meta.get("subagentType")
    ) or meta.get("title")
    return f"{name} ({tree.record.id})" if name else tree.record.id


def _render(tree: SessionTree, level: int, out: list[str]) -> None:
    h = "#" * min(level, 6)
    out.append(f"{h} Session {_title(tree)}\n")
    out.append(f"- created: {tree.record.created_at}\n- updated: {tree.record.updated_at}")
    if cwd := tree.record.meta.get("cwd"):
        out.append(f"- cwd: {cwd}")
    out.append("")
    sub = "#" * min(level + 1, 6)
    for stored in tree.messages:
        msg = stored.message
        only_results = msg.role == "user" and all(isinstance(b, ToolResultBlock) for b in msg.content)
        out.append(f"{sub} {'Tool results' if only_results else msg.role.capitalize()} (#{stored.seq})\n")
        for block in msg.content:
            if isinstance(block, TextBlock):
                body = block.text.strip()
                if body.startswith("<env>") and body.endswith("</env>"):
                    continue  # the per-run date prefix
                if body.startswith("<system-reminder>"):
                    out.append(f"<details><summary>system reminder</summary>\n\n{_fence(body)}\n\n</details>\n")
                    continue
                out.append(block.text.rstrip() + "\n")
            elif isinstance(block, ThinkingBlock):
                out.append("\n".join("> " + line for line in block.thinking.splitlines()) + "\n")
            elif isinstance(block, ToolUseBlock):
                out.append(f"**Tool call** `{block.name}` (`{block.id}`)\n")
                out.append(_fence(json.dumps(block.input, indent=2, ensure_ascii=False), "json") + "\n")
            elif isinstance(block, ToolResultBlock):
                status = " (error)" if block.is_error else ""
                out.append(f"**Result** of `{block.tool_use_id}`{status}\n")
                out.append(_fence(_result_text(block)) + "\n")
            elif isinstance(block, ImageBlock):
                out.append("[image]\n")
    if tree.children:
        out.append(f"{sub} Subagent runs\n")
        for child in tree.children:
            _render(child, level + 2, out)


def to_markdown(tree: SessionTree) -> str:
    """A readable Markdown transcript."""
    out: list[str] = []
    _render(tree, 1, out)
    return "\n".join(out).rstrip() + "\n"
