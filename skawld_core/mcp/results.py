"""Mapping an MCP `CallToolResult` to a skawld `ToolResult` (§2.14).

text → text; image → base64 image; audio → "[audio content omitted]"; an
embedded text resource → "[resource <uri>]" and its text; a binary resource →
"[resource content omitted: <uri>]"; a resource link → "[resource link:
<uri>]"; structured content with no text block → its JSON; nothing → "(no
content)"; `is_error` → `is_error`. The summary is the first text on one line,
cut at 80 characters, prefixed "error: " for errors.
"""

from __future__ import annotations

import json
from typing import Any

from ..messages import Base64Source, ImageBlock, TextBlock
from ..tools.base import ToolResult

__all__ = ["map_call_result", "one_line"]

SUMMARY_LIMIT = 80


def one_line(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """Whitespace collapsed, cut at `limit` characters (with "…")."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _block(item: Any) -> TextBlock | ImageBlock:
    kind = getattr(item, "type", None)
    if kind == "text":
        return TextBlock(text=item.text)
    if kind == "image":
        return ImageBlock(source=Base64Source(media_type=item.mime_type, data=item.data))
    if kind == "audio":
        return TextBlock(text="[audio content omitted]")
    if kind == "resource":
        resource = item.resource
        text = getattr(resource, "text", None)
        if isinstance(text, str):
            return TextBlock(text=f"[resource {resource.uri}]\n{text}")
        return TextBlock(text=f"[resource content omitted: {resource.uri}]")
    if kind == "resource_link":
        return TextBlock(text=f"[resource link: {item.uri}]")
    return TextBlock(text=f"[{kind or 'unknown'} content omitted]")


def map_call_result(result: Any) -> ToolResult:
    """A `ToolResult` for an `mcp_types.CallToolResult`."""
    blocks = [_block(item) for item in (result.content or [])]
    structured = getattr(result, "structured_content", None)
    if structured is not None and not any(isinstance(b, TextBlock) for b in blocks):
        blocks.append(TextBlock(text=json.dumps(structured, ensure_ascii=False)))
    is_error = bool(getattr(result, "is_error", False))
    if not blocks:
        blocks = [TextBlock(text="(no content)")]
    first_text = next((b.text for b in blocks if isinstance(b, TextBlock)), "")
    summary = one_line(first_text)
    if is_error:
        summary = f"error: {summary}"
    content: str | list[TextBlock | ImageBlock]
    content = blocks[0].text if len(blocks) == 1 and isinstance(blocks[0], TextBlock) else blocks
    return ToolResult(content=content, summary=summary, is_error=is_error)
