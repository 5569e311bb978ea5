"""MCP elicitation in the plain line mode: the server's question, then one prompt per field.

An empty line keeps the field's default (SEP-1034); an answer the schema rejects is asked
again once with the reason; ``n`` at the first question declines, an empty answer there or
EOF cancels. URL mode shows the URL and asks whether to open it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from skawld_core.mcp.elicitation import ElicitationAnswer, ElicitationRequest, check_answer, default_text, field_hint

__all__ = ["elicit_plain"]


async def elicit_plain(
    out: Callable[..., None], ask: Callable[[str], Awaitable[str]], request: ElicitationRequest
) -> ElicitationAnswer:
    """Ask `request` with `out(text, style=...)` and `ask(prompt) -> line`."""
    out(f"? The MCP server {request.server!r} asks: {request.message}", style="bold cyan")
    if request.mode == "url":
        out(f"  {request.url}")
    first = (await ask("  answer? y = yes, n = decline, empty = cancel: ")).lower()
    if first in ("n", "no"):
        return ElicitationAnswer("decline")
    if first not in ("y", "yes"):
        return ElicitationAnswer("cancel")
    if request.mode == "url":
        import webbrowser

        if request.url:
            webbrowser.open(request.url)
        return ElicitationAnswer("accept")
    for attempt in range(2):
        content: dict[str, Any] = {}
        for f in request.fields:
            shown = default_text(f)
            content[f.name] = await ask(f"  {f.title} ({field_hint(f)})" + (f" [{shown}]" if shown else "") + ": ")
        try:
            check_answer(request.schema, content)
        except ValueError as exc:
            out(f"  {exc}" + ("; once more" if attempt == 0 else ""), style="bold red")
            continue
        return ElicitationAnswer("accept", content)
    return ElicitationAnswer("decline")
