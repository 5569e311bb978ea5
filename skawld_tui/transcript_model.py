"""Pure view logic for the interactive app: no Textual imports.

Turns skawld messages into displayable items (for resume and "show earlier"),
summarises tool calls, prices usage and formats the
small numbers the status bar and run footers show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from skawld_core.messages import (
    DocumentBlock,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from skawld_core.pricing import DEFAULT_TABLE, Price, PriceTable
from skawld_core.sessions.listing import ago
from skawld_core.sessions.meta import meta_title

from .file_diff import proposed_change, unified_diff

if TYPE_CHECKING:
    from skawld_core.events import ResultEvent
    from skawld_core.session import Session
    from skawld_core.sessions.store import SessionRecord

_HIDDEN_PREFIXES = ("<env>", "<system-reminder>")


def user_prompt_text(message: Message) -> str:
    """What the user typed: the text blocks without the `<env>` block and reminders
    (a `!cmd` carried by the message shows as `! cmd`, its output is left out)."""
    parts = []
    for b in message.content:
        if not isinstance(b, TextBlock) or b.text.startswith(_HIDDEN_PREFIXES):
            continue
        if b.text.startswith("<bash-"):
            if b.text.startswith("<bash-input>"):
                parts.append("! " + b.text.removeprefix("<bash-input>").removesuffix("</bash-input>"))
            continue
        parts.append(b.text)
    images = sum(1 for b in message.content if isinstance(b, ImageBlock))
    text = "\n".join(parts)
    if images and "[image: " not in text:  # the composer already labelled them
        text += f"\n[{images} image{'s' if images > 1 else ''}]"
    return text.strip()


def tool_result_text(block: ToolResultBlock) -> str:
    """The text of a tool result (images become a placeholder)."""
    if isinstance(block.content, str):
        return block.content
    out = []
    for part in block.content:
        if isinstance(part, DocumentBlock):
            out.append(f"[document {part.title or ''}]".replace(" ]", "]"))
        else:
            out.append(part.text if isinstance(part, TextBlock) else "[image]")
    return "\n".join(out)


def compact_json(value: Any, limit: int = 80) -> str:
    """One-line JSON, cut to `limit` characters."""
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarize_tool(name: str, input: dict[str, Any], registry: Any = None) -> str:
    """The tool's own one-line summary when it can be computed, else `Name {json}`."""
    tool = registry.get(name) if registry is not None else None
    if tool is not None:
        try:
            summary = str(tool.summarize(tool.validate(input)))
            return summary.splitlines()[0] if summary else name
        except Exception:  # an invalid input still gets a title
            pass
    for key in ("command", "file_path", "path", "pattern", "description", "query", "url"):
        value = input.get(key)
        if isinstance(value, str) and value:
            first = value.splitlines()[0]
            return f"{name} {first[:100]}"
    return f"{name} {compact_json(input)}" if input else name


def bash_title(input: dict[str, Any], limit: int = 160) -> tuple[str, str]:
    """A Bash panel's title parts: the command's first line (cut at `limit`) and its description."""
    command = str(input.get("command") or "").strip()
    lines = command.splitlines()
    first = lines[0] if lines else ""
    if len(first) > limit:
        first = first[: limit - 1] + "…"
    elif len(lines) > 1:
        first += " …"
    description = input.get("description")
    return first, description.strip() if isinstance(description, str) else ""


def output_preview(text: str, limit: int = 3) -> tuple[list[str], int]:
    """The first `limit` lines of a tool's output, and how many more there are (blank edges dropped)."""
    lines = text.strip("\n").splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    return lines[:limit], max(0, len(lines) - limit)


_EXIT = re.compile(r"\n?exit: (\S.*)\s*$")


def split_bash_exit(text: str) -> tuple[str, str | None]:
    """A Bash result without its `exit: N` trailer, and the trailer's status when it is not 0."""
    m = _EXIT.search(text)
    if m is None:
        return text, None
    status = m.group(1).strip()
    return text[: m.start()].rstrip("\n"), None if status == "0" else status


def count_lines(text: str) -> int:
    """Lines in a tool result (a trailing newline does not start another)."""
    return len(text.strip("\n").splitlines())


LANGUAGES = {
    ".py": "python",
    ".js": "javascript",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".json": "json",
    ".md": "markdown",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sh": "bash",
    ".rs": "rust",
    ".go": "go",
    ".html": "html",
    ".css": "css",
    ".sql": "sql",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".java": "java",
}


def language_for(path: str) -> str | None:
    """A syntax name for a path's extension, if known."""
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:].lower()) if dot >= 0 else None


# -- pricing -------------------------------------------------------------------

# The single price table (skawld_core/pricing.json plus config overrides); headless
# and the app use the same one. `build_agent` installs the configured table.
_ACTIVE: list[PriceTable] = [DEFAULT_TABLE]


def use_price_table(table: PriceTable) -> None:
    """Make `table` the one `price_for` / `cost_usd` consult."""
    _ACTIVE[0] = table


def price_for(model: str) -> Price | None:
    """The price of `model` when known (longest matching prefix)."""
    return _ACTIVE[0].price(model)


def price_note() -> str:
    """Where the prices come from (for `/usage`)."""
    from skawld_core.pricing import prices_updated

    table = _ACTIVE[0]
    custom = " and config overrides" if table.overrides else ""
    local = "; a local server is not charged" if table.local else ""
    return f"list prices of {prices_updated()}{custom}{local}"


def cost_usd(model: str, usage: Usage) -> float | None:
    """The dollar cost of `usage` on `model`, or None when the price is unknown.

    `input_tokens` includes the cache fields, so cached tokens are billed at
    their own rates and only the rest at the input rate.
    """
    return _ACTIVE[0].cost(model, usage)


def format_tokens(n: int) -> str:
    """`950`, `12.3k`, `1.2M`."""
    if n < 1000:
        return str(n)
    if n < 1_000_000:
        return f"{n / 1000:.1f}k"
    return f"{n / 1_000_000:.1f}M"


def format_cost(dollars: float | None) -> str:
    return "" if dollars is None else f"${dollars:.4f}" if dollars < 0.01 else f"${dollars:.2f}"


_STOPPED = ("aborted", "interrupted")  # the user stopped it: the call in flight reported no usage


def run_footer(event: ResultEvent, model: str | None, *, show_timings: bool) -> str:
    """A run's footer line: its end, duration, tokens and cost (``success · 2.1s · 1.2k in /
    30 out · $0.0042``; ``~`` marks estimated counts). A run the user stopped before any model
    call was counted (Esc during the first answer: the stopped call reports no usage) shows no
    figures rather than ``0 in / 0 out``."""
    usage = event.total_usage
    parts: list[str] = [event.subtype]
    if show_timings:
        parts.append(format_duration(event.duration_ms))
    if event.subtype not in _STOPPED or usage.input_tokens or usage.output_tokens:
        about = "~" if event.usage_estimated else ""
        parts.append(f"{about}{format_tokens(usage.input_tokens)} in / {format_tokens(usage.output_tokens)} out")
        cost = format_cost(cost_usd(model, usage)) if model else ""
        if cost:
            parts.append(about + cost)
    return "  " + " · ".join(parts)


def format_duration(ms: float) -> str:
    """`850ms`, `2.4s`, `3m05s`."""
    if ms < 1000:
        return f"{ms:.0f}ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m{rest:02d}s"


def context_percent(usage: Usage | None, window: int) -> int:
    """How much of the context window the last turn used (prompt + output)."""
    if usage is None or window <= 0:
        return 0
    return min(100, round(100 * (usage.input_tokens + usage.output_tokens) / window))


# -- history -> display items ---------------------------------------------------


@dataclass
class UserItem:
    text: str
    index: int | None = None


@dataclass
class AssistantItem:
    text: str


@dataclass
class ThinkingItem:
    text: str


@dataclass
class ToolItem:
    tool_use_id: str
    name: str
    input: dict[str, Any]
    result: str | None = None
    is_error: bool = False


@dataclass
class NoteItem:
    """Steering messages and stop-hook notes shown as a dim line."""

    text: str


Item = UserItem | AssistantItem | ThinkingItem | ToolItem | NoteItem


@dataclass
class HistoryView:
    """Display items for a slice of history, tool results attached to their calls."""

    items: list[Item] = field(default_factory=list)


def history_items(messages: Sequence[Message], offset: int = 0) -> list[Item]:
    """Turn stored messages into display items; each tool result joins its call.
    A user item records its message index (`offset` + position)."""
    items: list[Item] = []
    tools: dict[str, ToolItem] = {}
    for position, message in enumerate(messages):
        if message.role == "assistant":
            for block in message.content:
                if isinstance(block, ThinkingBlock) and block.thinking.strip():
                    items.append(ThinkingItem(block.thinking))
                elif isinstance(block, TextBlock) and block.text.strip():
                    items.append(AssistantItem(block.text))
                elif isinstance(block, ToolUseBlock):
                    tool = ToolItem(block.id, block.name, dict(block.input))
                    tools[block.id] = tool
                    items.append(tool)
            continue
        results = [b for b in message.content if isinstance(b, ToolResultBlock)]
        for result in results:
            found = tools.get(result.tool_use_id)
            if found is not None:
                found.result = tool_result_text(result)
                found.is_error = bool(result.is_error)
        if not results:
            text = user_prompt_text(message)
            if text:
                items.append(UserItem(text, offset + position))
    return items


def opens_turn(message: Message) -> bool:
    """A message that opens a turn: a user message without tool results."""
    return message.role == "user" and not any(isinstance(b, ToolResultBlock) for b in message.content)


def tail_start(messages: Sequence[Message], keep: int) -> int:
    """Where to start rendering so about `keep` messages show, at a turn boundary.

    Only the last `keep` messages are looked at, so the cost does not grow with history."""
    if len(messages) <= keep:
        return 0
    want = len(messages) - keep
    return next((i for i in range(want, len(messages)) if opens_turn(messages[i])), want)


def export_markdown(messages: Iterable[Message]) -> str:
    """The conversation as Markdown (for /export)."""

    out: list[str] = []
    for item in history_items(list(messages)):
        if isinstance(item, UserItem):
            out.append(f"## User\n\n{item.text}\n")
        elif isinstance(item, AssistantItem):
            out.append(f"## Assistant\n\n{item.text}\n")
        elif isinstance(item, ToolItem):
            mark = "error" if item.is_error else "ok"
            change = proposed_change(item.name, item.input, None)
            shown = (
                f"```diff\n{unified_diff(change)}\n```"
                if change is not None
                else f"```json\n{json.dumps(item.input, indent=2)}\n```"
            )
            out.append(f"### Tool: {item.name} ({mark})\n\n{shown}\n")
            if item.result:
                out.append(f"```\n{item.result}\n```\n")
    return "\n".join(out)


def restored_notice(count: int, session: Session | SessionRecord) -> str:
    """``restored N messages, last activity 5m ago`` for a resumed session of `count` messages."""
    last = ago(session.updated_at)
    title = meta_title(session.meta)
    shown = f" · {title}" if title else ""
    return f"restored {count} messages, last activity {last} · session {session.id[:8]}{shown}"
